package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// TestAccPortCountersAbsent, issue 27 item 6 on ibsim with the real ibnetdiscover and perfquery:
// the simulated cluster's floor with an uplink and a node cable never plugged in (ibsim's Unlink
// on fresh ports: every counter 0), one more uplink listed in absent_cables and unplugged, and
// one cable that failed (Unlink, with the LinkDownedCounter the switch keeps). The three never
// cabled are `absent`, the failed one `down`, and suspect_cables lists the failed one alone.
func TestAccPortCountersAbsent(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	_, g := testrig.Generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2})
	// Labels as the design writes them, taken from the graph: a node cable of leaf02 and three
	// uplinks of leaf02.
	label := func(pick func(a, b *fabric.Device, pa int) bool) (string, string, int) {
		for _, l := range g.Links {
			a, b := &g.Devices[l.A], &g.Devices[l.B]
			if pick(a, b, l.PortA) {
				return g.Spec.Cables[l.Cable].Label(), a.Name, l.PortA
			}
			if pick(b, a, l.PortB) {
				return g.Spec.Cables[l.Cable].Label(), b.Name, l.PortB
			}
		}
		t.Fatal("no such link")
		return "", "", 0
	}
	uplink := func(port int) func(a, b *fabric.Device, pa int) bool {
		return func(a, b *fabric.Device, pa int) bool {
			return a.Name == "leaf02" && b.Kind == fabric.KindSwitch && pa == port
		}
	}
	node, nodeSw, nodePort := label(func(a, b *fabric.Device, pa int) bool {
		return a.Name == "leaf02" && b.Kind == fabric.KindHCA && pa == 30
	})
	never, neverSw, neverPort := label(uplink(60))
	listed, listedSw, listedPort := label(uplink(61))
	failed, failedSw, failedPort := label(uplink(62))

	r := startSMRigFor(t, g)
	// Never cabled: unplugged before the subnet manager's first sweep, so no packet ever crossed
	// them (a port counts only while its link is up). The failed one is unplugged after.
	for _, e := range []struct {
		sw   string
		port int
	}{{nodeSw, nodePort}, {neverSw, neverPort}, {listedSw, listedPort}} {
		r.sim.Console(t, fmt.Sprintf(`Unlink %q[%d]`, e.sw, e.port))
	}
	r.startOpenSM(t)
	r.sim.Console(t, fmt.Sprintf(`Unlink %q[%d]`, failedSw, failedPort))
	if reply := r.sim.Console(t, fmt.Sprintf(`PerformanceSet %q[%d] PortCounters.LinkDownedCounter=1`, failedSw, failedPort)); !strings.Contains(reply, "has been set to") {
		t.Fatalf("PerformanceSet: %q", reply)
	}
	const c = "data.gpucluster_port_counters.c"
	link := func(l, attr string) string { return "links." + l + "." + attr }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: r.providerHCL() + fmt.Sprintf(`
data "gpucluster_topology" "demo" {
  kind       = "fat-tree"
  node_count = 8
  tiers      = 2
  items      = []
}
data "gpucluster_port_counters" "c" {
  host                  = "127.0.0.1"
  port                  = %d
  ssh_private_key       = file(%q)
  perfquery_command     = "%s perfquery"
  ibnetdiscover_command = "%s ibnetdiscover"
  design                = data.gpucluster_topology.demo.design
  absent_cables         = [%q]
  sample_seconds        = 1
}
`, r.sshd.Port, r.keyFile, r.simrun, r.simrun, listed),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(c, "links.%", "128"), // the whole design, absent_cables included
				resource.TestCheckResourceAttr(c, link(node, "verdict"), "absent"),
				resource.TestCheckResourceAttr(c, link(never, "verdict"), "absent"),
				resource.TestMatchResourceAttr(c, link(never, "reason"), regexp.MustCompile(`^absent: the fabric does not show this cable and nothing says it was ever cabled; `)),
				resource.TestCheckResourceAttrSet(c, link(never, "where")),
				resource.TestCheckResourceAttr(c, link(listed, "verdict"), "absent"),
				resource.TestCheckResourceAttr(c, link(listed, "reason"), "absent: in absent_cables (not cabled yet), and the fabric does not show it"),
				resource.TestCheckResourceAttr(c, link(failed, "verdict"), "down"),
				resource.TestCheckResourceAttr(c, "suspect_cables.#", "1"),
				resource.TestCheckResourceAttr(c, "suspect_cables.0", failed),
			),
		}},
	})
}
