package asbuilt

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// checkWorkOrder holds a work order to the fit: its counts are the report's; every removal and
// every move's old cable is a cable of the floor on the ports it is on (so no technician is
// sent to a port where the cable is not, and a dead port, which carries none, is never a move
// source); a move's from end is one of those ports and its new row keeps the other; every
// addition and every move's new row is a cable of the fitted fabric.
func checkWorkOrder(t *testing.T, f *Fitted, wo []bom.Change) map[string]int {
	t.Helper()
	floor := map[string]bool{}
	for _, c := range f.floor.Cables {
		floor[c.A.String()+" "+c.B.String()] = true
		floor[c.B.String()+" "+c.A.String()] = true
	}
	fitted := map[string]bool{}
	for _, c := range f.Spec.Cables {
		fitted[c.A.String()+" "+c.B.String()] = true
	}
	ends := func(r bom.CableRow) string { return r.A.Endpoint() + " " + r.B.Endpoint() }
	counts := map[string]int{}
	for _, c := range wo {
		counts[c.Action]++
		switch c.Action {
		case bom.ChangeRemove:
			if !floor[ends(c.Row)] {
				t.Errorf("remove %s: not a floor cable", ends(c.Row))
			}
		case bom.ChangeMove:
			if !floor[ends(c.Prior)] || !fitted[ends(c.Row)] {
				t.Errorf("move %s -> %s: not a floor cable into a fitted one", ends(c.Prior), ends(c.Row))
			}
			from, _, _ := strings.Cut(c.From, " ")
			if from != c.Prior.A.Endpoint() && from != c.Prior.B.Endpoint() {
				t.Errorf("move from %s, which is not an end of %s", c.From, ends(c.Prior))
			}
			if c.Row.A.Endpoint() != c.Prior.A.Endpoint() && c.Row.B.Endpoint() != c.Prior.B.Endpoint() &&
				c.Row.A.Endpoint() != c.Prior.B.Endpoint() && c.Row.B.Endpoint() != c.Prior.A.Endpoint() {
				t.Errorf("move %s -> %s keeps no end", ends(c.Prior), ends(c.Row))
			}
		case bom.ChangeAdd:
			if !fitted[ends(c.Row)] {
				t.Errorf("add %s: not a fitted cable", ends(c.Row))
			}
		}
	}
	checkTechnician(t, f, wo)
	r := f.Report
	if counts[bom.ChangeRemove] != r.LinksRemoved || counts[bom.ChangeMove] != r.LinksMoved || counts[bom.ChangeAdd] != r.LinksAdded {
		t.Fatalf("work order %v; the fit removes %d, moves %d, adds %d", counts, r.LinksRemoved, r.LinksMoved, r.LinksAdded)
	}
	return counts
}

// The floor: at 2 SU the work order moves the two swapped rail cables from the ports
// they are on, naming what else each takes down in the cages it touches, and adds the dead
// uplink; grown to 4 SU, it moves 255 uplinks and the 2 rail cables and adds the rest, counts
// equal to the fit, and no move leaves the dead port.
func TestWorkOrderBrownfield(t *testing.T) {
	floor := snapshotFloor(t)
	f := mustFit(t, railDesign(t, 2, 2), floor.Spec, nil)
	wo, err := f.WorkOrder(nil)
	if err != nil {
		t.Fatal(err)
	}
	checkWorkOrder(t, f, wo)
	text, err := bom.ChangesCSV(wo)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 4 {
		t.Fatalf("work order:\n%s", text)
	}
	// hgx-b017/mlx5_0 leaves ib-leaf-10 port 49 (cage 25, split 1), whose cage mate port 50
	// holds hgx-b018's rail-1 cable, for ib-leaf-09 port 49, whose mate holds hgx-b018's rail 0.
	for _, want := range []string{
		"move,ib-leaf-10:49 (25/1),hgx-b017/mlx5_0:1,hgx-b017,hgx-b017/mlx5_0,1,1,1,1/1,,,",
		",ib-leaf-09,,49,25,1,25/1,,,",
		",ib-leaf-10:50 ib-leaf-09:50\n",
		"add,,ib-leaf-12:6,ib-leaf-12,,6,3,2,3/2,,,",
		",ib-spine-02,,46,23,2,23/2,,,",
	} {
		if !strings.Contains(text+"\n", want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}

	f = mustFit(t, railDesign(t, 4, 4), floor.Spec, nil)
	wo, err = f.WorkOrder(nil)
	if err != nil {
		t.Fatal(err)
	}
	counts := checkWorkOrder(t, f, wo)
	if counts[bom.ChangeMove] != 257 || counts[bom.ChangeRemove] != 0 {
		t.Fatalf("4 SU: %v", counts)
	}
	for _, c := range wo {
		if strings.HasPrefix(c.From, "ib-leaf-12:6 ") || strings.HasPrefix(c.From, "ib-spine-02:46 ") {
			t.Errorf("a move leaves the dead port: %+v", c)
		}
	}
}

// Work orders of damaged and shrunk floors keep the same promises.
func TestWorkOrderDamagedFloors(t *testing.T) {
	cases := []struct {
		name  string
		floor *fabric.Spec
		sus   int
	}{
		{"larger than the design", relabel(railDesign(t, 4, 4).FabricSpec(), catalog.Default(), 41), 2},
		{"missing devices", without(relabel(railDesign(t, 2, 2).FabricSpec(), catalog.Default(), 42), "sw-0007", "host00100"), 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := mustFit(t, railDesign(t, c.sus, c.sus), c.floor, nil)
			wo, err := f.WorkOrder(nil)
			if err != nil {
				t.Fatal(err)
			}
			checkWorkOrder(t, f, wo)
		})
	}
}
