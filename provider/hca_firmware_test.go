package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// buildMlxconfigDouble builds internal/hca/testdata/mlxconfig-double into a directory of the
// test, under every name it answers to (see its README). Go's build cache makes every build
// after the first a link.
func buildMlxconfigDouble(t testing.TB) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the mlxconfig double is built with go, which is not on PATH: %v", err)
	}
	dir := t.TempDir()
	out, err := exec.Command(goBin, "build", "-o", filepath.Join(dir, "mlxconfig"), "../internal/hca/testdata/mlxconfig-double").CombinedOutput()
	if err != nil {
		t.Fatalf("go build the mlxconfig double: %v\n%s", err, out)
	}
	for _, n := range []string{"mstconfig", "flint", "mstflint", "mlxfwreset", "mstfwreset"} {
		if err := os.Symlink("mlxconfig", filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// hcaNode is a GPU node for the HCA tests: a real sshd on loopback, and the mlxconfig double
// installed for it. sshd does not pass environment variables on, so the tools are wrappers in a
// directory of their own that set the double's state file and exec it; the HCA names that
// directory through its tool attribute (an absolute path), as it would an MFT installed under
// /opt.
type hcaNode struct {
	sshd      *testrig.SSHD
	state     string // the double's state file: the card's NVConfig
	log       string // every tool call, one line each
	tool      string // absolute path of the mlxconfig wrapper
	mstconfig string // and of the mstconfig wrapper
}

const cx7 = "/dev/mst/mt4129_pciconf0"

func startHCANode(t *testing.T) *hcaNode {
	t.Helper()
	h := &hcaNode{sshd: testrig.StartSSHD(t, testrig.SSHDOptions{})}
	bin := filepath.Join(h.sshd.Dir, "mft", "bin")
	h.installTools(t, bin, "mlxconfig", "flint", "mlxfwreset", "mstconfig", "mstflint", "mstfwreset")
	h.tool, h.mstconfig = filepath.Join(bin, "mlxconfig"), filepath.Join(bin, "mstconfig")
	h.writeCX7(t)
	return h
}

// Tool families as installed on a node: MFT's programs, and mstflint's (Debian's mstflint
// package ships mstconfig, mstflint and mstfwreset, wave4-facts 5.1).
var (
	mftTools      = []string{"mlxconfig", "flint", "mlxfwreset"}
	mstflintTools = []string{"mstconfig", "mstflint", "mstfwreset"}
)

// startHCANodeWithPath is a node whose SSH sessions have only the given tools on their PATH,
// under their real names (the double, which prints what the real ones print), and nothing else:
// the machine's own /usr/bin/mstflint is not on it. The HCA leaves tool unset (h.tool is ""),
// so the provider has to find the tool the node has.
// share, when set, is a node whose client key and known_hosts file this one accepts, so that
// one provider block reaches both.
func startHCANodeWithPath(t *testing.T, share *hcaNode, tools []string) *hcaNode {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "bin")
	opts := testrig.SSHDOptions{Path: bin}
	if share != nil {
		opts.Share = share.sshd
	}
	h := &hcaNode{sshd: testrig.StartSSHD(t, opts)}
	h.installTools(t, bin, tools...)
	h.writeCX7(t)
	return h
}

// installTools writes wrappers named for the tools into bin: sshd does not pass environment
// variables on, so each sets the double's state and log files and execs it under that name.
func (h *hcaNode) installTools(t *testing.T, bin string, tools ...string) {
	t.Helper()
	double := buildMlxconfigDouble(t)
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	h.state = filepath.Join(h.sshd.Dir, "nvconfig.json")
	h.log = filepath.Join(h.sshd.Dir, "tool-calls.log")
	for _, n := range tools {
		script := fmt.Sprintf("#!/bin/sh\nMLXCONFIG_DOUBLE_STATE='%s' MLXCONFIG_DOUBLE_LOG='%s' exec '%s' \"$@\"\n",
			h.state, h.log, filepath.Join(double, n))
		if err := os.WriteFile(filepath.Join(bin, n), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// writeCX7 gives the node its card.
func (h *hcaNode) writeCX7(t *testing.T) {
	t.Helper()
	// A single-port ConnectX-7 as it leaves the factory for an Ethernet fabric.
	h.writeState(t, map[string]any{"devices": []any{map[string]any{
		"device": cx7, "aliases": []string{"0000:3b:00.0", "mlx5_0"},
		"device_type": "ConnectX7", "name": "MCX75310AAS-NEA_Ax",
		"description": "NVIDIA ConnectX-7 HHHL Adapter card; 400GbE / NDR IB (default mode); Single-port OSFP; PCIe 5.0 x16; Crypto Disabled; Secure Boot Enabled;",
		"params": []any{
			map[string]any{"name": "LINK_TYPE_P1", "next": "ETH(2)"},
			map[string]any{"name": "KEEP_IB_LINK_UP_P1", "next": "False(0)"},
			map[string]any{"name": "SRIOV_EN", "next": "False(0)"},
			map[string]any{"name": "NUM_OF_VFS", "next": "0", "max": 127},
			map[string]any{"name": "PCI_WR_ORDERING", "next": "per_mkey(0)"},
		},
		"firmware": map[string]any{
			"image_type": "FS4", "fw_version": "28.42.1000", "fw_release_date": "8.8.2024", "product_version": "28.42.1000",
			"rom_info":    []string{"type=UEFI version=14.35.15 cpu=AMD64,AARCH64", "type=PXE version=3.7.500 cpu=AMD64"},
			"description": "UID                GuidsNumber",
			"base_guid":   "e09d730300126474        16", "base_mac": "e09d73126474            16",
			"image_vsd": "N/A", "device_vsd": "N/A", "psid": "MT_0000001244", "security_attributes": "secure-fw",
		},
	}}})
}

func (h *hcaNode) writeState(t *testing.T, st map[string]any) {
	t.Helper()
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.state, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// param returns one parameter of the card as the double keeps it.
func (h *hcaNode) param(name string) (next, current string, err error) {
	b, err := os.ReadFile(h.state)
	if err != nil {
		return "", "", err
	}
	var st struct {
		Devices []struct {
			Params []struct{ Name, Next, Current string }
		}
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return "", "", err
	}
	for _, p := range st.Devices[0].Params {
		if p.Name == name {
			if p.Current == "" {
				p.Current = p.Next
			}
			return p.Next, p.Current, nil
		}
	}
	return "", "", fmt.Errorf("%s not on the card", name)
}

// setOutOfBand changes a Next Boot value as someone running mlxconfig on the node would.
func (h *hcaNode) setOutOfBand(t *testing.T, name, next string) {
	t.Helper()
	b, err := os.ReadFile(h.state)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for _, p := range as[[]any](t, as[map[string]any](t, as[[]any](t, st["devices"])[0])["params"]) {
		if pm := as[map[string]any](t, p); pm["name"] == name {
			pm["next"] = next
		}
	}
	h.writeState(t, st)
}

// calls returns the tool calls so far.
func (h *hcaNode) calls() []string {
	b, _ := os.ReadFile(h.log)
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func (h *hcaNode) sets() []string {
	var out []string
	for _, c := range h.calls() {
		if strings.Contains(c, " set ") {
			out = append(out, c)
		}
	}
	return out
}

func (h *hcaNode) provider() string {
	return fmt.Sprintf(`provider "gpucluster" {
  ssh = {
    user             = %s
    private_key      = %s
    known_hosts_file = %s
  }
}
`, hclString(h.sshd.User), hclString(h.sshd.PrivateKeyPEM), hclString(h.sshd.KnownHostsFile))
}

// hca is the HCA resource on this node with the given extra attributes; tool is h.tool, left
// unset when that is "".
func (h *hcaNode) hca(body string) string {
	tool := ""
	if h.tool != "" {
		tool = fmt.Sprintf("  tool       = %q\n", h.tool)
	}
	return h.provider() + fmt.Sprintf(`
resource "gpucluster_hca" "h" {
  node       = "gpu001"
  device     = "mlx5_0"
  port_guid  = "0x0002c90300010000"
  mst_device = %q
  ssh_host   = %q
%s%s
}`, cx7, h.sshd.Addr(), tool, body)
}

func paramIs(h *hcaNode, name, next, current string) resource.TestCheckFunc {
	return rigCheck(func() error {
		n, c, err := h.param(name)
		if err != nil {
			return err
		}
		if n != next || (current != "" && c != current) {
			return fmt.Errorf("card %s: next %s current %s, want next %s current %s", name, n, c, next, current)
		}
		return nil
	})
}

// TestAccHCAFirmware configures a ConnectX-7 through the mlxconfig double over a real sshd: the
// create sets only what differs in one set, a second plan is empty (values compare by meaning),
// a change made on the node shows as drift and only that parameter is set again, a firmware
// reset loads the values, removing a parameter or all settings leaves the card alone, and
// mstconfig works as mlxconfig does.
func TestAccHCAFirmware(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	h := startHCANode(t)
	const addr = "gpucluster_hca.h"
	settings := `
  firmware_settings = {
    LINK_TYPE_P1    = "IB"
    SRIOV_EN        = "True"
    NUM_OF_VFS      = "16"
    PCI_WR_ORDERING = "per_mkey"
  }
`
	var setsBefore, callsBefore int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: rigCheck(func() error {
			if got := len(h.sets()); got != setsBefore {
				return fmt.Errorf("destroy changed the card: %v", h.sets()[setsBefore:])
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: h.hca(settings),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "firmware_settings.LINK_TYPE_P1", "IB"),
					resource.TestCheckResourceAttr(addr, "pending_reboot", "true"),
					resource.TestCheckResourceAttr(addr, "firmware_version", "28.42.1000"),
					resource.TestCheckResourceAttr(addr, "name", "gpu001/mlx5_0"),
					paramIs(h, "LINK_TYPE_P1", "IB(1)", "ETH(2)"),
					paramIs(h, "SRIOV_EN", "True(1)", "False(0)"),
					paramIs(h, "NUM_OF_VFS", "16", "0"),
					rigCheck(func() error {
						// One set, with only the three parameters that differed.
						want := []string{"mlxconfig -d " + cx7 + " -y set LINK_TYPE_P1=IB NUM_OF_VFS=16 SRIOV_EN=True"}
						if got := h.sets(); strings.Join(got, "\n") != strings.Join(want, "\n") {
							return fmt.Errorf("sets: %q, want %q", got, want)
						}
						return nil
					}),
				),
			},
			{Config: h.hca(settings), PlanOnly: true},
			{
				// Someone puts the port back to Ethernet on the node.
				PreConfig: func() { h.setOutOfBand(t, "LINK_TYPE_P1", "ETH(2)") },
				Config:    h.hca(settings),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
					expectBefore{addr, []string{"firmware_settings", "LINK_TYPE_P1"}, "ETH(2)"},
					expectBefore{addr, []string{"firmware_settings", "SRIOV_EN"}, "True"},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					paramIs(h, "LINK_TYPE_P1", "IB(1)", ""),
					rigCheck(func() error {
						if s := h.sets(); len(s) != 2 || !strings.HasSuffix(s[1], " set LINK_TYPE_P1=IB") {
							return fmt.Errorf("sets: %q; want a second one of LINK_TYPE_P1 only", s)
						}
						return nil
					}),
				),
			},
			{
				// A firmware reset at level 3 loads the pending values without a reboot.
				Config: h.hca(settings + `  reset = 3`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(addr, "pending_reboot", "false"),
					paramIs(h, "LINK_TYPE_P1", "IB(1)", "IB(1)"),
					paramIs(h, "NUM_OF_VFS", "16", "16"),
					rigCheck(func() error {
						for _, c := range h.calls() {
							if strings.HasPrefix(c, "mlxfwreset -d "+cx7+" -l 3 -y reset") {
								return nil
							}
						}
						return fmt.Errorf("no mlxfwreset in %q", h.calls())
					}),
				),
			},
			{
				// Fewer settings, and mstflint's tool: nothing to set, nothing reset.
				PreConfig: func() { setsBefore, callsBefore = len(h.sets()), len(h.calls()) },
				Config: strings.Replace(h.hca(`
  reset = 3
  firmware_settings = {
    LINK_TYPE_P1 = "ib"
    SRIOV_EN     = "1"
  }
`), h.tool, h.mstconfig, 1),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckNoResourceAttr(addr, "firmware_settings.NUM_OF_VFS"),
					resource.TestCheckResourceAttr(addr, "pending_reboot", "false"),
					resource.TestCheckResourceAttr(addr, "firmware_version", "28.42.1000"),
					paramIs(h, "NUM_OF_VFS", "16", "16"),
					rigCheck(func() error {
						if len(h.sets()) != setsBefore {
							return fmt.Errorf("a set ran: %q", h.sets()[setsBefore:])
						}
						// The refresh before the plan still used mlxconfig (the state's tool);
						// the apply and the refresh after it use mstflint's tools.
						var mst []string
						for _, c := range h.calls()[callsBefore:] {
							if strings.HasPrefix(c, "mstconfig ") || strings.HasPrefix(c, "mstflint ") {
								mst = append(mst, c)
							}
						}
						want := "mstconfig -d " + cx7 + " -e query LINK_TYPE_P1 SRIOV_EN"
						if len(mst) < 2 || mst[0] != want {
							return fmt.Errorf("mstflint calls %q, want %q first", mst, want)
						}
						return nil
					}),
				),
			},
			{
				// Without firmware_settings the HCA is an inventory record again.
				Config: h.hca(``),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckNoResourceAttr(addr, "pending_reboot"),
					resource.TestCheckNoResourceAttr(addr, "firmware_version"),
					rigCheck(func() error {
						if len(h.sets()) != setsBefore {
							return fmt.Errorf("a set ran: %q", h.sets()[setsBefore:])
						}
						return nil
					}),
				),
			},
		},
	})
}

// TestAccHCAFirmwareInvalid: unknown mlxconfig parameters and invalid values are refused at
// plan, with what was probably meant or what the parameter takes; a parameter listed in
// unchecked_parameters passes the plan and is judged by the card at apply, whose refusal names
// the device and the parameter; firmware settings without ssh_host or without SSH settings are
// refused with what to set.
func TestAccHCAFirmwareInvalid(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	h := startHCANode(t)
	withSettings := func(s string) string { return h.hca("  firmware_settings = { " + s + " }") }
	plan := []struct{ config, want string }{
		{withSettings(`LINK_TYPE = "IB"`), `unknown mlxconfig parameter "LINK_TYPE": it is set per port; did you mean one of LINK_TYPE_P1, LINK_TYPE_P2`},
		{withSettings(`SRIOV_ENABLE = "True"`), `unknown mlxconfig parameter "SRIOV_ENABLE"`},
		{withSettings(`sriov_en = "True"`), `parameter names are upper case; did you mean SRIOV_EN?`},
		{withSettings(`LINK_TYPE_P1 = "INFINIBAND"`), `invalid value "INFINIBAND" for LINK_TYPE_P1`},
		{withSettings(`NUM_OF_VFS = "sixteen"`), `invalid value "sixteen" for NUM_OF_VFS`},
		{withSettings(`"LINK TYPE" = "IB"`), `must be an mlxconfig parameter name`},
		{h.hca(`  reset = 2`), `Attribute reset value must be one of`},
		{strings.Replace(h.hca(``), h.tool, "/usr/bin/ethtool", 1), `Attribute tool must be "mlxconfig", "mstconfig" or an absolute path`},
		{h.provider() + `
resource "gpucluster_hca" "h" {
  node              = "gpu001"
  device            = "mlx5_0"
  port_guid         = "0x0002c90300010000"
  firmware_settings = { LINK_TYPE_P1 = "IB" }
}`, `the HCA needs ssh_host, e.g. ssh_host = gpucluster_node.gpu001.ssh_host`},
	}
	var steps []resource.TestStep
	for _, p := range plan {
		steps = append(steps, resource.TestStep{Config: p.config, PlanOnly: true, ExpectError: re(p.want)})
	}
	newParam := withSettings(`LINK_TYPE_P1 = "IB", NEW_FW_KNOB = "1"`)
	newParam = strings.Replace(newParam, "  firmware_settings", "  unchecked_parameters = [\"NEW_FW_KNOB\"]\n  firmware_settings", 1)
	steps = append(steps,
		resource.TestStep{Config: newParam, PlanOnly: true, ExpectNonEmptyPlan: true},
		resource.TestStep{Config: newParam, ExpectError: re(`mlxconfig on device ` + cx7 + `, parameter NEW_FW_KNOB: Unknown Parameter: NEW_FW_KNOB`)},
		resource.TestStep{
			// No SSH settings at all: refused before anything runs, with what to set.
			Config: strings.Replace(h.hca(`  firmware_settings = { LINK_TYPE_P1 = "IB" }`), h.provider(), "", 1),
			ExpectError: re(`no SSH user, private_key, known_hosts_file (host keys are always checked) for ` + h.sshd.Addr() +
				`: set them in the provider's ssh = { ... } block`),
		},
	)
	start := time.Now()
	resource.Test(t, resource.TestCase{ProtoV6ProviderFactories: testProviders, Steps: steps})
	t.Logf("%d steps in %s", len(steps), time.Since(start).Round(time.Millisecond))
	if s := h.sets(); len(s) != 0 {
		t.Fatalf("the card was changed: %q", s)
	}
}

// TestAccHCAFirmwareNodeDown: a node whose sshd is down makes the refresh warn and keep the
// state (the plan goes through, empty), while an apply that needs the node fails naming the HCA,
// the device and the host; a node that comes back with another host key is refused outright.
func TestAccHCAFirmwareNodeDown(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	h := startHCANode(t)
	settings := func(vfs string) string {
		return h.hca(`
  firmware_settings = {
    LINK_TYPE_P1 = "IB"
    NUM_OF_VFS   = "` + vfs + `"
  }
`)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: settings("16")},
			{PreConfig: h.sshd.Stop, Config: settings("16"), PlanOnly: true},
			{
				Config:      settings("32"),
				ExpectError: re(`HCA "gpu001/mlx5_0" (device ` + cx7 + ` on ` + h.sshd.Addr() + `, ` + h.tool + `): remote: connecting to ` + h.sshd.Addr()),
			},
			{
				PreConfig:   func() { h.sshd.RestartWithNewHostKey(t) },
				Config:      settings("16"),
				PlanOnly:    true,
				ExpectError: re(`REMOTE HOST IDENTIFICATION HAS CHANGED for ` + h.sshd.Addr()),
			},
		},
	})
	if n, _, _ := h.param("NUM_OF_VFS"); n != "16" {
		t.Fatalf("NUM_OF_VFS %s", n)
	}
}
