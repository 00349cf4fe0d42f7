package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

const (
	rolloutCardOld   = "28.42.1000"
	rolloutCardNew   = "28.43.1014"
	rolloutCardPSID  = "MT_0000001244"
	rolloutOtherPSID = "MT_0000000834"
)

// rolloutNode is one GPU node of the HCA rollout test: its own sshd and its own flint double
// state (two ConnectX-7 cards, mlx5_0 and mlx5_1), the tools' wrappers appending every call to
// one log shared by all nodes.
type rolloutNode struct {
	name, state, tool string
	sshd              *testrig.SSHD
}

// startRolloutNodes starts n nodes. Every tool call is appended to shared as "NODE PROG ARGS" by
// the node's wrapper before the double runs: the wrappers append with O_APPEND, one write per
// line, so the line number is a sequence number shared by all nodes, in the order the calls
// began (no clock involved).
func startRolloutNodes(t *testing.T, n int, shared string) []*rolloutNode {
	t.Helper()
	double := buildMlxconfigDouble(t)
	var nodes []*rolloutNode
	for i := 0; i < n; i++ {
		opts := testrig.SSHDOptions{}
		if i > 0 {
			opts.Share = nodes[0].sshd
		}
		nd := &rolloutNode{name: fmt.Sprintf("gpu%03d", i+1), sshd: testrig.StartSSHD(t, opts)}
		bin := filepath.Join(nd.sshd.Dir, "mft", "bin")
		if err := os.MkdirAll(bin, 0o755); err != nil {
			t.Fatal(err)
		}
		nd.state, nd.tool = filepath.Join(nd.sshd.Dir, "nvconfig.json"), filepath.Join(bin, "mlxconfig")
		for _, p := range []string{"mlxconfig", "flint", "mlxfwreset"} {
			script := fmt.Sprintf("#!/bin/sh\necho \"%s %s $*\" >> '%s'\nMLXCONFIG_DOUBLE_STATE='%s' exec '%s' \"$@\"\n",
				nd.name, p, shared, nd.state, filepath.Join(double, p))
			if err := os.WriteFile(filepath.Join(bin, p), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		nd.setCards(t, rolloutCardOld, rolloutCardPSID)
		nodes = append(nodes, nd)
	}
	return nodes
}

// setCards writes the node's two cards: both at version, mlx5_0 with the baseline's PSID,
// mlx5_1 with psid1.
func (nd *rolloutNode) setCards(t *testing.T, version, psid1 string) {
	t.Helper()
	var devs []any
	for i, psid := range []string{rolloutCardPSID, psid1} {
		devs = append(devs, map[string]any{
			"device": fmt.Sprintf("/dev/mst/mt4129_pciconf%d", i), "aliases": []string{fmt.Sprintf("0000:%02x:00.0", 0x3b+i), fmt.Sprintf("mlx5_%d", i)},
			"device_type": "ConnectX7", "name": "MCX75310AAS-NEA_Ax",
			"description": "NVIDIA ConnectX-7 HHHL Adapter card; 400GbE / NDR IB (default mode); Single-port OSFP; PCIe 5.0 x16; Crypto Disabled; Secure Boot Enabled;",
			"params":      []any{map[string]any{"name": "LINK_TYPE_P1", "next": "IB(1)"}},
			"firmware": map[string]any{
				"image_type": "FS4", "fw_version": version, "fw_release_date": "8.8.2024", "product_version": version,
				"rom_info":    []string{"type=UEFI version=14.35.15 cpu=AMD64,AARCH64", "type=PXE version=3.7.500 cpu=AMD64"},
				"description": "UID                GuidsNumber",
				"base_guid":   fmt.Sprintf("e09d7303001264%02x        16", i), "base_mac": fmt.Sprintf("e09d731264%02x            16", i),
				"image_vsd": "N/A", "device_vsd": "N/A", "psid": psid, "security_attributes": "secure-fw",
			},
		})
	}
	b, err := json.Marshal(map[string]any{"devices": devs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nd.state, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// flashes reads the double's state: device -> [flash version, running version].
func (nd *rolloutNode) flashes() (map[string][2]string, error) {
	b, err := os.ReadFile(nd.state)
	if err != nil {
		return nil, err
	}
	var st struct {
		Devices []struct {
			Aliases  []string
			Firmware struct {
				FWVersion      string `json:"fw_version"`
				RunningVersion string `json:"running_version"`
			}
		}
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	out := map[string][2]string{}
	for _, d := range st.Devices {
		out[d.Aliases[1]] = [2]string{d.Firmware.FWVersion, d.Firmware.RunningVersion}
	}
	return out, nil
}

// sharedCalls is the shared log: call i (from 1) is line i.
type sharedCall struct {
	seq        int
	node, call string
}

func readShared(p string) []sharedCall {
	b, _ := os.ReadFile(p)
	var out []sharedCall
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if node, call, ok := strings.Cut(l, " "); ok {
			out = append(out, sharedCall{seq: i + 1, node: node, call: call})
		}
	}
	return out
}

func rolloutHCAConfig(nodes []*rolloutNode, image string, rollout bool) string {
	var cards []string
	for _, nd := range nodes {
		for d := 0; d < 2; d++ {
			cards = append(cards, fmt.Sprintf(`    { node = %q, device = "mlx5_%d", guid = "0x0002c9030001%02x%02x", host = %q, tool = %q },`,
				nd.name, d, len(cards), d, nd.sshd.Addr(), nd.tool))
		}
	}
	sd := nodes[0].sshd
	cfg := fmt.Sprintf(`provider "gpucluster" {
  ssh = {
    user             = %s
    private_key      = %s
    known_hosts_file = %s
  }
}

locals {
  cards = [
%s
  ]
}

resource "gpucluster_hca" "all" {
  count     = length(local.cards)
  node      = local.cards[count.index].node
  device    = local.cards[count.index].device
  port_guid = local.cards[count.index].guid
  ssh_host  = local.cards[count.index].host
  tool      = local.cards[count.index].tool
}

data "gpucluster_topology" "pod" {
  kind       = "fat-tree"
  node_count = 4
}

data "gpucluster_maintenance_waves" "nodes" {
  design   = data.gpucluster_topology.pod.design
  devices  = distinct([for c in local.cards : c.node])
  degraded = { max_unreachable_endpoints = 16 }
}
`, hclString(sd.User), hclString(sd.PrivateKeyPEM), hclString(sd.KnownHostsFile), strings.Join(cards, "\n"))
	if rollout {
		cfg += fmt.Sprintf(`
resource "gpucluster_firmware_rollout" "fw" {
  waves    = data.gpucluster_maintenance_waves.nodes.waves
  hcas     = { for h in gpucluster_hca.all : h.name => h }
  firmware = {
    hca = { version = %q, psid = %q, image = %q }
  }
}
`, rolloutCardNew, rolloutCardPSID, image)
	}
	return cfg
}

// TestAccFirmwareRolloutHCA: with the real terraform, eight ConnectX-7 cards on four nodes (each
// node its own sshd and flint double) go to the HCA baseline in the waves
// gpucluster_maintenance_waves computed. A card whose PSID is not the image's is refused at plan
// and nothing is burned anywhere; the plan lists every card off the baseline in its node's
// wave; apply burns them wave by wave, as the doubles' shared call log shows (every call of a
// wave's nodes, read-backs included, before the first burn of a later wave); a node at the
// baseline is not burned; the next plan is empty; cards taken off the baseline outside
// Terraform are planned again in their node's wave, and only they are burned.
func TestAccFirmwareRolloutHCA(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	dir := t.TempDir()
	shared := filepath.Join(dir, "calls.log")
	nodes := startRolloutNodes(t, 4, shared)
	image := writeRolloutImage(t, dir)
	// gpu003 holds the baseline already; gpu004's mlx5_1 is another board at first.
	nodes[2].setCards(t, rolloutCardNew, rolloutCardPSID)
	nodes[3].setCards(t, rolloutCardOld, rolloutOtherPSID)
	burns := func(calls []sharedCall) []sharedCall {
		var out []sharedCall
		for _, c := range calls {
			if strings.HasPrefix(c.call, "flint ") && strings.HasSuffix(c.call, " burn") {
				out = append(out, c)
			}
		}
		return out
	}
	var wave map[string]int
	var since int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: rolloutHCAConfig(nodes, image, false),
				Check: func(s *terraform.State) error {
					var n int
					var err error
					if wave, n, err = wavesOf(s); err != nil {
						return err
					}
					if n != 2 || len(wave) != 4 {
						return fmt.Errorf("%d waves of %v, want 2 of two nodes each", n, wave)
					}
					return nil
				},
			},
			{
				Config:      rolloutHCAConfig(nodes, image, true),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)HCA gpu004/mlx5_1: the image is for another card.*PSID mismatch\.\s+The\s+PSID\s+on\s+flash\s+\(MT_0000000834\)\s+differs\s+from\s+the\s+PSID\s+in\s+the\s+given\s+image\s+\(MT_0000001244\)`),
			},
			{
				PreConfig: func() {
					calls := readShared(shared)
					if b := burns(calls); len(b) != 0 {
						t.Errorf("the refused plan burned: %v", b)
					}
					// The plan read the cards: one flint query per card, and the image, per node.
					var q int
					for _, c := range calls {
						if strings.HasPrefix(c.call, "flint ") && strings.HasSuffix(c.call, " query") {
							q++
						}
					}
					if q == 0 {
						t.Errorf("the refused plan read no card: %v", calls)
					}
					nodes[3].setCards(t, rolloutCardOld, rolloutCardPSID)
					since = len(calls)
				},
				Config: rolloutHCAConfig(nodes, image, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpucluster_firmware_rollout.fw", plancheck.ResourceActionCreate),
					planAttr{"gpucluster_firmware_rollout.fw", "updates", func(v any) error {
						// Expected from the data source's waves: the nodes off the baseline in
						// wave order, each node's cards by device.
						var want []string
						for w := 1; w <= 2; w++ {
							for _, n := range nodesOfWave(wave, w, "gpu003") {
								for d := 0; d < 2; d++ {
									want = append(want, fmt.Sprintf("%d %s hca mlx5_%d %s %s", w, n, d, rolloutCardOld, rolloutCardNew))
								}
							}
						}
						list, _ := v.([]any)
						var got []string
						for _, e := range list {
							o, _ := e.(map[string]any)
							got = append(got, fmt.Sprintf("%v %v %v %v %v %v", o["wave"], o["node"], o["component"], o["device"], o["from"], o["to"]))
						}
						if strings.Join(got, "; ") != strings.Join(want, "; ") {
							return fmt.Errorf("updates\n got %v\nwant %v", got, want)
						}
						return nil
					}},
					planAttr{"gpucluster_firmware_rollout.fw", "summary", func(v any) error {
						s, _ := v.(string)
						for w := 1; w <= 2; w++ {
							var n string
							for name, k := range wave {
								if k == w && name != "gpu003" {
									n = name
								}
							}
							if !strings.Contains(s, fmt.Sprintf("%s HCA mlx5_1 %s -> %s", n, rolloutCardOld, rolloutCardNew)) {
								return fmt.Errorf("summary %q does not list %s's mlx5_1", s, n)
							}
						}
						return nil
					}},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_firmware_rollout.fw", "running_hcas.gpu001/mlx5_1.version", rolloutCardNew),
					resource.TestCheckResourceAttr("gpucluster_firmware_rollout.fw", "running_hcas.gpu003/mlx5_0.version", rolloutCardNew),
					rigCheck(func() error { return checkCardWaves(readShared(shared)[since:], nodes, wave) }),
				),
			},
			{Config: rolloutHCAConfig(nodes, image, true), PlanOnly: true},
			{
				// gpu002's cards go back to the old firmware outside Terraform: the plan lists
				// them alone, in gpu002's wave, and only they are burned.
				PreConfig: func() {
					since = len(readShared(shared))
					nodes[1].setCards(t, rolloutCardOld, rolloutCardPSID)
				},
				Config: rolloutHCAConfig(nodes, image, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpucluster_firmware_rollout.fw", plancheck.ResourceActionUpdate),
					// The refresh read the cards again: the plan shows the drift from what the
					// state held (the baseline), and that apply brings them back.
					expectBefore{"gpucluster_firmware_rollout.fw", []string{"running_hcas", "gpu002/mlx5_0", "version"}, rolloutCardOld},
					expectBefore{"gpucluster_firmware_rollout.fw", []string{"running_hcas", "gpu002/mlx5_1", "version"}, rolloutCardOld},
					expectBefore{"gpucluster_firmware_rollout.fw", []string{"running_hcas", "gpu001/mlx5_0", "version"}, rolloutCardNew},
					plancheck.ExpectKnownValue("gpucluster_firmware_rollout.fw", tfjsonpath.New("running_hcas").AtMapKey("gpu002/mlx5_0").AtMapKey("version"),
						knownvalue.StringExact(rolloutCardNew)),
					planAttr{"gpucluster_firmware_rollout.fw", "updates", func(v any) error {
						list, _ := v.([]any)
						var got []string
						for _, e := range list {
							o, _ := e.(map[string]any)
							got = append(got, fmt.Sprintf("%v %v %v", o["wave"], o["node"], o["device"]))
						}
						want := fmt.Sprintf("%d gpu002 mlx5_0; %d gpu002 mlx5_1", wave["gpu002"], wave["gpu002"])
						if strings.Join(got, "; ") != want {
							return fmt.Errorf("updates %v, want %s", got, want)
						}
						return nil
					}},
				}},
				Check: rigCheck(func() error {
					var got []string
					for _, c := range burns(readShared(shared)[since:]) {
						got = append(got, c.node+" "+strings.Fields(c.call)[2])
					}
					if strings.Join(got, ",") != "gpu002 mlx5_0,gpu002 mlx5_1" {
						return fmt.Errorf("burns %v, want gpu002's two cards", got)
					}
					return nil
				}),
			},
			{Config: rolloutHCAConfig(nodes, image, true), PlanOnly: true},
			{
				Config:      strings.Replace(rolloutHCAConfig(nodes, image, true), `version = "`+rolloutCardNew+`"`, `version = "28.44.1036"`, 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)The HCA image is not the baseline version.*holds firmware 28\.43\.1014, not\s+version = 28\.44\.1036`),
			},
			{
				Config:      strings.Replace(rolloutHCAConfig(nodes, image, true), "  hcas     = { for h in gpucluster_hca.all : h.name => h }\n", "", 1),
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`(?s)An HCA baseline without hcas.*hcas = gpucluster_hca.all`),
			},
		},
	})
}

// checkCardWaves checks the calls of the rollout's apply against the waves: each node off the
// baseline burned each of its cards once and read it back after the burn; gpu003 burned
// nothing; every call of a node of wave k comes before the first burn of a node of a later
// wave; and the doubles' flash holds the new version while the old one runs (reset pending).
func checkCardWaves(calls []sharedCall, nodes []*rolloutNode, wave map[string]int) error {
	type span struct{ firstBurn, last int }
	spans := map[string]*span{}
	for _, nd := range nodes {
		var burned []string
		sp := &span{firstBurn: -1}
		readBack := map[string]bool{}
		for _, c := range calls {
			if c.node != nd.name {
				continue
			}
			f := strings.Fields(c.call)
			if len(f) > 2 && f[0] == "flint" && f[len(f)-1] == "burn" {
				burned = append(burned, f[2])
				if sp.firstBurn < 0 {
					sp.firstBurn = c.seq
				}
			}
			if len(f) == 4 && f[0] == "flint" && f[1] == "-d" && f[3] == "query" && len(burned) > 0 && burned[len(burned)-1] == f[2] {
				readBack[f[2]] = true
			}
			if sp.firstBurn >= 0 {
				sp.last = c.seq
			}
		}
		fl, err := nd.flashes()
		if err != nil {
			return err
		}
		if nd.name == "gpu003" {
			if len(burned) != 0 {
				return fmt.Errorf("gpu003 was at the baseline but burned %v", burned)
			}
			continue
		}
		if strings.Join(burned, ",") != "mlx5_0,mlx5_1" {
			return fmt.Errorf("%s burned %v, want mlx5_0 then mlx5_1 once each", nd.name, burned)
		}
		for _, d := range []string{"mlx5_0", "mlx5_1"} {
			if !readBack[d] {
				return fmt.Errorf("%s: %s not read back after its burn: %v", nd.name, d, calls)
			}
			if fl[d] != [2]string{rolloutCardNew, rolloutCardOld} {
				return fmt.Errorf("%s %s: flash %s running %s, want %s on the flash and %s running until a reset", nd.name, d, fl[d][0], fl[d][1], rolloutCardNew, rolloutCardOld)
			}
		}
		spans[nd.name] = sp
	}
	for a, sa := range spans {
		for b, sb := range spans {
			if wave[a] < wave[b] && sa.last > sb.firstBurn {
				return fmt.Errorf("%s (wave %d) had call #%d after %s (wave %d) began its first burn (#%d)", a, wave[a], sa.last, b, wave[b], sb.firstBurn)
			}
		}
	}
	if len(spans) != 3 {
		return fmt.Errorf("%d nodes burned, want 3", len(spans))
	}
	return nil
}

// writeRolloutImage writes the baseline image (28.43.1014, the cards' PSID) as the flint double
// reads an image file, into dir, and returns its path.
func writeRolloutImage(t *testing.T, dir string) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"image_type": "FS4", "fw_version": rolloutCardNew, "fw_release_date": "12.12.2024", "product_version": rolloutCardNew,
		"rom_info":    []string{"type=UEFI version=14.36.16 cpu=AMD64,AARCH64", "type=PXE version=3.7.500 cpu=AMD64"},
		"description": "UID                GuidsNumber", "image_vsd": "N/A", "psid": rolloutCardPSID, "security_attributes": "secure-fw",
	})
	if err != nil {
		t.Fatal(err)
	}
	image := filepath.Join(dir, "fw-ConnectX7-rel-28_43_1014.bin")
	if err := os.WriteFile(image, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return image
}
