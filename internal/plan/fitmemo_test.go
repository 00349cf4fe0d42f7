package plan

import (
	"reflect"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A design fitted to a floor twice in one process is fitted once, and each caller gets a fit of
// its own: what one caller merges into its fitted spec, the next does not see.
func TestDesignFitsOnce(t *testing.T) {
	cat := catalog.Default()
	small := topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 1, PlannedScalableUnits: 2}
	floorDes, err := topogen.Generate(small, cat)
	if err != nil {
		t.Fatal(err)
	}
	floor := floorDes.FabricSpec()
	grown := small
	grown.ScalableUnits = 2
	before := fits.count
	_, first, ps := Design(cat, grown, floor, "")
	if ps.HasErrors() || first == nil {
		t.Fatalf("fit: %v", ps)
	}
	kept := first.Report
	firstCables := append(first.Spec.Cables[:0:0], first.Spec.Cables...)
	first.Spec.Cables = first.Spec.Cables[:1] // as RemoveCables would
	first.Spec.Switches[0].Name = "changed"   // as Merge would replace an item
	_, second, ps := Design(cat, grown, floor, "")
	if ps.HasErrors() || second == nil {
		t.Fatalf("fit again: %v", ps)
	}
	if n := fits.count - before; n != 1 {
		t.Errorf("the same design and floor were fitted %d times, want once", n)
	}
	if !reflect.DeepEqual(second.Report, kept) || !reflect.DeepEqual(second.Spec.Cables, firstCables) || second.Spec.Switches[0].Name == "changed" {
		t.Error("the second caller saw what the first changed in its fit")
	}
	// The fabric generates the design from the design object, the topology's arguments normalized.
	des, _, _ := Design(cat, grown, nil, "")
	if _, _, ps := Design(cat, des.Normalized(), floor, ""); ps.HasErrors() {
		t.Fatalf("fit of the normalized design: %v", ps)
	}
	if n := fits.count - before; n != 1 {
		t.Errorf("the design from its normalized arguments was fitted again (%d fits)", n)
	}
	other := grown
	other.ScalableUnits = 1
	if _, _, ps := Design(cat, other, floor, ""); ps.HasErrors() {
		t.Fatalf("fit of another size: %v", ps)
	}
	if n := fits.count - before; n != 2 {
		t.Errorf("another design on the same floor: %d fits, want 2", n)
	}
	// The cable validation's fit of the same design onto the same floor is the memo's own.
	grownDes, _, _ := Design(cat, grown, nil, "")
	shared, err := FloorFit(cat, grownDes, floor)
	if err != nil {
		t.Fatal(err)
	}
	if n := fits.count - before; n != 2 {
		t.Errorf("FloorFit fitted again (%d fits, want 2)", n)
	}
	if !reflect.DeepEqual(shared.Report, kept) || !reflect.DeepEqual(shared.Spec.Cables, firstCables) {
		t.Error("FloorFit gave another fit than Design's")
	}
}
