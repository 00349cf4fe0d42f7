package bom

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// demoCabling is the cabling of the simulated cluster's fabric (examples/clusters/simulated):
// 8 DGX H100 on two leaves and a spine, copper where it reaches.
func demoCabling() []CableRow {
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2}, cat)
	if err != nil {
		panic(err)
	}
	g, probs := fabric.Build(d.Spec(), cat)
	if fabric.HasErrors(probs) {
		panic(fmt.Sprint(probs))
	}
	return Cabling(g, cat, Options{})
}

// The issue's cable: leaf01:40 <-> spine01:8 is the second link of a twin-port ACC cable whose
// first link is leaf01:39 <-> spine01:7 (QM9700 ports 39 and 40 are cage 20). Found by either
// end or the full label in either order, with or without spaces around the arrow.
func TestCageMatesTwinCopper(t *testing.T) {
	m := NewCageMates(demoCabling())
	for _, label := range []string{"leaf01:40", "spine01:8", "leaf01:40 <-> spine01:8", "spine01:8<->leaf01:40"} {
		r, ok := m.Find(label)
		if !ok || FullLabel(r) != "leaf01:40 <-> spine01:8" {
			t.Fatalf("Find(%q) = %s, %v", label, FullLabel(r), ok)
		}
		mates := m.Mates(label)
		if len(mates) != 1 || mates[0].Cable != "leaf01:39 <-> spine01:7" || mates[0].Label != "leaf01:39" || !mates[0].Always ||
			mates[0].Shared != "twin-port cable "+r.CableSKU {
			t.Errorf("Mates(%q) = %+v", label, mates)
		}
	}
	if _, ok := m.Find("leaf01:65"); ok {
		t.Error("leaf01:65 found")
	}
	if got := m.Mates("leaf01:99 <-> spine01:1"); got != nil {
		t.Errorf("mates of an unknown cable: %v", got)
	}
}

// Locate is the technician's line and the mates of the cable a label names, by the full label in
// the other order too; nothing for a label that names no cable.
func TestCageMatesLocate(t *testing.T) {
	m := NewCageMates(demoCabling())
	line, mates, ok := m.Locate("spine01:8 <-> leaf01:40")
	if !ok || len(mates) != 1 || mates[0].Cable != "leaf01:39 <-> spine01:7" ||
		line != "leaf01:40 <-> spine01:8: rack06 U42 leaf01 cage 20 split 2 (port 40) <-> rack01 U42 spine01 cage 4 split 2 (port 8); "+
			"acc 4 m cable MCA4J80-N004; replacing it also takes down leaf01:39 <-> spine01:7 (same twin-port cable MCA4J80-N004)" {
		t.Errorf("Locate: %q %+v %v", line, mates, ok)
	}
	if line, mates, ok := m.Locate("leaf01:99 <-> spine01:1"); ok || line != "" || mates != nil {
		t.Errorf("unknown cable: %q %+v %v", line, mates, ok)
	}
}

// On a fiber build (RA-11333-001: every link is fiber with transceivers) no cable is shared, and
// the mates are exactly the other split of each twin-port cage the cable ends in. The expected
// mates come from port arithmetic alone: a QM9700 port p shares its cage with p+1 (p odd) or
// p-1 (p even); a DGX H100's HCAs mlx5_2k and mlx5_2k+1 share a cage.
func TestCageMatesFiberTransceivers(t *testing.T) {
	_, rows := superPODCabling(t, 1, 0)
	m := NewCageMates(rows)
	byEnd := map[string]CableRow{}
	for _, r := range rows {
		byEnd[r.A.Endpoint()], byEnd[r.B.Endpoint()] = r, r
	}
	partner := func(e CableEnd) (string, bool) {
		switch {
		case strings.HasPrefix(e.Device, "ufm"):
			return "", false
		case e.HCA != "":
			node, dev, _ := strings.Cut(e.HCA, "/mlx5_")
			n, _ := strconv.Atoi(dev)
			return fmt.Sprintf("%s/mlx5_%d:1", node, n^1), true
		default:
			p := e.Port + 1
			if e.Port%2 == 0 {
				p = e.Port - 1
			}
			return fmt.Sprintf("%s:%d", e.Device, p), true
		}
	}
	checked := 0
	for _, r := range rows {
		want := map[string]string{}
		for _, e := range []CableEnd{r.A, r.B} {
			if p, ok := partner(e); ok {
				if o, cabled := byEnd[p]; cabled && FullLabel(o) != FullLabel(r) {
					want[FullLabel(o)] = e.Device
				}
			}
		}
		got := map[string]string{}
		for _, mt := range m.Mates(r.Label) {
			if mt.Always {
				t.Fatalf("%s: fiber mate %+v marked as a shared cable", r.Label, mt)
			}
			_, dev, _ := strings.Cut(mt.Shared, " in ")
			dev, _, _ = strings.Cut(dev, " cage ")
			got[mt.Cable] = dev
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: mates %v, want %v", r.Label, got, want)
		}
		checked++
	}
	if checked != len(rows) || len(rows) < 500 {
		t.Errorf("checked %d of %d rows", checked, len(rows))
	}
}

// The technician's line names both ends' rack, unit, box, cage and split, the part, and the
// link that goes down with it.
func ExampleTechnicianLine() {
	rows := demoCabling()
	m := NewCageMates(rows)
	r, _ := m.Find("leaf01:40")
	fmt.Println(TechnicianLine(r, m.Mates("leaf01:40")))
	r, _ = m.Find("gpu008/mlx5_5:1")
	fmt.Println(TechnicianLine(r, m.Mates(r.Label)))
	// Output:
	// leaf01:40 <-> spine01:8: rack06 U42 leaf01 cage 20 split 2 (port 40) <-> rack01 U42 spine01 cage 4 split 2 (port 8); acc 4 m cable MCA4J80-N004; replacing it also takes down leaf01:39 <-> spine01:7 (same twin-port cable MCA4J80-N004)
	// gpu008/mlx5_5:1 <-> leaf02:30: rack03 U25 gpu008 (gpu008/mlx5_5) cage 3 split 2 (port 1) <-> rack06 U41 leaf02 cage 15 split 2 (port 30); acc 5 m cable MCA4J80-N005; replacing it also takes down gpu008/mlx5_4:1 <-> leaf02:29 (same twin-port cable MCA4J80-N005)
}
