package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
)

func TestAccHCA(t *testing.T) {
	requireAcc(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				// The default name is known at plan time, so a cable can use it in the same plan.
				Config: `resource "gpucluster_hca" "h" {
  node      = "gpu001"
  device    = "mlx5_0"
  port_guid = "0x0002c90300010000"
}
resource "gpucluster_cable" "c" {
  a = { device = "leaf01", port = 1 }
  b = { device = gpucluster_hca.h.name, port = 1 }
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_hca.h", "id", "gpu001/mlx5_0"),
					resource.TestCheckResourceAttr("gpucluster_hca.h", "name", "gpu001/mlx5_0"),
					resource.TestCheckResourceAttr("gpucluster_hca.h", "model", "ConnectX-7-OSFP"),
					resource.TestCheckNoResourceAttr("gpucluster_hca.h", "rail"),
					resource.TestCheckNoResourceAttr("gpucluster_hca.h", "mst_device"),
					resource.TestCheckResourceAttr("gpucluster_cable.c", "label", "leaf01:1 <-> gpu001/mlx5_0:1"),
				),
			},
			{
				Config: `resource "gpucluster_hca" "h" {
  node       = "gpu001"
  device     = "mlx5_0"
  model      = "ConnectX-7-QSFP112"
  port_guid  = "0x0002c90300010001"
  rail       = 0
  mst_device = "/dev/mst/mt4129_pciconf0"
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_hca.h", "model", "ConnectX-7-QSFP112"),
					resource.TestCheckResourceAttr("gpucluster_hca.h", "port_guid", "0x0002c90300010001"),
					resource.TestCheckResourceAttr("gpucluster_hca.h", "rail", "0"),
					resource.TestCheckResourceAttr("gpucluster_hca.h", "mst_device", "/dev/mst/mt4129_pciconf0"),
					resource.TestCheckResourceAttr("gpucluster_hca.h", "name", "gpu001/mlx5_0"),
				),
			},
			{
				ResourceName:      "gpucluster_hca.h",
				ImportState:       true,
				ImportStateId:     "gpu001/mlx5_0,model=ConnectX-7-QSFP112,port_guid=0x0002c90300010001,rail=0,mst_device=/dev/mst/mt4129_pciconf0",
				ImportStateVerify: true,
			},
			{
				// A name of its own replaces the HCA: the name is its identity in the fabric.
				Config: `resource "gpucluster_hca" "h" {
  name      = "gpu001/ib0"
  node      = "gpu001"
  device    = "mlx5_0"
  port_guid = "0x0002c90300010001"
  rail      = 0
}`,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpucluster_hca.h", plancheck.ResourceActionReplace),
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_hca.h", "id", "gpu001/ib0"),
					resource.TestCheckResourceAttr("gpucluster_hca.h", "name", "gpu001/ib0"),
				),
			},
			{
				ResourceName:      "gpucluster_hca.h",
				ImportState:       true,
				ImportStateId:     "gpu001/ib0,node=gpu001,device=mlx5_0,port_guid=0x0002c90300010001,rail=0",
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccHCAInvalid(t *testing.T) {
	t.Parallel()
	hca := func(body string) string {
		return `resource "gpucluster_hca" "h" {
` + body + `
}`
	}
	const base = `  node      = "gpu001"
  device    = "mlx5_0"
  port_guid = "0x0002c90300010000"
`
	steps := []struct{ config, want string }{
		{hca(base + `  model = "ConnectX-6"`), `unknown HCA model "ConnectX-6"; the catalog has ` + builtinHCAs()},
		{hca(`  node      = "gpu001"
  device    = "mlx5_0"
  port_guid = "0x0002c9030001000g"`), `GUID "0x0002c9030001000g" holds "g", which is not a hex digit; write 0x and 16 hex digits`},
		{hca(`  node      = "gpu001"
  device    = "mlx5/0"
  port_guid = "0x0002c90300010000"`), `"mlx5/0" holds '/' at position 5, which separates node and device in an HCA name`},
		{hca(`  node      = "gpu 001"
  device    = "mlx5_0"
  port_guid = "0x0002c90300010000"`), `"gpu 001" holds a space at position 4`},
		{hca(base + `  name = "gpu001-mlx5_0"`), `"gpu001-mlx5_0" has no '/': an HCA is named "<node>/<device>"`},
		{hca(base + `  rail = -1`), `rail -1 is out of range: rails are 0-63`},
		{hca(base + `  mst_device = "/dev/mst/mt4129 pciconf0"`), `Attribute mst_device must be one word`},
	}
	var ts []resource.TestStep
	for _, s := range steps {
		ts = append(ts, resource.TestStep{Config: s.config, PlanOnly: true, ExpectError: re(s.want)})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: ts})
}
