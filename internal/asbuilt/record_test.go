package asbuilt

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// A floor recorded and read back is the same floor, field for field; the same floor records to
// the same bytes; and a record that is not what EncodeRecord wrote is refused, not misread.
func TestRecordRoundTrip(t *testing.T) {
	f := readFloor(t, issueFloor(), true).Spec
	rec, err := EncodeRecord(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	for name, pair := range map[string][2]any{
		"switches": {f.Switches, got.Switches}, "nodes": {f.Nodes, got.Nodes},
		"hcas": {f.HCAs, got.HCAs}, "cables": {f.Cables, got.Cables},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s differ after the round trip", name)
		}
	}
	if len(got.Cables) != 1023 {
		t.Errorf("%d cables read back, want the floor's 1,023", len(got.Cables))
	}
	again, err := EncodeRecord(got)
	if err != nil {
		t.Fatal(err)
	}
	if again != rec {
		t.Error("the same floor recorded twice gave two records")
	}

	other := readFloor(t, handFloor{sus: 2}, true).Spec
	otherRec, err := EncodeRecord(other)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]Record{
		"digest of another floor": {SHA256: otherRec.SHA256, Data: rec.Data},
		"truncated":               {SHA256: rec.SHA256, Data: rec.Data[:len(rec.Data)/2]},
		"not base64":              {SHA256: rec.SHA256, Data: "%%" + rec.Data},
		"not gzip":                {SHA256: rec.SHA256, Data: "aGVsbG8="},
		"empty":                   {},
	} {
		if _, err := DecodeRecord(bad); !errors.Is(err, ErrRecordAltered) {
			t.Errorf("%s: got %v, want ErrRecordAltered", name, err)
		}
	}
}

// TestRecordSize measures what a design carries for a floor of 8 SU (2,048 HCAs, 4,096 cables):
// the record must stay a string Terraform copies cheaply, well under maxRecordJSON.
func TestRecordSize(t *testing.T) {
	f := readFloor(t, handFloor{sus: 8}, true).Spec
	rec, err := EncodeRecord(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("8 SU floor: %d devices and cables, record %d bytes", len(f.Switches)+len(f.Nodes)+len(f.HCAs)+len(f.Cables), len(rec.Data))
	if len(rec.Data) > 1<<20 || strings.ContainsAny(rec.Data, "\n ") {
		t.Errorf("record of %d bytes, or not one line", len(rec.Data))
	}
}
