package firstlight

import (
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// BenchmarkValidate2048: a 2,048-node rail-optimized design (16,384 HCAs) against a floor with
// its own names and GUIDs and one swap: FitMatch, then Validate.
func BenchmarkValidate2048(b *testing.B) {
	cat := catalog.Default()
	gen, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, Nodes: 2048}, cat)
	if err != nil {
		b.Fatal(err)
	}
	design := gen.FabricSpec()
	floor, rn := ownNames(design)
	leaf := rn[design.Switches[2].Name]
	i, j := cableAt(b, floor, e(leaf, 1)), cableAt(b, floor, e(leaf, 2))
	setEnd(floor, i, e(leaf, 1), e(leaf, 2))
	setEnd(floor, j, e(leaf, 2), e(leaf, 1))
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		m, err := FitMatch(gen, nil, floor, cat)
		if err != nil {
			b.Fatal(err)
		}
		r, err := Validate(Input{Design: design, Floor: floor, Match: m, Catalog: cat})
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Rows) != 1 || r.Rows[0].Action != ActSwap {
			b.Fatalf("rows %v", keys(r.Rows))
		}
	}
}
