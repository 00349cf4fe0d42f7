package asbuilt

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// encodeRecordMarshal is EncodeRecord as it was before it wrote the JSON in pieces (issue 32
// point 5): the whole body through json.Marshal, then gzip and base64. It is the reference the
// streamed encoder must match byte for byte.
func encodeRecordMarshal(t *testing.T, floor *fabric.Spec) Record {
	t.Helper()
	sortedClone := func(n int, clone func(), key func(i int) string, swap func(i, j int)) {
		clone()
		for i := 1; i < n; i++ { // insertion sort: stable, and not the code under test's
			for j := i; j > 0 && key(j) < key(j-1); j-- {
				swap(j, j-1)
			}
		}
	}
	b := recordBody{Version: recordVersion}
	sortedClone(len(floor.Switches), func() { b.Switches = slices.Clone(floor.Switches) },
		func(i int) string { return b.Switches[i].Key }, func(i, j int) { b.Switches[i], b.Switches[j] = b.Switches[j], b.Switches[i] })
	sortedClone(len(floor.Nodes), func() { b.Nodes = slices.Clone(floor.Nodes) },
		func(i int) string { return b.Nodes[i].Key }, func(i, j int) { b.Nodes[i], b.Nodes[j] = b.Nodes[j], b.Nodes[i] })
	sortedClone(len(floor.HCAs), func() { b.HCAs = slices.Clone(floor.HCAs) },
		func(i int) string { return b.HCAs[i].Key }, func(i, j int) { b.HCAs[i], b.HCAs[j] = b.HCAs[j], b.HCAs[i] })
	sortedClone(len(floor.Cables), func() { b.Cables = slices.Clone(floor.Cables) },
		func(i int) string { return b.Cables[i].Key }, func(i, j int) { b.Cables[i], b.Cables[j] = b.Cables[j], b.Cables[i] })
	js, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(js)
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	if _, err := w.Write(js); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return Record{SHA256: hex.EncodeToString(sum[:]), Data: base64.StdEncoding.EncodeToString(z.Bytes())}
}

// The record written in pieces is json.Marshal's, gzipped, to the byte: for the testdata floors,
// a floor of 8 scalable units (its JSON crosses the writer's chunks many times), lists out of
// key order, an empty and a nil list, and names JSON escapes (HTML, quotes, bytes that are not
// UTF-8).
func TestRecordStreamedMatchesMarshal(t *testing.T) {
	floors := map[string]*fabric.Spec{
		"issue floor": readFloor(t, issueFloor(), true).Spec,
		"8 SU":        readFloor(t, handFloor{sus: 8}, true).Spec,
	}
	files, err := filepath.Glob("testdata/*")
	if err != nil || len(files) < 3 {
		t.Fatalf("testdata floors: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		l, err := LoadText(string(b), "", ReadOptions{Simulated: filepath.Ext(f) == ".net"})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		floors[f] = l.Floor.Spec
	}
	odd := floors["issue floor"].Clone()
	slices.Reverse(odd.Cables)
	slices.Reverse(odd.Switches)
	odd.Switches[0].Name = `<leaf&"01">` + "\xff\u2028"
	odd.Nodes = odd.Nodes[:0]
	odd.HCAs = nil
	floors["out of order, odd names, empty and nil lists"] = odd
	floors["nothing"] = &fabric.Spec{}
	for name, f := range floors {
		got, err := EncodeRecord(f)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := encodeRecordMarshal(t, f); got != want {
			t.Errorf("%s: the streamed record differs from json.Marshal's (%d and %d bytes)", name, len(got.Data), len(want.Data))
		}
	}
	if len(floors["8 SU"].Cables) < 1000 {
		t.Fatalf("the 8-SU floor has %d cables", len(floors["8 SU"].Cables))
	}
}
