package asbuilt

import (
	"errors"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// keyed sorts by key with sort.Sort (not the code under test's slices.SortStableFunc); keys are
// unique in a floor, so stability does not matter.
type keyed struct {
	n    int
	key  func(i int) string
	swap func(i, j int)
}

func (k keyed) Len() int           { return k.n }
func (k keyed) Less(i, j int) bool { return k.key(i) < k.key(j) }
func (k keyed) Swap(i, j int)      { k.swap(i, j) }

// A floor recorded and read back is the same floor, field for field, each list in the order of
// its keys (as Terraform's maps ordered them); the same floor records to the same bytes, in any
// order; and a record that is not what EncodeRecord wrote is refused, not misread.
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
	sorted := func(n int, key func(i int) string, swap func(i, j int)) {
		sort.Sort(keyed{n, key, swap})
	}
	w := fabric.Spec{Switches: slices.Clone(f.Switches), Nodes: slices.Clone(f.Nodes), HCAs: slices.Clone(f.HCAs), Cables: slices.Clone(f.Cables)}
	sorted(len(w.Switches), func(i int) string { return w.Switches[i].Key }, func(i, j int) { w.Switches[i], w.Switches[j] = w.Switches[j], w.Switches[i] })
	sorted(len(w.Nodes), func(i int) string { return w.Nodes[i].Key }, func(i, j int) { w.Nodes[i], w.Nodes[j] = w.Nodes[j], w.Nodes[i] })
	sorted(len(w.HCAs), func(i int) string { return w.HCAs[i].Key }, func(i, j int) { w.HCAs[i], w.HCAs[j] = w.HCAs[j], w.HCAs[i] })
	sorted(len(w.Cables), func(i int) string { return w.Cables[i].Key }, func(i, j int) { w.Cables[i], w.Cables[j] = w.Cables[j], w.Cables[i] })
	for name, pair := range map[string][2]any{
		"switches": {w.Switches, got.Switches}, "nodes": {w.Nodes, got.Nodes},
		"hcas": {w.HCAs, got.HCAs}, "cables": {w.Cables, got.Cables},
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
	rev := fabric.Spec{Switches: slices.Clone(f.Switches), Nodes: slices.Clone(f.Nodes), HCAs: slices.Clone(f.HCAs), Cables: slices.Clone(f.Cables)}
	slices.Reverse(rev.Switches)
	slices.Reverse(rev.Nodes)
	slices.Reverse(rev.HCAs)
	slices.Reverse(rev.Cables)
	if reversed, err := EncodeRecord(&rev); err != nil || reversed != rec {
		t.Errorf("the floor in reverse order gave another record (%v)", err)
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

// The floor EncodeRecord keeps for the plan's next reader is the one the record decodes to,
// field for field (decodeRecord, which inflates and parses it afresh); a name that is not UTF-8
// (JSON writes U+FFFD for it) is read back as the record has it, not as it was given.
func TestRecordKeptAsDecoded(t *testing.T) {
	f := readFloor(t, issueFloor(), true).Spec
	rec, err := EncodeRecord(f)
	if err != nil {
		t.Fatal(err)
	}
	kept, err := DecodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := decodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(kept, fresh) {
		t.Error("the floor kept by EncodeRecord is not the one its record decodes to")
	}
	bad := f.Clone()
	bad.Switches[0].Name = "leaf\xff01"
	rec, err = EncodeRecord(bad)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ = decodeRecord(rec)
	if !reflect.DeepEqual(got, fresh) {
		t.Error("a name that is not UTF-8 was kept as given, not as its record reads back")
	}
	for _, s := range got.Switches {
		if strings.Contains(s.Name, "\xff") {
			t.Errorf("switch %q read back with the byte JSON cannot carry", s.Name)
		}
	}
}
