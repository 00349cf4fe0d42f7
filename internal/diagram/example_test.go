package diagram_test

import (
	"fmt"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/diagram"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A fat tree of 16 DGX H100 drawn by tier: the parallel links between two boxes are one bundle
// with its count and capacity, and above the fold limit (here 8 nodes) the nodes fold into one
// box per rack, the generator's racks of four DGX H100.
func ExampleBuild() {
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 16}, cat)
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := fabric.Build(d.FabricSpec(), cat)
	pic, err := diagram.Build(g, diagram.Options{FoldAbove: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	for tier := len(pic.Rows) - 1; tier >= 0; tier-- {
		var labels []string
		for _, b := range pic.Rows[tier] {
			labels = append(labels, pic.Boxes[b].Label)
		}
		fmt.Printf("tier %d: %s\n", tier, strings.Join(labels, " "))
	}
	b := pic.Bundles[0]
	fmt.Printf("%s - %s: %s\n", pic.Boxes[b.A].Label, pic.Boxes[b.B].Label, pic.BundleLabel(b))
	fmt.Println(strings.Contains(pic.SVG(), "<svg"), strings.Contains(pic.DOT(), "rank=same"))
	// Output:
	// tier 2: spine01 spine02
	// tier 1: leaf01 leaf02 leaf03 leaf04
	// tier 0: rack02 rack03 rack04 rack05
	// leaf01 - rack02: 32 × 400G = 12800 Gb/s
	// true true
}
