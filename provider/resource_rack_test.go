package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

func TestAccRack(t *testing.T) {
	requireAcc(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: `resource "gpucluster_rack" "r" {
  name     = "r01"
  row      = 1
  position = 3
  power_kw = 40
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_rack.r", "id", "r01"),
					resource.TestCheckResourceAttr("gpucluster_rack.r", "units", "42"),
					resource.TestCheckResourceAttr("gpucluster_rack.r", "power_kw", "40"),
				),
			},
			{
				Config: `resource "gpucluster_rack" "r" {
  name     = "r01"
  row      = 2
  position = 3
  units    = 48
  power_kw = 40
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_rack.r", "row", "2"),
					resource.TestCheckResourceAttr("gpucluster_rack.r", "units", "48"),
				),
			},
			{
				ResourceName:      "gpucluster_rack.r",
				ImportState:       true,
				ImportStateId:     "r01,row=2,position=3,units=48,power_kw=40",
				ImportStateVerify: true,
			},
		},
	})
}

func TestAccRackInvalid(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ config, want string }{
		"name": {`resource "gpucluster_rack" "r" {
  name = "r 01"
  row = 1
  position = 1
}`, `"r 01" holds a space at position 2, which splits words in OpenSM's files and cable labels; use 1-63 letters, digits`},
		"units": {`resource "gpucluster_rack" "r" {
  name = "r01"
  row = 1
  position = 1
  units = 0
}`, `units 0 is out of range: a rack has 1-60 usable units`},
		"row": {`resource "gpucluster_rack" "r" {
  name = "r01"
  row = -1
  position = 1
}`, `row -1 is out of range: use 0-999`},
		"power": {`resource "gpucluster_rack" "r" {
  name = "r01"
  row = 1
  position = 1
  power_kw = -45
}`, `power_kw -45 is out of range: a rack's power budget is 0.1-1000 kW`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviders,
				Steps:                    []resource.TestStep{{Config: c.config, PlanOnly: true, ExpectError: re(c.want)}},
			})
		})
	}
}
