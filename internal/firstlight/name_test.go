package firstlight

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestNameMatchInventory: a design given as inventory maps (no generator design to fit) is
// matched by name, then GUID: a floor with the design's names, one switch renamed but keeping
// its GUID, and one node cable moved to a free port gives that move alone.
func TestNameMatchInventory(t *testing.T) {
	design := testrig.FatTreeSpec(4, 2, 4)
	floor := &fabric.Spec{Switches: append([]fabric.Switch(nil), design.Switches...), Nodes: design.Nodes, HCAs: design.HCAs,
		Cables: append([]fabric.Cable(nil), design.Cables...)}
	old := "leaf01"
	for i := range floor.Switches {
		if floor.Switches[i].Name == old {
			floor.Switches[i].Name = "renamed-on-site" // its GUID kept
		}
	}
	hcaCable := -1
	for i, c := range floor.Cables {
		for _, e := range []*fabric.End{&floor.Cables[i].A, &floor.Cables[i].B} {
			if e.Device == old {
				e.Device = "renamed-on-site"
			}
		}
		if hcaCable < 0 && fabric.IsHCAName(c.A.Device) && (c.B.Device == old) {
			hcaCable = i
		}
	}
	if hcaCable < 0 {
		t.Fatal("no node cable on the first switch")
	}
	from := floor.Cables[hcaCable].B
	floor.Cables[hcaCable].B.Port = 30 // free on a leaf of 4 nodes and 2 spines
	m := NameMatch(design, floor)
	if m["renamed-on-site"] != old {
		t.Fatalf("the renamed switch is matched to %q, want %q by GUID", m["renamed-on-site"], old)
	}
	r, err := Validate(Input{Design: design, Floor: floor, Match: m})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("move %s:30 %s:%d miswired", old, old, from.Port)
	if got := keys(r.Rows); strings.Join(got, "\n") != want {
		t.Errorf("rows %q, want %q", got, want)
	}
}
