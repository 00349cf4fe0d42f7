package provider

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

func TestAccSwitch(t *testing.T) {
	requireAcc(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: `resource "gpucluster_switch" "s" {
  name       = "leaf01"
  rack       = "r03"
  position_u = 20
  guid       = "0x0002c903000a0001"
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_switch.s", "id", "leaf01"),
					resource.TestCheckResourceAttr("gpucluster_switch.s", "model", "QM9700"),
					resource.TestCheckResourceAttr("gpucluster_switch.s", "ports", "64"),
					resource.TestCheckNoResourceAttr("gpucluster_switch.s", "role"),
					resource.TestCheckNoResourceAttr("gpucluster_switch.s", "group"),
				),
			},
			{
				Config: `resource "gpucluster_switch" "s" {
  name       = "leaf01"
  model      = "QM9790"
  rack       = "r03"
  position_u = 21
  role       = "leaf"
  guid       = "0x0002C903000A0001"
  group      = "g1"
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_switch.s", "model", "QM9790"),
					resource.TestCheckResourceAttr("gpucluster_switch.s", "position_u", "21"),
					resource.TestCheckResourceAttr("gpucluster_switch.s", "role", "leaf"),
					resource.TestCheckResourceAttr("gpucluster_switch.s", "group", "g1"),
					resource.TestCheckResourceAttr("gpucluster_switch.s", "ports", "64"),
				),
			},
			{
				ResourceName:      "gpucluster_switch.s",
				ImportState:       true,
				ImportStateId:     "leaf01,model=QM9790,rack=r03,position_u=21,role=leaf,guid=0x0002C903000A0001,group=g1",
				ImportStateVerify: true,
			},
		},
	})
}

// TestAccSwitchCatalogFile checks that the model check and `ports` use the provider's catalog,
// catalog_files included, and not only the built-in one.
func TestAccSwitchCatalogFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "lab.hcl")
	if err := os.WriteFile(file, []byte(`switch_model "QM8700" {
  ports          = 40
  port_rate_gbps = 200
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: `provider "gpucluster" {
  catalog_files = ["` + filepath.ToSlash(file) + `"]
}
resource "gpucluster_switch" "s" {
  name       = "lab-leaf01"
  model      = "QM8700"
  rack       = "lab"
  position_u = 1
  guid       = "0x0002c903000c0001"
}`,
			Check: resource.TestCheckResourceAttr("gpucluster_switch.s", "ports", "40"),
		}},
	})
}

func TestAccSwitchInvalid(t *testing.T) {
	t.Parallel()
	sw := func(attrs string) string {
		return `resource "gpucluster_switch" "s" {
` + attrs + `
}`
	}
	const ok = `  name = "leaf01"
  rack = "r03"
  position_u = 20
  guid = "0x0002c903000a0001"
`
	steps := []struct{ config, want string }{
		{sw(`  name = "leaf 01"
  rack = "r03"
  position_u = 20
  guid = "0x0002c903000a0001"`), `"leaf 01" holds a space at position 5, which splits words in OpenSM's files and cable labels; use 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit`},
		{sw(ok + `  model = "QM8700"`), `unknown switch model "QM8700"; the catalog has ` + builtinSwitches()},
		{sw(`  name = "leaf01"
  rack = "r03"
  position_u = 0
  guid = "0x0002c903000a0001"`), `position_u 0 is out of range: rack units count from 1 (the bottom) to at most 60`},
		{sw(`  name = "leaf01"
  rack = "r03"
  position_u = 61
  guid = "0x0002c903000a0001"`), `position_u 61 is out of range`},
		{sw(`  name = "leaf01"
  rack = "r 03"
  position_u = 20
  guid = "0x0002c903000a0001"`), `"r 03" holds a space at position 2`},
		{sw(ok + `  role = "aggregation"`), `role "aggregation" is not a switch role: use "leaf", "spine" or "core", or leave it unset to have the fabric infer it`},
		{sw(`  name = "leaf01"
  rack = "r03"
  guid = "0x0002c903000a0001"`), `Attribute "position_u" must be specified when "rack" is specified`},
		{sw(`  name = "leaf01"
  rack = "r03"
  position_u = 20
  guid = "0x2c903000a0001"`), `GUID "0x2c903000a0001" has 13 hex digits, not 16; write 0x and 16 hex digits`},
		{sw(ok + `  group = "group one"`), `"group one" holds a space at position 6`},
	}
	var ts []resource.TestStep
	for _, s := range steps {
		ts = append(ts, resource.TestStep{Config: s.config, PlanOnly: true, ExpectError: re(s.want)})
	}
	resource.UnitTest(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: ts})
}
