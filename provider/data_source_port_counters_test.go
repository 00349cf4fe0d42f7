package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccPortCounters sets counters in the simulator (ibsim's PerformanceSet) and reads them back
// with perfquery over SSH: for chosen ports by GUID and by LID, extended counters, and every
// cabled switch port of the fabric; a selector without a GUID or LID is refused.
func TestAccPortCounters(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	r := startSMRig(t)
	r.startOpenSM(t)
	for _, set := range []string{
		`PerformanceSet "leaf01"[2] PortCounters.SymbolErrorCounter=7`,
		`PerformanceSet "leaf01"[2] PortCounters.LinkDownedCounter=3`,
		`PerformanceSet "spine02"[9] PortCounters.PortXmitWait=12345`,
	} {
		if reply := r.sim.Console(t, set); !strings.Contains(reply, "has been set to") {
			t.Fatalf("%s: %q", set, reply)
		}
	}
	leaf01 := simSwitchGUID("leaf01")
	hca5LID := r.lid(t, simHCAGUID(5))
	config := func(body string) string {
		return r.providerHCL() + fmt.Sprintf(`
data "gpucluster_port_counters" "c" {
  host              = "127.0.0.1"
  port              = %d
  ssh_private_key   = file(%q)
  perfquery_command = "%s perfquery"
  %s
}
`, r.sshd.Port, r.keyFile, r.simrun, body)
	}
	const c = "data.gpucluster_port_counters.c"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: config(fmt.Sprintf(`ports = [
    { name = "leaf01/2", guid = %q, port = 2 },
    { lid = %d, port = 1 },
  ]`, leaf01, hca5LID)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(c, "counters.#", "2"),
					resource.TestCheckResourceAttr(c, "counters.0.name", "leaf01/2"),
					resource.TestCheckResourceAttr(c, "counters.0.guid", leaf01),
					resource.TestCheckResourceAttr(c, "counters.0.port", "2"),
					resource.TestCheckResourceAttr(c, "counters.0.values.SymbolErrorCounter", "7"),
					resource.TestCheckResourceAttr(c, "counters.0.values.LinkDownedCounter", "3"),
					resource.TestCheckResourceAttr(c, "counters.0.values.PortRcvErrors", "0"),
					resource.TestCheckNoResourceAttr(c, "counters.0.values.PortSelect"),
					resource.TestCheckResourceAttr(c, "counters.1.name", fmt.Sprintf("lid %d", hca5LID)),
					resource.TestCheckResourceAttr(c, "counters.1.lid", fmt.Sprint(hca5LID)),
					resource.TestCheckResourceAttr(c, "counters.1.values.SymbolErrorCounter", "0"),
					resource.TestCheckResourceAttr(c, "totals.SymbolErrorCounter", "7"),
				),
			},
			{
				Config: config(fmt.Sprintf(`extended = true
  ports = [{ guid = %q, port = 2 }]`, leaf01)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(c, "counters.#", "1"),
					resource.TestCheckResourceAttrSet(c, "counters.0.values.PortXmitData"),
					resource.TestCheckNoResourceAttr(c, "counters.0.values.SymbolErrorCounter"),
				),
			},
			{
				// Every cabled switch port: 4 leaves x 32 and 2 spines x 32.
				Config: config(fmt.Sprintf(`ibnetdiscover_command = "%s ibnetdiscover"`, r.simrun)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(c, "counters.#", "192"),
					resource.TestCheckTypeSetElemNestedAttrs(c, "counters.*", map[string]string{
						"name": "leaf01", "guid": leaf01, "port": "2", "values.SymbolErrorCounter": "7",
					}),
					resource.TestCheckTypeSetElemNestedAttrs(c, "counters.*", map[string]string{
						"name": "spine02", "port": "9", "values.PortXmitWait": "12345",
					}),
					resource.TestCheckResourceAttr(c, "totals.SymbolErrorCounter", "7"),
					resource.TestCheckResourceAttr(c, "totals.LinkDownedCounter", "3"),
					resource.TestCheckResourceAttr(c, "totals.PortXmitWait", "12345"),
				),
			},
			{
				Config:      config(fmt.Sprintf(`ports = [{ guid = %q, lid = 3 }]`, leaf01)),
				ExpectError: re("Port selector needs a GUID or a LID"),
			},
			{
				Config:      config(`ports = [{ guid = "0x0002c903deadbeef", port = 1 }]`),
				ExpectError: re("perfquery failed"),
			},
		},
	})
}
