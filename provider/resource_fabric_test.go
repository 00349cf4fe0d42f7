package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

// cluster512 is the 512-GPU two-tier fabric of the fabric issue: 64 DGX-H100, 16 leaves with 32
// node links each, 8 spines, every leaf with `up` uplinks spread evenly over the spines (4 links
// to each spine when up = 32). The lists are plain objects, as the generator produces them.
func cluster512(up int, preset string, extra string) string {
	return fmt.Sprintf(`
locals {
  up     = %d
  leaves = [for l in range(16) : format("leaf%%02d", l + 1)]
  spines = [for s in range(8) : format("spine%%02d", s + 1)]
  nodes  = [for n in range(64) : format("gpu%%03d", n + 1)]
  hcas = flatten([for n, node in local.nodes : [for r in range(8) : {
    name = "${node}/mlx5_${r}", node = node, device = "mlx5_${r}", rail = r
    port_guid = format("0x%%016x", 720896 + n * 8 + r)
  }]])
  node_cables = [for i, h in local.hcas : {
    a = { device = local.leaves[floor(i / 32)], port = i %% 32 + 1 }
    b = { device = h.name, port = 1 }
  }]
  spine_cables = flatten([for l, leaf in local.leaves : [for u in range(local.up) : {
    a = { device = leaf, port = 33 + u }
    b = { device = local.spines[u %% 8], port = l * 4 + floor(u / 8) + 1 }
  }]])
}

resource "gpucluster_fabric" "f" {
  name     = "compute"
  switches = { for s in concat(local.leaves, local.spines) : s => {} } # named by their keys
  nodes    = { for n in local.nodes : n => {} }
  hcas     = { for h in local.hcas : h.name => h }
  cables   = { for c in concat(local.node_cables, local.spine_cables) : "${c.a.device}:${c.a.port}" => c }
  policy   = { preset = %q }
  %s
}
`, up, preset, extra)
}

func TestAccFabric512(t *testing.T) {
	requireAcc(t)
	const f = "gpucluster_fabric.f"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: cluster512(32, "training-large", `workload = { parameters = 70e9, gradient_bytes_per_param = 1 }`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(f, "analysis.endpoints", "512"),
					resource.TestCheckResourceAttr(f, "analysis.switches", "24"),
					resource.TestCheckResourceAttr(f, "analysis.links", "1024"),
					resource.TestCheckResourceAttr(f, "analysis.tiers", "2"),
					resource.TestCheckResourceAttr(f, "analysis.full_bisection_gbps", "102400"),
					resource.TestCheckResourceAttr(f, "analysis.bisection_lower_gbps", "102400"),
					resource.TestCheckResourceAttr(f, "analysis.bisection_upper_gbps", "102400"),
					resource.TestCheckResourceAttr(f, "analysis.bisection_ratio", "1"),
					resource.TestCheckResourceAttr(f, "analysis.oversubscription.leaf", "1"),
					resource.TestCheckResourceAttr(f, "analysis.max_oversubscription", "1"),
					resource.TestCheckResourceAttr(f, "analysis.max_switch_hops", "2"),
					resource.TestCheckResourceAttrSet(f, "analysis.allreduce_seconds.ring"),
					resource.TestCheckResourceAttrSet(f, "analysis.allreduce_seconds.hierarchical"),
					// 24 QM9700 at the sourced $85,000 are the only priced items: the DGX, optics
					// and fiber have no public price and stay unpriced.
					resource.TestCheckResourceAttr(f, "bom.items.920-9B210-00FN-0M0.quantity", "24"),
					resource.TestCheckResourceAttr(f, "bom.items.920-9B210-00FN-0M0.cost", "2040000"),
					resource.TestCheckResourceAttr(f, "bom.total_cost", "2040000"),
					resource.TestCheckResourceAttr(f, "bom.items.DGXH-G640F+P2EDI36.quantity", "64"),
					resource.TestCheckResourceAttr(f, "bom.items.MFP7E10-N.quantity", "1024"),
				),
			},
			{
				// A quarter of every leaf's uplinks cut: 32 down, 24 up.
				Config:      cluster512(24, "training-large", ""),
				PlanOnly:    true,
				ExpectError: re("tier leaf is 1.33:1"),
			},
			{
				Config:      cluster512(24, "training-large", ""),
				PlanOnly:    true,
				ExpectError: re("leaf01"),
			},
			{
				Config: cluster512(24, "inference", ""),
				// The diff of bom, keyed by SKU, is the purchase order: exactly the two SKUs freed.
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					expectBOMOrder{addr: f, want: map[string]int{"980-9I510-00NS00": -64, "MFP7E10-N": -128}},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(f, "analysis.bisection_lower_gbps", "76800"),
					resource.TestCheckResourceAttr(f, "analysis.bisection_upper_gbps", "76800"),
					resource.TestCheckResourceAttr(f, "analysis.bisection_ratio", "0.75"),
					// 128 uplinks removed: 128 fibers and the 64 leaf cages (ports 57-64) they used
					// are freed; every spine cage keeps one port (l*4+3) and its module.
					resource.TestCheckResourceAttr(f, "bom.items.MFP7E10-N.quantity", "896"),
					resource.TestCheckResourceAttr(f, "bom.total_cost", "2040000"),
				),
			},
		},
	})
}

// TestAccFabricStructure fails the plan on wiring no single resource can see, on the attribute
// path of the offending element, and passes once it is fixed.
func TestAccFabricStructure(t *testing.T) {
	t.Parallel()
	base := func(cables string) string {
		return `
resource "gpucluster_fabric" "f" {
  name     = "tiny"
  racks    = { r1 = { row = 1, position = 1, power_kw = 12 } }
  switches = { leaf01 = { rack = "r1", position_u = 40 } }
  nodes    = { gpu001 = { rack = "r1", position_u = 2 } }
  hcas     = { for d in ["mlx5_0", "mlx5_1"] : "gpu001/${d}" => { node = "gpu001", device = d } }
  cables   = { for i, c in ` + cables + ` : "c${i}" => c }
}`
	}
	ok := `[{ a = { device = "leaf01", port = 1 }, b = { device = "gpu001/mlx5_0", port = 1 } },
              { a = { device = "leaf01", port = 2 }, b = { device = "gpu001/mlx5_1", port = 1 } }]`
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: base(`[{ a = { device = "leaf01", port = 1 }, b = { device = "gpu001/mlx5_0", port = 1 } },
              { a = { device = "leaf01", port = 1 }, b = { device = "gpu001/mlx5_1", port = 1 } }]`),
				PlanOnly:    true,
				ExpectError: re(`leaf01 port 1 is already used by cables["c0"]`),
			},
			{
				Config:      base(`[{ a = { device = "leaf01", port = 65 }, b = { device = "gpu001/mlx5_0", port = 1 } }]`),
				PlanOnly:    true,
				ExpectError: re("a QM9700 has ports 1-64"),
			},
			{
				Config:      base(`[{ a = { device = "leaf01", port = 1 }, b = { device = "gpu002/mlx5_0", port = 1 } }]`),
				PlanOnly:    true,
				ExpectError: re(`"gpu002/mlx5_0", which is neither a switch nor an HCA`),
			},
			{
				Config: base(`[{ a = { device = "leaf01", port = 1 }, b = { device = "gpu001/mlx5_0", port = 1 }, kind = "fiber-mm", length_m = 70 },
              { a = { device = "leaf01", port = 2 }, b = { device = "gpu001/mlx5_1", port = 1 } }]`),
				PlanOnly:    true,
				ExpectError: re("needs 70.0 m (declared) but fiber-mm reaches at most 50 m"),
			},
			{
				Config:      base(`[{ a = { device = "leaf01" }, b = { device = "gpu001/mlx5_0", port = 1 } }]`),
				PlanOnly:    true,
				ExpectError: re("port is required for every cable end"),
			},
			{
				Config: base(ok),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_fabric.f", "analysis.endpoints", "2"),
					resource.TestCheckResourceAttr("gpucluster_fabric.f", "analysis.tiers", "1"),
				),
			},
		},
	})
}
