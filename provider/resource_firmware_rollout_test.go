package provider

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

const (
	rolloutBMCImage  = "https://images.example/bmc-25.01.03.bin"
	rolloutBIOSImage = "https://images.example/bios-1.7.0.bin"
	rolloutRes       = "gpucluster_firmware_rollout.fw"
	rolloutWavesDS   = "data.gpucluster_maintenance_waves.nodes"
)

// rolloutConfig: four nodes, each with its own Redfish BMC, read-only firmware on the node
// resources, the waves of the four nodes where a wave may cut off 16 endpoints (two DGX of 8
// HCAs), and the rollout to the baseline.
func rolloutConfig(rigs []*testrig.Redfish, rollout bool) string {
	var nodes []string
	for i, rig := range rigs {
		nodes = append(nodes, fmt.Sprintf(`    { name = "gpu%03d", port = %d, username = %s, password = %s, ca = %s },`, i+1, rig.Port,
			hclString(rig.Username), hclString(rig.Password), hclString(rig.CAPEM)))
	}
	cfg := `provider "gpucluster" {}

locals {
  bmcs = [
` + strings.Join(nodes, "\n") + `
  ]
}

data "gpucluster_topology" "pod" {
  kind       = "fat-tree"
  node_count = 4
}

resource "gpucluster_node" "all" {
  # count, not for_each: terraform-plugin-testing's state shim refuses string instance keys.
  count      = length(local.bmcs)
  name       = local.bmcs[count.index].name
  rack       = "r01"
  position_u = 2 + 4 * count.index
  bmc = {
    endpoint   = "127.0.0.1"
    port       = local.bmcs[count.index].port
    protocols  = ["redfish"]
    username   = local.bmcs[count.index].username
    password   = local.bmcs[count.index].password
    tls_ca_pem = local.bmcs[count.index].ca
  }
  firmware = {}
}

data "gpucluster_maintenance_waves" "nodes" {
  design   = data.gpucluster_topology.pod.design
  devices  = [for b in local.bmcs : b.name]
  degraded = { max_unreachable_endpoints = 16 }
}
`
	if rollout {
		cfg += `
resource "gpucluster_firmware_rollout" "fw" {
  waves = data.gpucluster_maintenance_waves.nodes.waves
  nodes = { for n in gpucluster_node.all : n.name => n }
  firmware = {
    bmc    = "25.01.03"
    bios   = "1.7.0"
    images = { bmc = "` + rolloutBMCImage + `", bios = "` + rolloutBIOSImage + `" }
  }
}
`
	}
	return cfg
}

// wavesOf reads the waves the data source computed, from the state: node -> wave number (from 1).
func wavesOf(s *terraform.State) (map[string]int, int, error) {
	rs, ok := s.RootModule().Resources[rolloutWavesDS]
	if !ok {
		return nil, 0, fmt.Errorf("no %s in the state", rolloutWavesDS)
	}
	a := rs.Primary.Attributes
	n, _ := strconv.Atoi(a["waves.#"])
	out := map[string]int{}
	for w := 0; w < n; w++ {
		m, _ := strconv.Atoi(a[fmt.Sprintf("waves.%d.devices.#", w)])
		for d := 0; d < m; d++ {
			out[a[fmt.Sprintf("waves.%d.devices.%d", w, d)]] = w + 1
		}
	}
	return out, n, nil
}

// checkWaveOrder checks the rigs' update logs (numbered process-wide, in the order the events
// happened) against the waves the data source computed: each node in updated posted its updates,
// saw them end Completed and was read back at the new versions; every event of a node of wave
// k, read-back included, comes before the first update posted by a node of a later wave; nodes
// not in updated posted nothing.
func checkWaveOrder(rigs []*testrig.Redfish, wave map[string]int, updated map[string]bool, since map[string]int) error {
	type span struct{ first, last int64 }
	spans := map[string]span{}
	for i, rig := range rigs {
		name := fmt.Sprintf("gpu%03d", i+1)
		log := rig.UpdateLog()[since[name]:]
		var posted, ended []string
		sp := span{first: -1}
		readBack := false
		for _, e := range log {
			switch e.Kind {
			case "posted":
				posted = append(posted, e.What)
				if sp.first < 0 {
					sp.first = e.Seq
				}
			case "ended":
				ended = append(ended, e.What)
			case "read":
				if len(ended) == 2 && (e.What == "BMC 25.01.03") {
					readBack = true
				}
			}
			if len(posted) > 0 {
				sp.last = e.Seq
			}
		}
		if !updated[name] {
			if len(posted) != 0 {
				return fmt.Errorf("%s was at the baseline but posted %v", name, posted)
			}
			continue
		}
		if got := strings.Join(posted, ","); got != rolloutBIOSImage+","+rolloutBMCImage {
			return fmt.Errorf("%s posted %s, want the BIOS then the BMC", name, got)
		}
		if got := strings.Join(ended, ","); got != rolloutBIOSImage+" -> Completed,"+rolloutBMCImage+" -> Completed" {
			return fmt.Errorf("%s: tasks %s", name, got)
		}
		if !readBack {
			return fmt.Errorf("%s was not read back at BMC 25.01.03 after its updates: %v", name, log)
		}
		spans[name] = sp
	}
	for a, sa := range spans {
		for b, sb := range spans {
			if wave[a] < wave[b] && sa.last > sb.first {
				return fmt.Errorf("%s (wave %d) had an event (#%d) after %s (wave %d) posted its first update (#%d)", a, wave[a], sa.last, b, wave[b], sb.first)
			}
		}
	}
	return nil
}

// TestAccFirmwareRollout: with the real terraform, four nodes each behind its own Redfish BMC go
// to the BMC and BIOS baseline in the waves gpucluster_maintenance_waves computed (two waves of
// two: a wave may cut off 16 endpoints, a DGX has 8). The plan lists each update with its wave
// and the wave's proof; apply posts them wave by wave, as the BMCs' own logs show; a node
// already at the baseline is not touched; the next plan is empty; a node taken off the
// baseline outside Terraform plans as one update in its own wave, and only it is updated.
func TestAccFirmwareRollout(t *testing.T) {
	requireAcc(t)
	var rigs []*testrig.Redfish
	for i := 0; i < 4; i++ {
		rig := testrig.StartRedfish(t, testrig.RedfishOptions{UpdateTime: 200 * time.Millisecond})
		rig.AddFirmwareImage(rolloutBMCImage, "BMC", "25.01.03")
		rig.AddFirmwareImage(rolloutBIOSImage, "BIOS", "1.7.0")
		rigs = append(rigs, rig)
	}
	// gpu003 runs the baseline already.
	rigs[2].SetFirmwareOutOfBand("25.01.03", "1.7.0")
	since := map[string]int{}
	mark := func() {
		for i, rig := range rigs {
			since[fmt.Sprintf("gpu%03d", i+1)] = len(rig.UpdateLog())
		}
	}
	var wave map[string]int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: rolloutConfig(rigs, false),
				Check: func(s *terraform.State) error {
					var n int
					var err error
					if wave, n, err = wavesOf(s); err != nil {
						return err
					}
					if n != 2 {
						return fmt.Errorf("%d waves, want 2 of two nodes each: %v", n, wave)
					}
					return nil
				},
			},
			{
				PreConfig: mark,
				Config:    rolloutConfig(rigs, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(rolloutRes, plancheck.ResourceActionCreate),
					planAttr{rolloutRes, "summary", func(v any) error {
						s, _ := v.(string)
						lines := strings.Split(s, "\n")
						if len(lines) != 2 {
							return fmt.Errorf("summary %q: want one line per wave", s)
						}
						for i, l := range lines {
							if !strings.HasPrefix(l, fmt.Sprintf("wave %d of 2 (proved: bisection ", i+1)) || !strings.Contains(l, "16 endpoints out of service") {
								return fmt.Errorf("wave line %q", l)
							}
						}
						return nil
					}},
					planAttr{rolloutRes, "updates", func(v any) error {
						list, _ := v.([]any)
						// The expected list, from the data source's waves: the nodes off the
						// baseline in wave order, BIOS then BMC.
						var want []string
						for w := 1; w <= 2; w++ {
							for _, n := range nodesOfWave(wave, w, "gpu003") {
								want = append(want, fmt.Sprintf("%d %s bios 1.6.7 1.7.0", w, n), fmt.Sprintf("%d %s bmc 24.09.17 25.01.03", w, n))
							}
						}
						var got []string
						for _, e := range list {
							o, _ := e.(map[string]any)
							got = append(got, fmt.Sprintf("%v %v %v %v %v", o["wave"], o["node"], o["component"], o["from"], o["to"]))
						}
						if strings.Join(got, "; ") != strings.Join(want, "; ") {
							return fmt.Errorf("updates\n got %v\nwant %v", got, want)
						}
						return nil
					}},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(rolloutRes, "running.gpu001.bmc", "25.01.03"),
					resource.TestCheckResourceAttr(rolloutRes, "running.gpu004.bios", "1.7.0"),
					rigCheck(func() error {
						return checkWaveOrder(rigs, wave, map[string]bool{"gpu001": true, "gpu002": true, "gpu004": true}, since)
					}),
				),
			},
			{
				// At the baseline: nothing to do.
				Config:   rolloutConfig(rigs, true),
				PlanOnly: true,
			},
			{
				PreConfig: func() {
					mark()
					rigs[1].SetFirmwareOutOfBand("24.09.17", "1.7.0")
				},
				Config: rolloutConfig(rigs, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(rolloutRes, plancheck.ResourceActionUpdate),
					planAttr{rolloutRes, "updates", func(v any) error {
						list, _ := v.([]any)
						if len(list) != 1 {
							return fmt.Errorf("updates %v: want gpu002's BMC alone", list)
						}
						o, _ := list[0].(map[string]any)
						if got := fmt.Sprintf("%v %v %v %v", o["wave"], o["node"], o["component"], o["from"]); got != fmt.Sprintf("%d gpu002 bmc 24.09.17", wave["gpu002"]) {
							return fmt.Errorf("update %s", got)
						}
						return nil
					}},
				}},
				Check: rigCheck(func() error {
					for i, rig := range rigs {
						var posted []string
						for _, e := range rig.UpdateLog()[since[fmt.Sprintf("gpu%03d", i+1)]:] {
							if e.Kind == "posted" {
								posted = append(posted, e.What)
							}
						}
						want := ""
						if i == 1 {
							want = rolloutBMCImage
						}
						if strings.Join(posted, ",") != want {
							return fmt.Errorf("gpu%03d posted %v, want %q", i+1, posted, want)
						}
					}
					return nil
				}),
			},
			{
				// Every BMC off the baseline, and the update of a node of wave 1 fails: its wave
				// finishes, the rollout stops, the error names the wave, and no node of wave 2 is
				// touched.
				PreConfig: func() {
					mark()
					for _, rig := range rigs {
						rig.SetFirmwareOutOfBand("24.09.17", "1.7.0")
					}
					for i := range rigs {
						if wave[fmt.Sprintf("gpu%03d", i+1)] == 1 {
							rigs[i].FailNextUpdate("Installation of image 'bmc-25.01.03.bin' to 'BMC' failed: the image signature is not valid.")
							break
						}
					}
				},
				Config:      rolloutConfig(rigs, true),
				ExpectError: reAll("the image signature is not valid", "Firmware rollout stopped", "wave 1 of 2 failed on 1 of its 2 devices; the waves after it were not started"),
			},
			{
				// An IPMI-only BMC (the nodes themselves read no firmware here, so the refusal is
				// the rollout's).
				Config: strings.NewReplacer(`protocols  = ["redfish"]`, `protocols  = ["ipmi"]`, `firmware = {}`, ``).
					Replace(rolloutConfig(rigs, true)),
				PlanOnly:    true,
				ExpectError: reAll("Firmware needs Redfish", `node "gpu001": firmware versions are read`),
			},
			{
				Config:      strings.Replace(rolloutConfig(rigs, true), `n.name => n }`, `n.name => n if n.name != "gpu004" }`, 1),
				PlanOnly:    true,
				ExpectError: reAll("A node of the waves is not in nodes", `takes down "gpu004", which nodes does not hold`),
			},
		},
	})
	for i, rig := range rigs {
		name := fmt.Sprintf("gpu%03d", i+1)
		var posted []string
		for _, e := range rig.UpdateLog()[since[name]:] {
			if e.Kind == "posted" {
				posted = append(posted, e.What)
			}
		}
		if want := map[bool]int{true: 1, false: 0}[wave[name] == 1]; len(posted) != want {
			t.Errorf("%s (wave %d) posted %v in the failed rollout, want %d update", name, wave[name], posted, want)
		}
	}
}

// planAttr is a plan check on the planned (after) value of a top-level attribute, as the plan's
// JSON holds it.
type planAttr struct {
	addr, attr string
	check      func(any) error
}

func (c planAttr) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address == c.addr {
			after, _ := rc.Change.After.(map[string]any)
			if err := c.check(after[c.attr]); err != nil {
				resp.Error = fmt.Errorf("%s.%s: %w", c.addr, c.attr, err)
			}
			return
		}
	}
	resp.Error = fmt.Errorf("no change planned for %s", c.addr)
}

// nodesOfWave are the nodes the waves put in wave w, but skip (the node at the baseline), in
// name order: what the rollout's updates list for that wave, computed from the waves alone.
func nodesOfWave(wave map[string]int, w int, skip string) []string {
	var names []string
	for n, k := range wave {
		if k == w && n != skip {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}
