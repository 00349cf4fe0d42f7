package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// TestAccCableValidationSoak: first light's gate with a soak (issue 29 item 3). The floor is read
// live (ibnetdiscover over SSH) and cabled right; gpucluster_port_counters reads every port twice,
// sample_seconds apart, with the real perfquery, while one uplink's symbol errors climb between
// the two reads (ibsim's PerformanceSet). Its `links` handed to the validation as `counters` make
// that link `noisy` (above the BER limit) and the gate fail with one replace row; once the
// counter stops climbing, the same soak finds the link clean and the gate passes.
func TestAccCableValidationSoak(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	_, g := testrig.Generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2})
	r := startSMRigFor(t, g)
	r.startOpenSM(t)
	const label = "leaf01:40 <-> spine01:8"
	const v = "data.gpucluster_cable_validation.wave"
	climb := r.symbolErrorClimb(t)
	config := r.providerHCL() + fmt.Sprintf(`
data "gpucluster_topology" "demo" {
  kind       = "fat-tree"
  node_count = 8
  tiers      = 2
  items      = []
}
data "gpucluster_discovered_fabric" "floor" {
  host                  = "127.0.0.1:%d"
  ssh_private_key       = file(%q)
  ibnetdiscover_command = "%s ibnetdiscover"
  simulated             = true
}
data "gpucluster_port_counters" "soak" {
  host                  = "127.0.0.1"
  port                  = %d
  ssh_private_key       = file(%q)
  perfquery_command     = "%s perfquery"
  ibnetdiscover_command = "%s ibnetdiscover"
  design                = data.gpucluster_topology.demo.design
  sample_seconds        = 2
}
data "gpucluster_cable_validation" "wave" {
  design   = data.gpucluster_topology.demo.design
  floor    = data.gpucluster_discovered_fabric.floor.floor
  counters = data.gpucluster_port_counters.soak.links
}
`, r.sshd.Port, r.keyFile, r.simrun, r.sshd.Port, r.keyFile, r.simrun, r.simrun)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				PreConfig: climb.start,
				Config:    config,
				Check: resource.ComposeAggregateTestCheckFunc(
					climb.stop,
					resource.TestCheckResourceAttr("data.gpucluster_port_counters.soak", "links."+label+".verdict", "suspect"),
					resource.TestCheckResourceAttr(v, "passed", "false"),
					resource.TestCheckResourceAttr(v, "summary.expected", "128"),
					resource.TestCheckResourceAttr(v, "summary.ok", "127"),
					resource.TestCheckResourceAttr(v, "summary.noisy", "1"),
					resource.TestCheckResourceAttr(v, "punch_list.#", "1"),
					resource.TestCheckResourceAttr(v, "punch_list.0.action", "replace"),
					resource.TestCheckResourceAttr(v, "punch_list.0.label", label),
					resource.TestMatchResourceAttr(v, "punch_list.0.detail",
						regexp.MustCompile(`^counters say suspect: suspect: leaf01:40: \d+ symbol errors in [\d.]+ s \([\d.]+/s\), BER [\d.]+e-\d+ at 400 Gb/s, above 1e-14; replace the cable`)),
					resource.TestMatchResourceAttr(v, "report", regexp.MustCompile(`^first light failed: 127 of 128 link\(s\) ok;.* 1 noisy\n1\. replace `)),
				),
			},
			{
				// The counter holds still: the soak's two reads see no new error.
				Config: config,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("data.gpucluster_port_counters.soak", "links."+label+".verdict", "ok"),
					resource.TestCheckResourceAttr(v, "passed", "true"),
					resource.TestCheckResourceAttr(v, "summary.ok", "128"),
					resource.TestCheckResourceAttr(v, "punch_list.#", "0"),
				),
			},
		},
	})
}
