package analysis_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A two-tier fat tree of 16 DGX H100 (128 endpoints on 4 leaves and 2 spines) with one uplink
// missing: the bisection is proved from below and witnessed by a cut from above, and both say
// 25,200 of 25,600 Gb/s; the leaf that lost the uplink is the oversubscription witness.
func ExampleAnalyze() {
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 16}, cat)
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := d.FabricSpec()
	spec.RemoveCables([]string{"leaf01:33"})
	g, _ := fabric.Build(spec, cat)

	r := analysis.Analyze(g, &analysis.Workload{Parameters: 70e9, GradientBytesPerParam: 2})
	fmt.Printf("%d endpoints, %d switches, %d tiers\n", r.Endpoints, r.Switches, r.Tiers)
	fmt.Printf("bisection %g <= b <= %g of %g Gb/s (ratio %g, lower bound by %s)\n",
		r.BisectionLowerGbps, r.BisectionUpperGbps, r.FullBisectionGbps, r.BisectionRatio, r.BisectionLowerMethod)
	fmt.Printf("witness cut: %s, %d links\n", r.Cut.Method, r.Cut.CrossingLinks)
	fmt.Printf("leaf oversubscription %g at %s\n", r.Oversubscription["leaf"], r.Worst["leaf"].Name)
	fmt.Printf("worst path: %d switch hops\n", r.MaxSwitchHops)
	// Output:
	// 128 endpoints, 6 switches, 2 tiers
	// bisection 25200 <= b <= 25200 of 25600 Gb/s (ratio 0.984375, lower bound by exact enumeration)
	// witness cut: pod split, 63 links
	// leaf oversubscription 1.0323 at leaf01
	// worst path: 2 switch hops
}
