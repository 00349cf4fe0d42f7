package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccFabricPolicyExample plans the small fabric of policyFabric with the policy file the docs
// show (examples/policies/fabric.hcl): with 2:1 leaves its leaf-uplinks rule fails the plan,
// naming the file, the line and both leaves; with 1:1 leaves and a workload every rule passes
// (switch-hops at 2 of at most 4, allreduce-budget on a real value rather than through try).
func TestAccFabricPolicyExample(t *testing.T) {
	t.Parallel()
	file, err := filepath.Abs("../examples/policies/fabric.hcl")
	if err != nil {
		t.Fatal(err)
	}
	files := fmt.Sprintf("policy_files = [%q]", file)
	const f = "gpucluster_fabric.f"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:   policyFabric(4, files),
				PlanOnly: true,
				ExpectError: re("leaf-uplinks (" + file + ":12): Every leaf needs as much bandwidth up as down (1:1). " +
					"Failing: 2 of 2: leaf01, leaf02."),
			},
			{
				Config: policyFabric(8, files+"\n  workload = { parameters = 70e9 }"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(f, "analysis.max_switch_hops", "2"),
					// 16 GPUs, one 400 Gb/s port each: 2 * 15/16 * 140e9 B / 50e9 B/s = 5.25 s.
					resource.TestCheckResourceAttr(f, "analysis.allreduce_seconds.ring", "5.25"),
					resource.TestCheckResourceAttr(f, "analysis.violations.#", "0"),
				),
			},
		},
	})
}
