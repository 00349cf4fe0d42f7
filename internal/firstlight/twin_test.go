package firstlight

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// twinFloor is a design written by hand with a site's own names and GUIDs (none the generator
// writes), all in one rack so that every run is copper: one leaf, one spine, two HGX H100
// (single-port HCAs) with one HCA each on the leaf's cage 1 (ports 1 and 2: one twin-port
// splitter cable), and two uplinks from the leaf's cage 31 (ports 61, 62) to the spine's cage
// 1 (ports 1, 2: one straight twin-port cable). The floor is the same cabling, with the leaf
// under its own name (same GUID).
func twinFloor() (design, floor *fabric.Spec) {
	design = &fabric.Spec{
		Racks: []fabric.Rack{{Name: "hall2-r12", Row: 2, Position: 12}},
		Switches: []fabric.Switch{
			{Name: "hall2-ib-a7", Model: "QM9700", GUID: "0xfc6a1c0300e1a070", Rack: "hall2-r12", PositionU: 40},
			{Name: "hall2-ib-z1", Model: "QM9700", GUID: "0xfc6a1c0300e1a0f1", Rack: "hall2-r12", PositionU: 42},
		},
		Nodes: []fabric.Node{
			{Name: "r12-dgx-east", Model: "HGX-H100", Rack: "hall2-r12", PositionU: 10},
			{Name: "r12-dgx-west", Model: "HGX-H100", Rack: "hall2-r12", PositionU: 20},
		},
		Cables: []fabric.Cable{
			{A: e("hall2-ib-a7", 61), B: e("hall2-ib-z1", 1)},
			{A: e("hall2-ib-a7", 62), B: e("hall2-ib-z1", 2)},
		},
	}
	// Each node's mlx5_3 on the leaf's cage 1 (east split 1, west split 2), and two more HCAs
	// each on cages of their own, which say which node is which.
	for n, node := range []string{"r12-dgx-east", "r12-dgx-west"} {
		for k, dev := range []string{"mlx5_3", "mlx5_0", "mlx5_6"} {
			h := fabric.HCA{Name: fabric.HCAName(node, dev), Node: node, Device: dev, Rail: int(dev[5] - '0'),
				PortGUID: fmt.Sprintf("0x946dae0300c2%x%03x", 14+n, 0x31+k)}
			design.HCAs = append(design.HCAs, h)
			port := 1 + n // cage 1, split 1 + n
			if k > 0 {
				port = 8*k + 2*n + 1 // cages 5, 6, 9, 10: split 1
			}
			design.Cables = append(design.Cables, fabric.Cable{A: e(h.Name, 1), B: e("hall2-ib-a7", port)})
		}
	}
	floor = &fabric.Spec{Switches: append([]fabric.Switch(nil), design.Switches...), Nodes: design.Nodes, HCAs: design.HCAs}
	floor.Switches[0].Name = "A7-LEAF-SITE"
	for _, c := range design.Cables {
		for _, end := range []*fabric.End{&c.A, &c.B} {
			if end.Device == "hall2-ib-a7" {
				end.Device = "A7-LEAF-SITE"
			}
		}
		floor.Cables = append(floor.Cables, c)
	}
	return design, floor
}

// cageOf is a switch port's OSFP cage and split from the catalog's ports per cage, computed here
// (ports 2k-1 and 2k share cage k on a QM9700), not by the locator.
func cageOf(t *testing.T, design *fabric.Spec, end string) (box string, cage, split int) {
	t.Helper()
	i := strings.LastIndex(end, ":")
	box = end[:i]
	port := 0
	for _, ch := range end[i+1:] {
		port = port*10 + int(ch-'0')
	}
	for _, s := range design.Switches {
		if s.Name == box {
			per := catalog.Default().Switches[s.Model].PortsPerCage()
			return box, (port-1)/per + 1, (port-1)%per + 1
		}
	}
	return box, 0, 0 // not a switch: an HCA's own port
}

// exchange applies a swap row to the floor as a technician does: the plugs in the row's two
// ports (design names; rename maps them to the floor's) trade places.
func exchange(floor *fabric.Spec, a, b fabric.End) {
	for i := range floor.Cables {
		for _, end := range []*fabric.End{&floor.Cables[i].A, &floor.Cables[i].B} {
			switch *end {
			case a:
				*end = b
			case b:
				*end = a
			}
		}
	}
}

func parseEnd(s string, rename map[string]string) fabric.End {
	i := strings.LastIndex(s, ":")
	p := 0
	for _, ch := range s[i+1:] {
		p = p*10 + int(ch-'0')
	}
	d := s[:i]
	if r, ok := rename[d]; ok {
		d = r
	}
	return fabric.End{Device: d, Port: p}
}

// TestSwapOfTwinSplits: the two cables on one twin-port cage's splits, each other's way round,
// are one plug at that cage: the swap row's two ports are the cables' far ends (never the two
// splits of one cage), and carrying the row out on the floor makes it pass. When both cables
// run between the same two cages, no plug can be exchanged: the row is a replace.
func TestSwapOfTwinSplits(t *testing.T) {
	design, floor := twinFloor()
	leaf := "A7-LEAF-SITE"
	rename := map[string]string{"hall2-ib-a7": leaf}
	for i := range floor.Cables {
		if floor.Cables[i].B.Device == leaf && floor.Cables[i].B.Port <= 2 {
			floor.Cables[i].B.Port = 3 - floor.Cables[i].B.Port // east on split 2, west on split 1
		}
	}
	r, err := Validate(Input{Design: design, Floor: floor, Match: NameMatch(design, floor)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 1 || r.Rows[0].Action != ActSwap || r.Summary.Swapped != 2 || r.Summary.OK != 6 {
		t.Fatalf("rows %v, summary %+v; want one swap, 2 swapped, 6 ok", keys(r.Rows), r.Summary)
	}
	row := r.Rows[0]
	ba, ca, sa := cageOf(t, design, row.A.End)
	bb, cb, sb := cageOf(t, design, row.B.End)
	if ba == bb && ca == cb && ca > 0 {
		t.Errorf("swap %s and %s: cage %d splits %d and %d of %s are one plug", row.A.End, row.B.End, ca, sa, sb, ba)
	}
	if !strings.Contains(row.Detail, "hall2-ib-a7 cage 1: its two splits are one plug") {
		t.Errorf("the row does not say why the exchange is not at the leaf: %q", row.Detail)
	}
	exchange(floor, parseEnd(row.A.End, rename), parseEnd(row.B.End, rename))
	after, err := Validate(Input{Design: design, Floor: floor, Match: NameMatch(design, floor)})
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Rows) != 0 || !after.Summary.Passed() {
		t.Errorf("after the swap as the row says: rows %v, summary %+v", keys(after.Rows), after.Summary)
	}

	// Both uplinks cross between leaf cage 31 and spine cage 1.
	design, floor = twinFloor()
	for i := range floor.Cables {
		if floor.Cables[i].B.Device == "hall2-ib-z1" {
			floor.Cables[i].B.Port = 3 - floor.Cables[i].B.Port
		}
	}
	r, err = Validate(Input{Design: design, Floor: floor, Match: NameMatch(design, floor)})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 1 || r.Rows[0].Action != ActReplace || r.Rows[0].Verdict != Swapped || r.Summary.Swapped != 2 {
		t.Fatalf("rows %v, summary %+v; want one replace of the crossed cable, 2 swapped", keys(r.Rows), r.Summary)
	}
	row = r.Rows[0]
	ba, ca, _ = cageOf(t, design, row.A.End)
	bb, cb, _ = cageOf(t, design, row.B.End)
	if ba > bb {
		ba, ca, bb, cb = bb, cb, ba, ca
	}
	if ba != "hall2-ib-a7" || ca != 31 || bb != "hall2-ib-z1" || cb != 1 {
		t.Errorf("replace between %s cage %d and %s cage %d, want hall2-ib-a7 cage 31 and hall2-ib-z1 cage 1", ba, ca, bb, cb)
	}
	if !strings.Contains(row.Detail, "cage 31") || !strings.Contains(row.Detail, "hall2-ib-z1 cage 1") {
		t.Errorf("the row does not name both cages: %q", row.Detail)
	}
}
