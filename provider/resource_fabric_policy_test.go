package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// policyFabric is a small two-tier fabric: 2 DGX H100 (16 HCAs), 2 leaves with 8 node links
// each and `up` uplinks each to one spine, in one rack.
func policyFabric(up int, attrs string) string {
	return fmt.Sprintf(`
locals {
  up   = %d
  hca_list = flatten([for n in ["gpu001", "gpu002"] : [for r in range(8) : { node = n, device = "mlx5_${r}" }]])
  hcas     = { for h in local.hca_list : "${h.node}/${h.device}" => h }
}

resource "gpucluster_fabric" "f" {
  name     = "small"
  racks = { r1 = { row = 1, position = 1, power_kw = 25 } }
  switches = {
    leaf01  = { rack = "r1", position_u = 30 },
    leaf02  = { rack = "r1", position_u = 31 },
    spine01 = { rack = "r1", position_u = 32 },
  }
  nodes = { gpu001 = { rack = "r1", position_u = 2 }, gpu002 = { rack = "r1", position_u = 10 } }
  hcas  = local.hcas
  cables = { for c in concat(
    [for i, h in local.hca_list : {
      a = { device = i < 8 ? "leaf01" : "leaf02", port = i %% 8 + 1 }
      b = { device = "${h.node}/${h.device}", port = 1 }
    }],
    [for i in range(2 * local.up) : {
      a = { device = i < local.up ? "leaf01" : "leaf02", port = 9 + i %% local.up }
      b = { device = "spine01", port = i + 1 }
    }],
  ) : "${c.a.device}:${c.a.port}" => c }
  %s
}
`, up, attrs)
}

// TestAccFabricPolicy makes each rule fail a plan and then passes the fixed plan.
func TestAccFabricPolicy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rules := filepath.Join(dir, "fabric.hcl")
	if err := os.WriteFile(rules, []byte(`
rule "leaf-uplinks" {
  condition     = alltrue([for s in fabric.switches : s.up_gbps >= s.down_gbps if s.role == "leaf"])
  error_message = "Every leaf needs as much bandwidth up as down."
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	const f = "gpucluster_fabric.f"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      policyFabric(4, `policy = { preset = "training-small", min_bisection_ratio = 1 }`),
				PlanOnly:    true,
				ExpectError: re("bisection: ratio is 0.5"),
			},
			{
				Config:      policyFabric(4, fmt.Sprintf(`policy_files = [%q]`, rules)),
				PlanOnly:    true,
				ExpectError: re("leaf-uplinks (" + rules + ":2): Every leaf needs as much bandwidth up as down."),
			},
			{
				Config:      policyFabric(8, `policy = { max_switch_hops = 1 }`),
				PlanOnly:    true,
				ExpectError: re("switch-hops: the worst shortest path takes 2 switch-to-switch hops"),
			},
			{
				Config:      policyFabric(8, `transport = "roce"`),
				PlanOnly:    true,
				ExpectError: re("roce-pfc: transport roce (RoCEv2) needs lossless Ethernet, but pfc is false"),
			},
			{
				Config:      policyFabric(8, `workload = { parameters = 70e9 }`+"\n"+`policy = { max_allreduce_seconds = 0.01 }`),
				PlanOnly:    true,
				ExpectError: re("allreduce-time: the estimated gradient all-reduce takes"),
			},
			{
				Config:      policyFabric(8, `policy = { spine_headroom = 0.8, spine_headroom_is_error = true }`),
				PlanOnly:    true,
				ExpectError: re("spine-headroom: top tier spine has 75% free ports at spine01"),
			},
			{
				// Everything fixed: 1:1 leaves, RoCE with PFC on 16 GPUs, the custom rule met.
				Config: policyFabric(8, fmt.Sprintf(`transport = "roce"
  pfc = true
  policy = { preset = "training-large", max_switch_hops = 2 }
  policy_files = [%q]`, rules)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(f, "analysis.bisection_ratio", "1"),
					resource.TestCheckResourceAttr(f, "analysis.max_switch_hops", "2"),
					resource.TestCheckResourceAttr(f, "analysis.violations.#", "0"),
				),
			},
		},
	})
}
