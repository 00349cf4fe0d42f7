package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
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
  sample_seconds    = 0
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
				// Both ends of every cable ibnetdiscover finds: 4 leaves x 32 and 2 spines x 32 switch
				// ports, and the 64 HCA ports; the links joined from descriptions.
				Config: config(fmt.Sprintf(`ibnetdiscover_command = "%s ibnetdiscover"`, r.simrun)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(c, "counters.#", "256"),
					resource.TestCheckResourceAttr(c, "links.%", "128"),
					// One read and no previous: no rate, so no verdict (issue 32: no data is not "ok").
					resource.TestCheckResourceAttr(c, "links.leaf01:17 <-> spine01:1.verdict", "unread"),
					resource.TestCheckResourceAttr(c, "links.leaf01:17 <-> spine01:1.reason", "unread: leaf01:17 read once (no rate: set sample_seconds or previous); spine01:1 read once (no rate: set sample_seconds or previous)"),
					resource.TestCheckResourceAttr(c, "unread_cables.#", "128"),
					resource.TestCheckResourceAttr(c, "suspect_cables.#", "0"),
					resource.TestCheckResourceAttr(c, "links.leaf01:17 <-> spine01:1.rate_gbps", "200"),
					resource.TestCheckNoResourceAttr(c, "links.leaf01:17 <-> spine01:1.where"),
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

// TestAccPortCountersLinks reads the simulated cluster's fabric (a generated 8-node design on
// ibsim, OpenSM running) through the fabric's own inputs, and follows one cable through a day 2:
// symbol errors climbing between the two reads (ibsim's PerformanceSet), the cable judged suspect
// with its BER and the technician's line (rack, unit, cage and split at both ends, the part, the
// link on the same twin-port cable); then, from a previous snapshot, a single read that still
// gives the rate; unplugged (ibsim's Unlink), down with its evidence kept; replaced (ReLink,
// counters cleared with perfquery -R), ok and off the suspect list.
func TestAccPortCountersLinks(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	_, g := testrig.Generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2})
	r := startSMRigFor(t, g)
	r.startOpenSM(t)
	const label = "leaf01:40 <-> spine01:8"
	const c = "data.gpucluster_port_counters.c"
	snapFile := filepath.Join(t.TempDir(), "snapshot.json")
	hostFile := filepath.Join(t.TempDir(), "port-counters.json") // on the SM "host" (loopback)
	set := func(cmd string) {
		if reply := r.sim.Console(t, cmd); !strings.Contains(reply, "has been set to") {
			t.Fatalf("%s: %q", cmd, reply)
		}
	}
	// Climbing: +50 every 100 ms while the first step reads.
	climb := r.symbolErrorClimb(t)
	config := func(body string) string {
		return r.providerHCL() + fmt.Sprintf(`
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
  %s
}
`, r.sshd.Port, r.keyFile, r.simrun, r.simrun, body)
	}
	keep := resource.TestCheckResourceAttrWith(c, "snapshot", func(v string) error { return os.WriteFile(snapFile, []byte(v), 0o600) })
	link := func(attr string) string { return "links." + label + "." + attr }
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				PreConfig: climb.start,
				Config:    config(`sample_seconds = 2`),
				Check: resource.ComposeAggregateTestCheckFunc(
					climb.stop,
					resource.TestCheckResourceAttr(c, "links.%", "128"),
					resource.TestCheckResourceAttr(c, link("verdict"), "suspect"),
					resource.TestMatchResourceAttr(c, link("reason"), regexp.MustCompile(`^suspect: leaf01:40: \d+ symbol errors in [\d.]+ s \([\d.]+/s\), BER [\d.]+e-\d+ at 400 Gb/s, above 1e-14$`)),
					resource.TestCheckResourceAttr(c, link("up"), "true"),
					resource.TestCheckResourceAttr(c, link("rate_gbps"), "400"),
					resource.TestCheckResourceAttr(c, link("a.port"), "leaf01:40"),
					resource.TestCheckResourceAttr(c, link("b.port"), "spine01:8"),
					resource.TestCheckResourceAttr(c, link("b.rates.SymbolErrorCounter"), "0"),
					resource.TestCheckResourceAttrWith(c, link("a.rates.SymbolErrorCounter"), positive),
					resource.TestCheckResourceAttr(c, link("where"),
						"leaf01:40 <-> spine01:8: rack06 U42 leaf01 cage 20 split 2 (port 40) <-> rack01 U42 spine01 cage 4 split 2 (port 8); "+
							"acc 4 m cable MCA4J80-N004; replacing it also takes down leaf01:39 <-> spine01:7 (same twin-port cable MCA4J80-N004)"),
					resource.TestCheckResourceAttr(c, link("shares_with.#"), "1"),
					resource.TestCheckResourceAttr(c, link("shares_with.0"), "leaf01:39 <-> spine01:7"),
					resource.TestCheckResourceAttr(c, "suspect_cables.#", "1"),
					resource.TestCheckResourceAttr(c, "suspect_cables.0", label),
					resource.TestCheckResourceAttr(c, "links.gpu001/mlx5_0:1 <-> leaf01:1.verdict", "ok"),
					resource.TestMatchResourceAttr(c, "links.gpu001/mlx5_0:1 <-> leaf01:1.reason", regexp.MustCompile(`^ok: gpu001/mlx5_0:1 no symbol error in [\d.]+ s; leaf01:1 no symbol error in [\d.]+ s$`)),
					resource.TestCheckResourceAttrWith(c, link("window_seconds"), func(v string) error {
						// The window is measured from read to read: the 2 s between them and the first read's own time.
						if f, err := strconv.ParseFloat(v, 64); err != nil || f < 2 {
							return fmt.Errorf("window %q under sample_seconds", v)
						}
						return nil
					}),
					resource.TestCheckResourceAttr(c, "links.gpu001/mlx5_0:1 <-> leaf01:1.a.answered", "true"),
					resource.TestCheckNoResourceAttr(c, "links.gpu001/mlx5_0:1 <-> leaf01:1.where"),
					keep,
				),
			},
			{
				// One read, rates from the snapshot of the last: +1,400 since.
				PreConfig: func() { set(`PerformanceSet "leaf01"[40] PortCounters.SymbolErrorCounter=3000`) },
				Config: config(fmt.Sprintf(`sample_seconds = 0
  previous       = file(%q)`, snapFile)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(c, link("verdict"), "suspect"),
					resource.TestCheckResourceAttrWith(c, link("reason"), func(v string) error {
						if !strings.HasPrefix(v, "suspect: leaf01:40: ") || !strings.Contains(v, " symbol errors in ") {
							return fmt.Errorf("reason %q", v)
						}
						return nil
					}),
					resource.TestCheckResourceAttr(c, "links.gpu001/mlx5_0:1 <-> leaf01:1.verdict", "ok"),
					keep,
				),
			},
			{
				// Unplugged: the switch ends still answer; the leaf counted the link going down.
				PreConfig: func() {
					r.sim.Console(t, `Unlink "leaf01"[40]`)
					set(`PerformanceSet "leaf01"[40] PortCounters.LinkDownedCounter=1`)
				},
				Config: config(fmt.Sprintf(`sample_seconds = 0
  previous       = file(%q)`, snapFile)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(c, link("verdict"), "down"),
					resource.TestCheckResourceAttr(c, link("up"), "false"),
					resource.TestCheckResourceAttr(c, link("a.answered"), "true"),
					resource.TestCheckResourceAttr(c, link("a.counters.LinkDownedCounter"), "1"),
					resource.TestMatchResourceAttr(c, link("reason"), regexp.MustCompile(
						`^down: the fabric does not show this cable; leaf01:40 LinkDownedCounter 1 \(\+1 since [0-9T:Z-]+\), SymbolErrorCounter 3000; `+
							`spine01:8 LinkDownedCounter 0 \(\+0 since [0-9T:Z-]+\), SymbolErrorCounter 0; last read up at [0-9T:Z-]+: leaf01:40 [\d.]+ symbol errors/s; spine01:8 0 symbol errors/s \(BER [\d.e-]+\), judged suspect$`)),
					resource.TestCheckResourceAttr(c, "suspect_cables.#", "1"),
					resource.TestCheckResourceAttr(c, "suspect_cables.0", label),
					resource.TestCheckResourceAttrSet(c, link("where")),
					keep,
				),
			},
			{
				// Replaced: link up, counters cleared.
				PreConfig: func() {
					r.sim.Console(t, `ReLink "leaf01"[40]`)
					if res, err := r.sim.Run(t, simSMHost, 20*time.Second, "perfquery", "-R", strconv.Itoa(r.lid(t, "0x0002c90000100001")), "40"); err != nil {
						t.Fatalf("perfquery -R: %v %s", err, res.Stderr)
					}
				},
				Config: config(fmt.Sprintf(`sample_seconds = 1
  previous       = file(%q)`, snapFile)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(c, link("verdict"), "ok"),
					resource.TestCheckResourceAttr(c, link("up"), "true"),
					resource.TestCheckResourceAttr(c, link("a.counters.SymbolErrorCounter"), "0"),
					resource.TestCheckResourceAttr(c, "suspect_cables.#", "0"),
				),
			},
			{
				// snapshot_file keeps each read on the host: written with this read's snapshot...
				Config: config(fmt.Sprintf(`sample_seconds = 0
  snapshot_file  = %q`, hostFile)),
				Check: resource.TestCheckResourceAttrWith(c, "snapshot", func(v string) error {
					b, err := os.ReadFile(hostFile)
					if err != nil || strings.TrimSpace(string(b)) != v {
						return fmt.Errorf("the snapshot file does not hold this read's snapshot: %v", err)
					}
					return nil
				}),
			},
			{
				// ...and read back as previous: a single read has rates.
				Config: config(fmt.Sprintf(`sample_seconds = 0
  snapshot_file  = %q`, hostFile)),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrWith(c, link("window_seconds"), positive),
					resource.TestCheckResourceAttr(c, link("a.rates.SymbolErrorCounter"), "0"),
				),
			},
			{
				Config:      config(`ports = [{ lid = 1 }]`),
				ExpectError: re("ports with a declared fabric"),
			},
			{
				Config:      config(`previous = "{"`),
				ExpectError: re("Not a snapshot"),
			},
			{
				// A snapshot from a host with no clock: refused, not a 56-year window that hides
				// every error.
				Config:      config(`previous = jsonencode({ version = 1, at = "1970-01-01T00:00:00Z", ports = {}, links = {} })`),
				ExpectError: regexp.MustCompile(`(?s)The snapshot's clock is wrong.*before InfiniBand existed`),
			},
			{
				Config:      config(`previous = jsonencode({ version = 1, at = "2099-01-01T00:00:00Z", ports = {}, links = {} })`),
				ExpectError: regexp.MustCompile(`(?s)The snapshot's clock is wrong.*after\s+this\s+read\s+began`),
			},
		},
	})
}

// TestAccPortCountersNoSM reads the simulated fabric before any subnet manager ran: the cables
// are there (ibnetdiscover walks them by directed route) but no port has a LID, so nothing is
// read. Every cable is unread, none ok, and the snapshot records no verdict it did not measure
// (issue 32: all 128 links were "ok").
func TestAccPortCountersNoSM(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	r := startSMRig(t)
	const c = "data.gpucluster_port_counters.c"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: r.providerHCL() + fmt.Sprintf(`
data "gpucluster_port_counters" "c" {
  host                  = "127.0.0.1"
  port                  = %d
  ssh_private_key       = file(%q)
  perfquery_command     = "%s perfquery"
  ibnetdiscover_command = "%s ibnetdiscover"
  sample_seconds        = 1
}
`, r.sshd.Port, r.keyFile, r.simrun, r.simrun),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(c, "links.%", "128"),
				resource.TestCheckResourceAttr(c, "unread_cables.#", "128"),
				resource.TestCheckResourceAttr(c, "suspect_cables.#", "0"),
				resource.TestCheckResourceAttr(c, "counters.#", "0"),
				resource.TestCheckResourceAttr(c, "links.leaf01:17 <-> spine01:1.verdict", "unread"),
				resource.TestCheckResourceAttr(c, "links.leaf01:17 <-> spine01:1.reason", "unread: leaf01:17 does not answer; spine01:1 does not answer"),
				resource.TestCheckResourceAttrWith(c, "snapshot", func(v string) error {
					if strings.Contains(v, `"verdict":"ok"`) {
						return fmt.Errorf("the snapshot records ok without a reading: %.300s", v)
					}
					return nil
				}),
			),
		}},
	})
}

func positive(v string) error {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f <= 0 {
		return fmt.Errorf("%q is not a positive number", v)
	}
	return nil
}

// errorClimb raises leaf01[40]'s SymbolErrorCounter by 50 every 100 ms (ibsim's
// PerformanceSet) from start until stop, as a failing cable's errors climb while a soak reads
// it twice: start is a step's PreConfig, stop the first of its checks.
type errorClimb struct {
	start func()
	stop  resource.TestCheckFunc
}

func (r *smRig) symbolErrorClimb(t *testing.T) errorClimb {
	halt, done := make(chan struct{}), make(chan struct{})
	climb := func() {
		defer close(done)
		for v := 100; ; v += 50 {
			select {
			case <-halt:
				return
			case <-time.After(100 * time.Millisecond):
			}
			r.sim.Console(t, fmt.Sprintf(`PerformanceSet "leaf01"[40] PortCounters.SymbolErrorCounter=%d`, v))
		}
	}
	return errorClimb{
		start: func() { go climb() },
		stop:  func(*terraform.State) error { close(halt); <-done; return nil },
	}
}
