package provider

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

const wavesDS = "data.gpucluster_maintenance_waves.spines"

func wavesConfig(body string) string {
	return `
provider "gpucluster" {}

data "gpucluster_topology" "pod" {
  kind           = "rail-optimized"
  scalable_units = 2
}
` + body
}

// The case through the real terraform: the 8 spines of a 2-SU SuperPOD with a degraded
// floor of 0.75 go in 4 waves of 2, each proving its ratio; a leaf that would cut off its nodes
// is refused by name where no endpoint may be cut off; a device the fabric lacks is refused on
// its list element.
func TestAccMaintenanceWaves(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: wavesConfig(`
data "gpucluster_maintenance_waves" "spines" {
  design   = data.gpucluster_topology.pod.design
  select   = { role = "spine" }
  degraded = { min_bisection_ratio = 0.75 }
}
`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(wavesDS, "waves.#", "4"),
					resource.TestCheckResourceAttr(wavesDS, "fewest", "true"),
					func(s *terraform.State) error {
						rs := s.RootModule().Resources[wavesDS].Primary.Attributes
						seen := map[string]bool{}
						for w := 0; w < 4; w++ {
							p := fmt.Sprintf("waves.%d.", w)
							if rs[p+"devices.#"] != "2" || rs[p+"drained_nodes.#"] != "0" {
								return fmt.Errorf("wave %d: %s devices, %s drained", w, rs[p+"devices.#"], rs[p+"drained_nodes.#"])
							}
							if r, _ := strconv.ParseFloat(rs[p+"degraded.bisection_ratio"], 64); r < 0.75 {
								return fmt.Errorf("wave %d proves only %v", w, r)
							}
							seen[rs[p+"devices.0"]], seen[rs[p+"devices.1"]] = true, true
						}
						if len(seen) != 8 {
							return fmt.Errorf("the waves take %d distinct spines down, want 8", len(seen))
						}
						return nil
					},
					resource.TestMatchResourceAttr(wavesDS, "summary", regexp.MustCompile(`(?m)^wave 4: spine\d+, spine\d+ down; drain none; proves`)),
				),
			},
			{
				Config: wavesConfig(`
data "gpucluster_maintenance_waves" "spines" {
  design   = data.gpucluster_topology.pod.design
  devices  = ["spine01", "leaf01"]
  degraded = { max_unreachable_endpoints = 0, min_bisection_ratio = 0.5 }
}
`),
				ExpectError: regexp.MustCompile(`(?s)No wave can hold leaf01.*cuts\s+off\s+32\s+endpoints\s+\(of\s+gpu001,.*and\s+24\s+more\).*max_unreachable_endpoints\s+allows\s+0`),
			},
			{
				Config: wavesConfig(`
data "gpucluster_maintenance_waves" "spines" {
  design  = data.gpucluster_topology.pod.design
  devices = ["spine01", "spine99"]
}
`),
				ExpectError: regexp.MustCompile(`(?s)"spine99" is neither a switch nor a node`),
			},
		},
	})
}
