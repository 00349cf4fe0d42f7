package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// failedNodeCable is examples/clusters/simulated's design (8 DGX H100, 64 endpoints) under
// training-large with the node cable gpu005/mlx5_3:1 failed, and policy.degraded as given.
func failedNodeCable(degraded string) string {
	return fmt.Sprintf(`
data "gpucluster_topology" "sim" {
  kind       = "fat-tree"
  node_count = 8
  tiers      = 2
  items      = []
}

resource "gpucluster_fabric" "f" {
  name   = "sim"
  design = data.gpucluster_topology.sim.design
  policy = {
    preset   = "training-large"
    degraded = %s
  }
  failed_cables = [
    { cable = "gpu005/mlx5_3:1", reason = "link down", since = "2026-11-30" },
  ]
}
`, degraded)
}

// TestAccFabricFailedNodeCable, issue 27 item 6 through the real terraform: a failed HCA cable
// cuts one endpoint off; the plan warns, naming gpu005 as the node to drain, and applies
// (analysis.degraded.unreachable_endpoints = 1; the 63 endpoints left carry their full
// bisection, 31 x 400 = 12,400 Gb/s, ratio 1), and fails with max_unreachable_endpoints = 0.
func TestAccFabricFailedNodeCable(t *testing.T) {
	const f = "gpucluster_fabric.f"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      failedNodeCable("{ max_unreachable_endpoints = -1 }"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)max_unreachable_endpoints.*at least 0`),
			},
			{
				Config:             failedNodeCable("null"),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true, // plans, with no error
			},
			{
				Config:      failedNodeCable("{ max_unreachable_endpoints = 0 }"),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`degraded-unreachable-endpoint:\s+1\s+endpoint\s+is\s+cut\s+off\s+by\s+its\s+own\s+failed\s+cable\s+\(gpu005/mlx5_3\):\s+policy.degraded.max_unreachable_endpoints\s+allows\s+at\s+most\s+0\s+unreachable.\s+Drain\s+1\s+node\s+gpu005`),
			},
			{
				Config: failedNodeCable("null"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(f, "analysis.bisection_ratio", "1"),
					resource.TestCheckResourceAttr(f, "analysis.degraded.failed_links", "1"),
					resource.TestCheckResourceAttr(f, "analysis.degraded.unreachable_endpoints", "1"),
					resource.TestCheckResourceAttr(f, "analysis.degraded.bisection_lower_gbps", "12400"),
					resource.TestCheckResourceAttr(f, "analysis.degraded.bisection_ratio", "1"),
					resource.TestCheckTypeSetElemAttr(f, "analysis.violations.*",
						"warning: degraded-unreachable-endpoint: drain gpu005: gpu005/mlx5_3 is cut off from the fabric by its own failed cable "+
							"(gpu005/mlx5_3:1 <-> leaf02:4). The rest of the fabric runs on (analysis.degraded); gpucluster_scheduler_topology, "+
							"given the same failed_cables, lists the node in drain_nodes. Replace the cable, then remove it from failed_cables"),
				),
			},
		},
	})
}

// TestAccSchedulerTopologyDrain: the scheduler topology, given the same failed_cables, marks the
// node the fabric warns about (drain_nodes, and a note) and keeps it in topology.conf; a failed
// uplink drains nothing.
func TestAccSchedulerTopologyDrain(t *testing.T) {
	const ds = "data.gpucluster_scheduler_topology.s"
	config := func(cable string) string {
		return fmt.Sprintf(`
data "gpucluster_topology" "sim" {
  kind       = "fat-tree"
  node_count = 8
  tiers      = 2
  items      = []
}

data "gpucluster_scheduler_topology" "s" {
  design        = data.gpucluster_topology.sim.design
  failed_cables = [{ cable = %q, since = "2026-11-30" }]
}
`, cable)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: config("gpu005/mlx5_3:1"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(ds, "drain_nodes.%", "1"),
					resource.TestCheckResourceAttr(ds, "drain_nodes.gpu005", "gpu005/mlx5_3 cut off: failed cable gpu005/mlx5_3:1 <-> leaf02:4"),
					resource.TestCheckTypeSetElemAttr(ds, "notes.*", "nodes to drain while their failed cables are down (kept in the topology): gpu005"),
					resource.TestMatchResourceAttr(ds, "slurm_topology_conf", regexp.MustCompile(`SwitchName=leaf02 Nodes=gpu\[005-008\]`)),
				),
			},
			{
				Config: config("leaf01:40"),
				Check:  resource.TestCheckResourceAttr(ds, "drain_nodes.%", "0"),
			},
			{
				Config:      config("gpu099/mlx5_3:1"),
				ExpectError: regexp.MustCompile(`failed_cables`),
			},
		},
	})
}
