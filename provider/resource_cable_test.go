package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

func TestAccCable(t *testing.T) {
	requireAcc(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				// No kind or length: the fabric estimates and chooses, so there is no SKU yet.
				Config: `resource "gpucluster_cable" "c" {
  a = { device = "leaf01", port = 33 }
  b = { device = "gpu001/mlx5_0", port = 1 }
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_cable.c", "id", "leaf01:33 <-> gpu001/mlx5_0:1"),
					resource.TestCheckResourceAttr("gpucluster_cable.c", "label", "leaf01:33 <-> gpu001/mlx5_0:1"),
					resource.TestCheckNoResourceAttr("gpucluster_cable.c", "kind"),
					resource.TestCheckNoResourceAttr("gpucluster_cable.c", "length_m"),
					resource.TestCheckNoResourceAttr("gpucluster_cable.c", "sku"),
				),
			},
			{
				ResourceName:      "gpucluster_cable.c",
				ImportState:       true,
				ImportStateId:     "leaf01:33 <-> gpu001/mlx5_0:1",
				ImportStateVerify: true,
			},
			{
				// Kind and length given: the SKU is the shortest standard length that covers the run.
				Config: `resource "gpucluster_cable" "c" {
  a        = { device = "leaf01", port = 33 }
  b        = { device = "gpu001/mlx5_0", port = 1 }
  kind     = "fiber-mm"
  length_m = 4.2
}`,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpucluster_cable.c", plancheck.ResourceActionUpdate),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_cable.c", "kind", "fiber-mm"),
					resource.TestCheckResourceAttr("gpucluster_cable.c", "length_m", "4.2"),
					resource.TestCheckResourceAttr("gpucluster_cable.c", "sku", "MFP7E10-N005"),
				),
			},
			{
				ResourceName:      "gpucluster_cable.c",
				ImportState:       true,
				ImportStateId:     "leaf01:33 <-> gpu001/mlx5_0:1,kind=fiber-mm,length_m=4.2",
				ImportStateVerify: true,
			},
			{
				// Another far end is another cable; between two switches a DAC is the
				// switch-to-switch part, with LinkX's "A" for the half metre.
				Config: `resource "gpucluster_cable" "c" {
  a        = { device = "leaf01", port = 33 }
  b        = { device = "spine01", port = 1 }
  kind     = "dac"
  length_m = 1.5
}`,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpucluster_cable.c", plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_cable.c", "label", "leaf01:33 <-> spine01:1"),
					resource.TestCheckResourceAttr("gpucluster_cable.c", "sku", "MCP4Y10-N01A"),
				),
			},
			{
				ResourceName:      "gpucluster_cable.c",
				ImportState:       true,
				ImportStateId:     "leaf01:33<->spine01:1,kind=dac,length_m=1.5",
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccCableInvalid(t *testing.T) {
	t.Parallel()
	cable := func(a, b, extra string) string {
		return `resource "gpucluster_cable" "c" {
  a = ` + a + `
  b = ` + b + `
` + extra + `
}`
	}
	const leaf, hca = `{ device = "leaf01", port = 33 }`, `{ device = "gpu001/mlx5_0", port = 1 }`
	steps := []struct{ config, want string }{
		{cable(leaf, `{ device = "leaf01", port = 33 }`, ""),
			`both ends are leaf01 port 33; a cable joins two different ports of two different devices`},
		{cable(leaf, `{ device = "leaf01", port = 34 }`, ""),
			`both ends are on leaf01 (ports 33 and 34): a cable from a device back to itself is a loopback that joins nothing; cable b to another switch or to an HCA`},
		{cable(`{ device = "leaf01", port = 0 }`, hca, ""), `port 0 does not exist: ports count from 1`},
		{cable(`{ device = "leaf01", port = 65 }`, hca, ""),
			`port 65 exists on no switch model in the catalog: the largest, QM9700, has ports 1-64; the fabric checks each end against its device's exact model`},
		{cable(leaf, `{ device = "gpu001/mlx5_0", port = 99 }`, ""), `port 99 exists on no switch model in the catalog`},
		{cable(`{ device = "leaf01:33", port = 33 }`, hca, ""), `Attribute a.device must name a switch ("leaf01") or an HCA ("gpu001/mlx5_0")`},
		{cable(leaf, `{ device = "gpu001/mlx5_0/1", port = 1 }`, ""), `Attribute b.device must name a switch`},
		{cable(leaf, hca, `  kind = "copper"`),
			`no cable of kind "copper": use one of dac, acc, aoc, fiber-mm, fiber-sm, or leave kind unset to let the planner choose`},
		{cable(leaf, hca, `  length_m = 0`),
			`length_m 0 is not a cable length: give the run in metres, at least 0.1 (the shortest DAC is 0.5 m), or leave it unset to have the fabric estimate it from the racks`},
		{cable(leaf, hca, `  kind = "dac"
  length_m = 10`),
			`leaf01:33 <-> gpu001/mlx5_0:1: no "dac" cable reaches 10 m between a switch and an HCA (the longest reaches 3 m); use kind = "fiber-mm", which does, or leave kind unset to let the fabric choose`},
		{cable(leaf, hca, `  kind = "fiber-mm"
  length_m = 900`),
			`no "fiber-mm" cable reaches 900 m between a switch and an HCA (the longest reaches 50 m), and no other kind in the catalog does either; shorten the run`},
	}
	var ts []resource.TestStep
	for _, s := range steps {
		ts = append(ts, resource.TestStep{Config: s.config, PlanOnly: true, ExpectError: re(s.want)})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: ts})
}
