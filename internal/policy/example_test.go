package policy_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A two-tier fat tree of 16 DGX H100 with one uplink missing, judged against training-large
// and a custom rule: each violation names its rule, the measured and the required value and
// its witness, so a failing plan says what to change.
func ExampleEvaluate() {
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 16}, cat)
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := d.FabricSpec()
	spec.RemoveCables([]string{"leaf01:33"})
	g, _ := fabric.Build(spec, cat)
	rules, err := policy.ParseRules("fabric.hcl", []byte(`
rule "spines" {
  condition = length([for s in fabric.switches : s if s.role == "spine"]) >= 4
  error_message = "the fabric needs four spines"
}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range policy.Evaluate(g, analysis.Analyze(g, nil), policy.Policy{Preset: policy.PresetTrainingLarge}, rules) {
		fmt.Println(v.Message)
	}
	// Output:
	// oversubscription: tier leaf is 1.03:1 at leaf01 (32 x 400 Gb/s down, 31 x 400 Gb/s up); training-large allows at most 1:1. Nearest settings that pass: policy.tier_limits.leaf = 1.0323 (tier leaf alone; the rest of training-large stays; 32/31 rounded up), or policy.max_oversubscription = 1.0323 (every tier; 32/31 rounded up); or, at 1:1, leaf01 needs 32 uplinks of 400 Gb/s (1 more; it has 1 free port)
	// bisection: ratio is 0.984375 (25200 Gb/s of 25600 Gb/s full bisection); training-large requires at least 1 (25600 Gb/s). Witness: a balanced cut (pod split) of 25200 Gb/s across 63 links, between 64 endpoints behind 2 switches (leaf01, leaf02) and 64 endpoints behind 4 switches (leaf03, leaf04, spine01, spine02). Nearest setting that passes: policy.min_bisection_ratio = 0.984375 (the proved ratio)
	// spine-headroom: top tier spine has 0% free ports at spine02 (0 of 64 free, 64 used); 2 of 2 spine switches are below 30%: spine01, spine02; the default spine headroom (policy.spine_headroom) requires 30% free ports (20 of 64) on every top-tier switch for growth; planned_nodes = 17 keeps 30% of the top tier free at this size (4 spines, 2 now)
	// spines (fabric.hcl:2): the fabric needs four spines
}
