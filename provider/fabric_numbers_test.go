package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// TestAccFabricNumbers: the wrong numbers of issue 10 item 4, planned with the real terraform.
// A torus is 1 tier with an empty oversubscription map and a null max_oversubscription; a
// workload larger than the fabric fails on workload.gpus with the fabric's GPU count; GPUs that
// share HCAs count as GPUs for RoCEv2's limit; an empty fabric fails and says what is missing.
func TestAccFabricNumbers(t *testing.T) {
	t.Parallel()
	const f = "gpucluster_fabric.f"
	analysisAt := func(k string) tfjsonpath.Path { return tfjsonpath.New("analysis").AtMapKey(k) }
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: `
data "gpucluster_topology" "t" {
  kind       = "torus-3d"
  torus_dims = [3, 3, 3]
  node_count = 20
}

resource "gpucluster_fabric" "f" {
  name   = "torus"
  design = data.gpucluster_topology.t.design
  policy = { preset = "inference" }
}
`,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(f, analysisAt("tiers"), knownvalue.Int64Exact(1)),
					plancheck.ExpectKnownValue(f, analysisAt("oversubscription"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					plancheck.ExpectKnownValue(f, analysisAt("max_oversubscription"), knownvalue.Null()),
				}},
			},
			{
				Config:      policyFabric(8, `workload = { parameters = 70e9, gpus = 64 }`),
				PlanOnly:    true,
				ExpectError: re("64 GPUs asked, but the fabric has 16 (2 nodes with a cabled HCA); set workload.gpus to at most 16"),
			},
			{
				// 9 HGX H100 with 4 compute HCAs each: 36 endpoints but 72 GPUs, beyond RoCEv2's 64.
				Config: `
locals {
  nodes    = [for i in range(9) : format("hgx%02d", i + 1)]
  hca_list = flatten([for n in local.nodes : [for r in range(4) : { node = n, device = "mlx5_${r}" }]])
}

resource "gpucluster_fabric" "f" {
  name      = "roce"
  transport = "roce"
  pfc       = true
  switches  = { leaf01 = {} }
  nodes     = { for n in local.nodes : n => { model = "HGX-H100", compute_hcas = 4 } }
  hcas      = { for h in local.hca_list : "${h.node}/${h.device}" => h }
  cables = { for i, h in local.hca_list : "leaf01:${i + 1}" => {
    a = { device = "leaf01", port = i + 1 }
    b = { device = "${h.node}/${h.device}", port = 1 }
  } }
}
`,
				PlanOnly:    true,
				ExpectError: re("transport roce (RoCEv2) is allowed only up to 64 GPUs, but this fabric has 72 GPUs"),
			},
			{
				Config: `
resource "gpucluster_fabric" "f" {
  name     = "empty"
  switches = { leaf01 = {} }
}
`,
				PlanOnly:    true,
				ExpectError: re("the fabric has no endpoints"),
			},
		},
	})
}
