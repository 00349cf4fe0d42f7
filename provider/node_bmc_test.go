package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// expectBefore is a plan check on the value an attribute had in the refreshed state, before the
// change: it proves that the plan saw drift, not just that it has something to do.
type expectBefore struct {
	addr string
	path []string
	want any
}

func (c expectBefore) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Address != c.addr {
			continue
		}
		v := rc.Change.Before
		for _, p := range c.path {
			m, ok := v.(map[string]any)
			if !ok {
				resp.Error = fmt.Errorf("%s: before value has no %s", c.addr, strings.Join(c.path, "."))
				return
			}
			v = m[p]
		}
		if fmt.Sprint(v) != fmt.Sprint(c.want) {
			resp.Error = fmt.Errorf("%s: %s was %v before the change, want %v", c.addr, strings.Join(c.path, "."), v, c.want)
		}
		return
	}
	resp.Error = fmt.Errorf("no change planned for %s", c.addr)
}

// errorCheck is a TestCase.ErrorCheck that accepts the error of one step when it says all of
// want and none of the secrets (ExpectError can only say what must match). It records that it
// ran, so the test can fail when the step did not fail at all.
type errorCheck struct {
	mu      sync.Mutex
	t       *testing.T
	want    []string
	secrets []string
	seen    []string
	at      time.Time
}

func (e *errorCheck) check(err error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.at = time.Now()
	text := strings.Join(strings.Fields(err.Error()), " ")
	e.seen = append(e.seen, text)
	for _, s := range e.secrets {
		if s != "" && strings.Contains(err.Error(), s) {
			return fmt.Errorf("the error shows a password:\n%s", err)
		}
	}
	for _, w := range e.want {
		if !strings.Contains(text, w) {
			return fmt.Errorf("the error does not say %q:\n%s", w, err)
		}
	}
	return nil
}

func (e *errorCheck) requireSeen() {
	e.t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.seen) == 0 {
		e.t.Fatal("the step did not fail")
	}
	e.t.Logf("the error, as expected: %s", e.seen[0])
}

func hclString(s string) string { return strconv.Quote(s) }

// rfNode is a node whose BMC is the Redfish rig; body holds the BMC attributes.
func rfNode(rig *testrig.Redfish, body string) string {
	return fmt.Sprintf(`provider "gpucluster" {
  bmc = { username = %s, password = %s }
}

resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
  bmc = {
    endpoint   = "127.0.0.1"
    port       = %d
    protocols  = ["redfish"]
    tls_ca_pem = %s
  }
%s
}`, hclString(rig.Username), hclString(rig.Password), rig.Port, hclString(rig.CAPEM), body)
}

func rigAccount(rig *testrig.Redfish, name string) (testrig.RedfishAccount, bool) {
	for _, a := range rig.Accounts() {
		if a.UserName == name && a.Enabled {
			return a, true
		}
	}
	return testrig.RedfishAccount{}, false
}

func rigCheck(f func() error) resource.TestCheckFunc {
	return func(*terraform.State) error { return f() }
}

// TestAccNodeRedfish brings a node up through the Redfish rig (power, boot override persistent
// and once, UEFI and Legacy, an account with a write-only password, BIOS settings, inventory),
// sees out-of-band changes as drift and undoes them, does not count a used-up one-time override
// as drift, and leaves the server alone when bmc is removed and when the node is destroyed.
func TestAccNodeRedfish(t *testing.T) {
	requireAcc(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{ConsumeOnceOverride: true})
	const pw1, pw2 = "0ps-Passw0rd-1", "0ps-Passw0rd-2"
	step1 := rfNode(rig, `
  power_state = "on"
  boot_device = { device = "pxe", persistent = true }
  bmc_users   = [{ name = "ops", role = "Operator", password = "`+pw1+`" }]
  bios_settings = {
    ProcHyperthreading = "Disabled"
    NumaNodesPerSocket = "4"
  }
`)
	const n = "gpucluster_node.n"
	var changesBefore int
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: rigCheck(func() error {
			if got := len(rig.Changes()); got != changesBefore || rig.PowerState() != "On" {
				return fmt.Errorf("destroy touched the BMC: %d changes (had %d), power %s", got, changesBefore, rig.PowerState())
			}
			return nil
		}),
		Steps: []resource.TestStep{
			{
				Config: step1,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(n, "power_state", "on"),
					resource.TestCheckResourceAttr(n, "boot_device.device", "pxe"),
					resource.TestCheckResourceAttr(n, "boot_device.persistent", "true"),
					resource.TestCheckResourceAttr(n, "boot_device.efi", "true"),
					resource.TestCheckResourceAttr(n, "inventory.protocol", "redfish"),
					resource.TestCheckResourceAttr(n, "inventory.vendor", "NVIDIA"),
					resource.TestCheckResourceAttr(n, "inventory.model", "DGX H100"),
					resource.TestCheckResourceAttr(n, "inventory.serial", "1560823000042"),
					resource.TestCheckResourceAttr(n, "inventory.bmc_firmware", "24.09.17"),
					resource.TestCheckResourceAttr(n, "inventory.bios_firmware", "1.6.7"),
					resource.TestCheckResourceAttr(n, "model", "DGX-H100"),
					resource.TestCheckResourceAttr(n, "bmc_users.0.role", "Operator"),
					resource.TestCheckNoResourceAttr(n, "bmc_users.0.password"),
					resource.TestCheckResourceAttr(n, "bios_settings.NumaNodesPerSocket", "4"),
					rigCheck(func() error {
						if rig.PowerState() != "On" {
							return fmt.Errorf("rig power %s", rig.PowerState())
						}
						if tgt, en, mode := rig.Boot(); tgt != "Pxe" || en != "Continuous" || mode != "UEFI" {
							return fmt.Errorf("rig boot %s %s %s", tgt, en, mode)
						}
						if a, ok := rigAccount(rig, "ops"); !ok || a.RoleID != "Operator" || !rig.CheckPassword("ops", pw1) {
							return fmt.Errorf("rig account ops: %+v %t", a, ok)
						}
						// BIOS settings went in before the power-on, which applied them.
						if b := rig.BIOS(); b["ProcHyperthreading"] != "Disabled" || b["NumaNodesPerSocket"] != float64(4) {
							return fmt.Errorf("rig BIOS %v", b)
						}
						return nil
					}),
				),
			},
			{Config: step1, PlanOnly: true},
			{
				// Changes at the console: power, boot override, a BIOS setting, a firmware update.
				PreConfig: func() {
					rig.SetPowerOutOfBand("Off")
					rig.SetBootOutOfBand("Hdd", "Continuous", "UEFI")
					rig.SetBIOSOutOfBand("ProcHyperthreading", "Enabled")
					rig.SetFirmwareOutOfBand("25.01.02", "1.7.0")
				},
				Config: step1,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(n, plancheck.ResourceActionUpdate),
					expectBefore{n, []string{"power_state"}, "off"},
					expectBefore{n, []string{"boot_device", "device"}, "disk"},
					expectBefore{n, []string{"bios_settings", "ProcHyperthreading"}, "Enabled"},
					plancheck.ExpectKnownValue(n, tfjsonpath.New("inventory").AtMapKey("bmc_firmware"), knownvalue.StringExact("25.01.02")),
					plancheck.ExpectKnownValue(n, tfjsonpath.New("inventory").AtMapKey("bios_firmware"), knownvalue.StringExact("1.7.0")),
				}},
				Check: rigCheck(func() error {
					if tgt, en, _ := rig.Boot(); rig.PowerState() != "On" || tgt != "Pxe" || en != "Continuous" || rig.BIOS()["ProcHyperthreading"] != "Disabled" {
						return fmt.Errorf("drift not undone: power %s boot %s %s BIOS %v", rig.PowerState(), tgt, en, rig.BIOS())
					}
					return nil
				}),
			},
			{
				// A new role and password for the account, a one-time Legacy PXE boot, power off.
				Config: rfNode(rig, `
  power_state = "off"
  boot_device = { device = "pxe", efi = false }
  bmc_users   = [{ name = "ops", role = "Administrator", password = "`+pw2+`", password_version = "2" }]
  bios_settings = {
    ProcHyperthreading = "Disabled"
    NumaNodesPerSocket = "4"
  }
`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(n, "bmc_users.0.role", "Administrator"),
					resource.TestCheckResourceAttr(n, "bmc_users.0.password_version", "2"),
					resource.TestCheckNoResourceAttr(n, "bmc_users.0.password"),
					rigCheck(func() error {
						if a, ok := rigAccount(rig, "ops"); !ok || a.RoleID != "Administrator" || !rig.CheckPassword("ops", pw2) || rig.CheckPassword("ops", pw1) {
							return fmt.Errorf("rig account ops after rotation: %+v %t", a, ok)
						}
						if tgt, en, mode := rig.Boot(); rig.PowerState() != "Off" || tgt != "Pxe" || en != "Once" || mode != "Legacy" {
							return fmt.Errorf("rig power %s boot %s %s %s", rig.PowerState(), tgt, en, mode)
						}
						return nil
					}),
				),
			},
			{
				// Power on: the host boots and uses up the one-time override. That is what was
				// asked for, so the plan after this apply must be empty (the harness checks it).
				Config: rfNode(rig, `
  power_state = "on"
  boot_device = { device = "pxe", efi = false }
  bmc_users   = [{ name = "ops", role = "Administrator", password = "`+pw2+`", password_version = "2" }]
`),
				Check: rigCheck(func() error {
					if tgt, en, _ := rig.Boot(); rig.PowerState() != "On" || tgt != "None" || en != "Disabled" {
						return fmt.Errorf("rig power %s boot %s %s: the host should have used the override", rig.PowerState(), tgt, en)
					}
					return nil
				}),
			},
			{
				// Without bmc the node is an inventory record again; the server is left as it is.
				PreConfig: func() { changesBefore = len(rig.Changes()) },
				Config: `
resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
}`,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckNoResourceAttr(n, "bmc.endpoint"),
					resource.TestCheckNoResourceAttr(n, "power_state"),
					resource.TestCheckNoResourceAttr(n, "inventory.vendor"),
					rigCheck(func() error {
						if got := len(rig.Changes()); got != changesBefore {
							return fmt.Errorf("removing bmc changed the BMC: %+v", rig.Changes()[changesBefore:])
						}
						return nil
					}),
				),
			},
		},
	})
}

// TestAccNodeIPMI brings a node up through ipmi_sim: power on and a PXE boot, read back from the
// simulator's chassis; an out-of-band power-off is drift and is undone; with Redfish first and
// nothing answering Redfish, the node falls back to IPMI. The BMC credentials are the node's own
// (no provider defaults).
func TestAccNodeIPMI(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	sim := testrig.StartIPMISim(t)
	node := func(bmcExtra, body string) string {
		return fmt.Sprintf(`resource "gpucluster_node" "n" {
  name       = "gpu002"
  rack       = "r01"
  position_u = 4
  bmc = {
    endpoint = "127.0.0.1"
    username = %s
    password = %s
%s
  }
%s
}`, hclString(sim.User), hclString(sim.Password), bmcExtra, body)
	}
	ipmiOnly := node(fmt.Sprintf(`    port      = %d
    protocols = ["ipmi"]`, sim.Port), `
  power_state = "on"
  boot_device = { device = "pxe", efi = false }
`)
	deadRedfish := testrig.FreePort(t)
	const n = "gpucluster_node.n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: ipmiOnly,
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(n, "power_state", "on"),
					resource.TestCheckResourceAttr(n, "boot_device.device", "pxe"),
					resource.TestCheckResourceAttr(n, "inventory.protocol", "ipmi"),
					resource.TestCheckResourceAttr(n, "inventory.bmc_firmware", "9.08"),
					// ipmi_sim has no system firmware version: unknown, not ipmitool's refusal text.
					resource.TestCheckNoResourceAttr(n, "inventory.bios_firmware"),
					rigCheck(func() error {
						if sim.PowerState() != "on" || sim.BootDevice() != "pxe" {
							return fmt.Errorf("ipmi_sim power %s boot %s", sim.PowerState(), sim.BootDevice())
						}
						return nil
					}),
				),
			},
			{Config: ipmiOnly, PlanOnly: true},
			{
				PreConfig: func() { sim.SetPowerOutOfBand(false) },
				Config:    ipmiOnly,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(n, plancheck.ResourceActionUpdate),
					expectBefore{n, []string{"power_state"}, "off"},
				}},
				Check: rigCheck(func() error {
					if sim.PowerState() != "on" {
						return fmt.Errorf("ipmi_sim power %s after undoing the drift", sim.PowerState())
					}
					return nil
				}),
			},
			{
				// Default protocols: Redfish first (nothing listens on its port), IPMI as the
				// fallback on its own port. Another BMC target, so everything is set again.
				Config: node(fmt.Sprintf(`    port      = %d
    ipmi_port = %d`, deadRedfish, sim.Port), `
  power_state = "on"
  boot_device = { device = "disk", efi = false }
`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(n, "inventory.protocol", "ipmi"),
					resource.TestCheckResourceAttr(n, "boot_device.device", "disk"),
					rigCheck(func() error {
						if sim.BootDevice() != "default" { // ipmi_sim's word for disk
							return fmt.Errorf("ipmi_sim boot %s", sim.BootDevice())
						}
						return nil
					}),
				),
			},
		},
	})
}

// TestAccNodeBMCWrongPassword: a node's own wrong password (overriding the right one of the
// provider) fails, over Redfish and over IPMI, with an error that names the node, the BMC's
// host:port and protocol and what failed, and shows no password.
func TestAccNodeBMCWrongPassword(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	sim := testrig.StartIPMISim(t)
	const wrong = "Wr0ng-Passw0rd-42"

	ec := &errorCheck{t: t, secrets: []string{wrong, rig.Password},
		want: []string{`Node "gpu001"`, "BMC " + rig.Addr(0) + " (redfish)", "authentication failed", "check bmc.username and bmc.password"}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		ErrorCheck:               ec.check,
		Steps: []resource.TestStep{{Config: strings.Replace(rfNode(rig, `power_state = "on"`),
			"protocols  = [\"redfish\"]", "protocols  = [\"redfish\"]\n    password   = \""+wrong+"\"", 1)}},
	})
	ec.requireSeen()
	if rig.FailedLogins() == 0 || rig.PowerState() != "Off" {
		t.Fatalf("rig: %d failed logins, power %s", rig.FailedLogins(), rig.PowerState())
	}

	ec = &errorCheck{t: t, secrets: []string{wrong, sim.Password},
		want: []string{`Node "gpu002"`, "BMC " + sim.Addr() + " (ipmi)", "authentication failed"}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		ErrorCheck:               ec.check,
		Steps: []resource.TestStep{{Config: fmt.Sprintf(`provider "gpucluster" {
  bmc = { username = %s, password = %s }
}
resource "gpucluster_node" "n" {
  name       = "gpu002"
  rack       = "r01"
  position_u = 4
  bmc = {
    endpoint  = "127.0.0.1"
    port      = %d
    protocols = ["ipmi"]
    password  = %s
  }
  power_state = "on"
}`, hclString(sim.User), hclString(sim.Password), sim.Port, hclString(wrong))}},
	})
	ec.requireSeen()
	if sim.PowerState() != "off" {
		t.Fatalf("ipmi_sim powered on with a wrong password")
	}

	// No credentials anywhere: refused before any BMC is asked.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`resource "gpucluster_node" "n" {
  name       = "gpu003"
  rack       = "r01"
  position_u = 6
  bmc        = { endpoint = "127.0.0.1", port = %d }
}`, rig.Port),
			ExpectError: re(`has a BMC at 127.0.0.1 but no user name to log in with: set bmc.username on the node or username in the provider's bmc = { ... } block`),
		}},
	})
}

// TestAccNodeBMCDead: a BMC that stops answering fails the create within the node's create
// timeout, naming the node and the BMC; a refresh of a node whose BMC is down warns and keeps
// the state (one dead BMC must not stop a cluster's plan); an update then fails in time too.
func TestAccNodeBMCDead(t *testing.T) {
	requireAcc(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	t.Cleanup(rig.Unhang)
	const timeout = 3 * time.Second
	cfg := func(power string) string {
		return rfNode(rig, `
  power_state = "`+power+`"
  timeouts {
    create = "3s"
    read   = "2s"
    update = "3s"
  }
`)
	}
	const slack = 6 * time.Second // terraform's own plan and apply around the provider call

	var start time.Time
	ec := &errorCheck{t: t, secrets: []string{rig.Password},
		want: []string{`Node "gpu001"`, "BMC " + rig.Addr(0) + " (redfish)", "unreachable", "no answer within 3s"}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		ErrorCheck:               ec.check,
		Steps: []resource.TestStep{{
			PreConfig: func() { rig.Hang(); start = time.Now() },
			Config:    cfg("on"),
		}},
	})
	ec.requireSeen()
	if took := ec.at.Sub(start); took > timeout+slack {
		t.Fatalf("create on a dead BMC took %s (timeout %s)", took, timeout)
	} else {
		t.Logf("create on a dead BMC failed after %s (timeout %s, terraform included)", took.Round(time.Millisecond), timeout)
	}
	rig.Unhang()

	ec = &errorCheck{t: t, secrets: []string{rig.Password},
		want: []string{`Node "gpu001"`, "BMC " + rig.Addr(0) + " (redfish)", "unreachable"}}
	var refreshed time.Duration
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		ErrorCheck:               ec.check,
		Steps: []resource.TestStep{
			{Config: cfg("on")},
			{
				PreConfig: func() { rig.Hang(); start = time.Now() },
				Config:    cfg("on"),
				PlanOnly:  true, // the refresh warns and keeps the state: nothing to do
			},
			{
				PreConfig: func() { refreshed = time.Since(start); start = time.Now() },
				Config:    cfg("off"),
			},
			{
				// The BMC is back: the power-off that failed goes through.
				PreConfig: rig.Unhang,
				Config:    cfg("off"),
				Check: rigCheck(func() error {
					if rig.PowerState() != "Off" {
						return fmt.Errorf("rig power %s", rig.PowerState())
					}
					return nil
				}),
			},
		},
	})
	ec.requireSeen()
	if took := ec.at.Sub(start); took > 2*time.Second+timeout+slack {
		t.Fatalf("update on a dead BMC took %s (read timeout 2s, update timeout %s)", took, timeout)
	}
	if refreshed > 2*time.Second+slack {
		t.Fatalf("a plan with a dead BMC took %s (read timeout 2s)", refreshed)
	}
	t.Logf("plan with a dead BMC: %s; update: failed after %s", refreshed.Round(time.Millisecond), ec.at.Sub(start).Round(time.Millisecond))
}

// TestAccNodeBMCLogsNoSecret runs a create (login, account with a password, power) and a failed
// login with the provider's debug log on, and finds BMC log lines but no password in it.
func TestAccNodeBMCLogsNoSecret(t *testing.T) {
	requireAcc(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	dir := t.TempDir()
	t.Setenv("TF_LOG_PATH_MASK", filepath.Join(dir, "%s.log"))
	t.Setenv("TF_LOG", "TRACE")
	const opsPW, wrong = "0ps-L0g-Passw0rd", "Wr0ng-L0g-Passw0rd"
	ok := rfNode(rig, `
  power_state = "on"
  bmc_users   = [{ name = "ops", role = "Operator", password = "`+opsPW+`" }]
`)
	ec := &errorCheck{t: t, secrets: []string{wrong, rig.Password, opsPW}, want: []string{"authentication failed"}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		ErrorCheck:               ec.check,
		Steps: []resource.TestStep{
			{Config: ok},
			{Config: strings.Replace(ok, "protocols  = [\"redfish\"]", "protocols  = [\"redfish\"]\n    password   = \""+wrong+"\"", 1)},
		},
	})
	ec.requireSeen()
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	var logs strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		logs.Write(b)
	}
	// At TRACE the test harness itself logs each step's configuration, passwords included: those
	// lines are the test's, not the provider's.
	var kept []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "|") {
			kept = append(kept, l)
		}
	}
	text := strings.Join(kept, "\n")
	if !strings.Contains(text, "BMC session open") || !strings.Contains(text, "BMC protocol failed") {
		t.Fatalf("no BMC debug lines in the provider log (%d bytes in %d files)", len(text), len(files))
	}
	for _, s := range []string{opsPW, wrong, rig.Password} {
		if i := strings.Index(text, s); i >= 0 {
			lo := strings.LastIndex(text[:i], "\n")
			t.Fatalf("the provider log contains a password: %.600s", strings.ReplaceAll(text[lo+1:], s, "<PASSWORD>"))
		}
	}
	t.Logf("provider debug log: %d bytes, no password", len(text))
}
