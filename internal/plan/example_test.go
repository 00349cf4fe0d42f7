package plan_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A generated two-tier fat tree of 16 DGX H100 (128 endpoints: 4 leaves, 2 spines), one uplink
// missing (25,600 - 400 = 25,200 Gb/s of bisection, proved and witnessed), judged
// against the training-large preset and rendered into OpenSM files: the whole way from a
// declaration to what a plan shows.
func Example() {
	cat := catalog.Default()
	design := topogen.Params{Kind: topogen.KindFatTree, Nodes: 16}
	f, problems := plan.Build(cat, plan.Inputs{Design: &design, Absent: []string{"leaf01:33"}})
	if f == nil {
		fmt.Println(problems)
		return
	}
	out := plan.Run(cat, f, plan.Request{
		Policy: policy.Policy{Preset: policy.PresetTrainingLarge},
		OpenSM: &plan.OpenSMSettings{}, // subnet_manager's render settings: the defaults
	})
	a := out.Analysis
	fmt.Printf("%d endpoints, %d switches, %d links\n", a.Endpoints, a.Switches, a.Links)
	fmt.Printf("bisection %.0f-%.0f of %.0f Gb/s\n", a.BisectionLowerGbps, a.BisectionUpperGbps, a.FullBisectionGbps)
	fmt.Println(plan.Verdict(out.Violations, out.UnreadPolicyFiles))
	for _, p := range out.Problems {
		fmt.Printf("%s on %s\n", p.Summary, p.At)
	}
	fmt.Println(len(out.OpenSM.Files), "OpenSM files, engine", out.OpenSM.Expect.Engine)
	// Output:
	// 128 endpoints, 6 switches, 255 links
	// bisection 25200-25200 of 25600 Gb/s
	// Policy: FAIL, 2 violations (bisection, oversubscription), 1 warning
	// Policy violation: oversubscription on policy
	// Policy violation: bisection on policy
	// Policy advice: spine-headroom on policy
	// 6 OpenSM files, engine ftree
}
