package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// failedFabric is examples/clusters/simulated's design (8 DGX H100 on two leaves and one spine,
// 12,800 Gb/s of full bisection) under training-large, with failed cables and a leaf ratio.
func failedFabric(oversubscription float64, failed ...string) string {
	var entries []string
	for _, f := range failed {
		entries = append(entries, fmt.Sprintf("    { cable = %q, reason = \"symbol errors\", since = \"2026-11-30\" },", f))
	}
	return fmt.Sprintf(`
data "gpucluster_topology" "sim" {
  kind             = "fat-tree"
  node_count       = 8
  tiers            = 2
  oversubscription = %g
  items            = []
}

resource "gpucluster_fabric" "f" {
  name   = "sim"
  design = data.gpucluster_topology.sim.design
  policy = { preset = "training-large" }
  failed_cables = [
%s
  ]
}
`, oversubscription, strings.Join(entries, "\n"))
}

// TestAccFabricFailedCables, the done-when of issue 18 through the real terraform: a failed
// uplink plans and applies with the fabric as designed passing training-large and the fabric as
// it runs in analysis.degraded (12,800 - 400 = 12,400 Gb/s, ratio 0.96875); 32 failed uplinks of
// one leaf (an isolated leaf) fail the plan; a design change that breaks the policy still fails
// while a cable is marked failed.
func TestAccFabricFailedCables(t *testing.T) {
	const f = "gpucluster_fabric.f"
	var leaf01 []string
	for p := 33; p <= 64; p++ {
		leaf01 = append(leaf01, fmt.Sprintf("leaf01:%d", p))
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: failedFabric(1, "leaf01:40"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(f, "analysis.bisection_lower_gbps", "12800"),
					resource.TestCheckResourceAttr(f, "analysis.bisection_ratio", "1"),
					resource.TestCheckResourceAttr(f, "analysis.degraded.failed_links", "1"),
					resource.TestCheckResourceAttr(f, "analysis.degraded.bisection_lower_gbps", "12400"),
					resource.TestCheckResourceAttr(f, "analysis.degraded.bisection_upper_gbps", "12400"),
					resource.TestCheckResourceAttr(f, "analysis.degraded.bisection_ratio", "0.96875"),
					// Passes training-large; the one spine is full at the planned size, which the
					// spine-headroom rule advises on, generated or not (issue 19 item 3).
					resource.TestCheckResourceAttr(f, "analysis.violations.#", "1"),
					resource.TestMatchResourceAttr(f, "analysis.violations.0", regexp.MustCompile(`^warning: spine-headroom: top tier spine has 0% free ports at spine01`)),
				),
			},
			{
				Config:      failedFabric(1, leaf01...),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`degraded-isolated-switch: leaf01 is cut off from the fabric`),
			},
			{
				Config:      failedFabric(2, "leaf01:40"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Policy violation: oversubscription`),
			},
			{
				// Replaced: the entry leaves the list and the fabric as it runs is the design.
				Config: failedFabric(1),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckNoResourceAttr(f, "analysis.degraded.failed_links"),
					resource.TestCheckResourceAttr(f, "analysis.bisection_lower_gbps", "12800"),
				),
			},
		},
	})
}
