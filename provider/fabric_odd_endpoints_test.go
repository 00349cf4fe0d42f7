package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccFabricOddEndpoints, issue 27 item 5: examples/clusters/superpod-4su (127 DGX H100, 1,016
// endpoints, a full fat tree) with one node cable not cabled has 1,015 endpoints. A balanced cut
// puts 507 on one side, so the full bisection is 507 x 400 = 202,800 Gb/s, which the fabric
// carries: training-large passes with a ratio of exactly 1, where N/2 x 400 = 203,000 judged it
// 0.999. 202,800 = floor(1015/2) x 400 is the closed form, and what the proved lower bound reaches.
func TestAccFabricOddEndpoints(t *testing.T) {
	const f = "gpucluster_fabric.f"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: `
data "gpucluster_topology" "pod" {
  kind                = "rail-optimized"
  scalable_units      = 4
  reserved_node_slots = 1
  cable_kind          = "fiber-mm"
  items               = []
}

resource "gpucluster_fabric" "f" {
  name          = "superpod"
  design        = data.gpucluster_topology.pod.design
  absent_cables = ["gpu005/mlx5_3:1"]
  policy = {
    preset         = "training-large"
    spine_headroom = 0
  }
}
`,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(f, "analysis.endpoints", "1015"),
				resource.TestCheckResourceAttr(f, "analysis.full_bisection_gbps", "202800"),
				resource.TestCheckResourceAttr(f, "analysis.bisection_lower_gbps", "202800"),
				resource.TestCheckResourceAttr(f, "analysis.bisection_ratio", "1"),
				resource.TestCheckResourceAttr(f, "analysis.violations.#", "0"),
				resource.TestCheckNoResourceAttr(f, "analysis.degraded.failed_links"),
				resource.TestCheckResourceAttr(f, "analysis.tiers", "2"),
			),
		}},
	})
}
