package firstlight

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// TestCabledRightAcrossKinds: on every generator family, a floor cabled as designed under its
// own names and GUIDs, in reverse order (so Fit's name-order choices among alike spines, cores,
// units and pods are all wrong at first), passes with no row; and one swap of two uplinks on
// one spine gives exactly that swap. The 3-tier trees are where matching by links alone is not
// enough: which unit a leaf is, is said only by the spine ports it takes (refiner). The
// 2,048-node rail-optimized tree is BenchmarkValidate2048's, which asserts the same.
func TestCabledRightAcrossKinds(t *testing.T) {
	cat := catalog.Default()
	for _, p := range []topogen.Params{
		{Kind: topogen.KindFatTree, Nodes: 64},
		{Kind: topogen.KindFatTree, Nodes: 300},
		{Kind: topogen.KindRailOptimized, ScalableUnits: 2},
		{Kind: topogen.KindDragonflyPlus, Groups: 2, Nodes: 40},
	} {
		name := fmt.Sprintf("%s %d nodes %d SU", p.Kind, p.Nodes, p.ScalableUnits)
		gen, err := topogen.Generate(p, cat)
		if err != nil {
			t.Fatal(err)
		}
		design := gen.FabricSpec()
		floor, rn := ownNames(design)
		r := validateFit(t, gen, design, floor, Input{Catalog: cat})
		if len(r.Rows) != 0 || !r.Summary.Passed() || r.Summary.OK != len(design.Cables) {
			t.Errorf("%s cabled right: %d rows, %+v\n%s", name, len(r.Rows), r.Summary, Report(r.Summary, r.Rows))
			continue
		}
		// two uplinks of the last switch (a spine or core) exchanged at that switch
		top := design.Switches[len(design.Switches)-1].Name
		i, j := cableAt(t, floor, e(rn[top], 1)), cableAt(t, floor, e(rn[top], 2))
		setEnd(floor, i, e(rn[top], 1), e(rn[top], 2))
		setEnd(floor, j, e(rn[top], 2), e(rn[top], 1))
		r = validateFit(t, gen, design, floor, Input{Catalog: cat})
		// A design with symmetries (dragonfly+ groups) lets links alone match the floor's
		// switch to any of its images: the row names the design switch the floor's is matched
		// to, and its detail the floor's own name.
		box := r.Match[rn[top]]
		want := fmt.Sprintf("swap %s:1 %s:2 swapped", box, box)
		if len(r.Rows) == 1 && !strings.Contains(r.Rows[0].Detail, rn[top]+":1") {
			t.Errorf("%s: the swap's detail does not name the floor's switch %s: %s", name, rn[top], r.Rows[0].Detail)
		}
		if got := keys(r.Rows); strings.Join(got, "\n") != want {
			t.Errorf("%s with a swap on %s: rows %q, want %q", name, top, got, want)
		}
	}
}
