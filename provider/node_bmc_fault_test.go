package provider

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccNodeBMCUsersRemoved: an account taken out of bmc_users leaves the BMC, on the Redfish
// rig (fixed slots: the slot is cleared) and on ipmi_sim (the slot is disabled, NO ACCESS, its
// name cleared); taking bmc_users out altogether removes the rest; the login account stays.
func TestAccNodeBMCUsersRemoved(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	sim := testrig.StartIPMISim(t)
	const pw = "0ps-Passw0rd"
	ipmiNode := func(body string) string {
		return fmt.Sprintf(`resource "gpucluster_node" "i" {
  name       = "gpu002"
  rack       = "r01"
  position_u = 4
  bmc = {
    endpoint  = "127.0.0.1"
    port      = %d
    protocols = ["ipmi"]
    username  = %s
    password  = %s
  }
%s
}`, sim.Port, hclString(sim.User), hclString(sim.Password), body)
	}
	both := func(users string) string {
		return rfNode(rig, users) + "\n" + ipmiNode(users)
	}
	two := `  bmc_users = [{ name = "ops", role = "Operator", password = "` + pw + `" }, { name = "dev", role = "ReadOnly", password = "` + pw + `" }]`
	one := `  bmc_users = [{ name = "ops", role = "Operator", password = "` + pw + `" }]`
	ipmiUsers := func() map[string]bool {
		out := map[string]bool{}
		for _, line := range ipmiUserList(t, sim) {
			out[line] = true
		}
		return out
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: both(two),
				Check: rigCheck(func() error {
					_, ops := rigAccount(rig, "ops")
					_, dev := rigAccount(rig, "dev")
					if u := ipmiUsers(); !ops || !dev || !u["ops"] || !u["dev"] {
						return fmt.Errorf("accounts not created: redfish ops %t dev %t, ipmi %v", ops, dev, u)
					}
					return nil
				}),
			},
			{
				Config: both(one),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr("gpucluster_node.n", "bmc_users.#", "1"),
					rigCheck(func() error {
						for _, a := range rig.Accounts() {
							if a.UserName == "dev" {
								return fmt.Errorf("dev is still on the Redfish BMC: %+v", a)
							}
						}
						if rig.CheckPassword("dev", pw) {
							return fmt.Errorf("dev still logs in to the Redfish BMC")
						}
						if u := ipmiUsers(); u["dev"] || !u["ops"] {
							return fmt.Errorf("ipmi_sim users after removing dev: %v", u)
						}
						return nil
					}),
				),
			},
			{
				Config: both(""),
				Check: rigCheck(func() error {
					if _, ok := rigAccount(rig, "ops"); ok {
						return fmt.Errorf("ops is still on the Redfish BMC")
					}
					if _, ok := rigAccount(rig, rig.Username); !ok {
						return fmt.Errorf("the login account was removed")
					}
					if u := ipmiUsers(); u["ops"] || !u[sim.User] {
						return fmt.Errorf("ipmi_sim users after removing bmc_users: %v", u)
					}
					return nil
				}),
			},
		},
	})
}

// TestAccNodeResetAfterBIOS: on a running host, BIOS settings stay pending with the default
// reset_after_bios = "none"; with "graceful" the apply restarts the host through Redfish and the
// settings are in effect when it returns, with an empty plan afterwards.
func TestAccNodeResetAfterBIOS(t *testing.T) {
	requireAcc(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	on := `  power_state = "on"
`
	bios := on + `  bios_settings = { PowerProfile = "MaxPerf" }
`
	const n = "gpucluster_node.n"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: rfNode(rig, on)},
			{
				Config: rfNode(rig, bios),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(n, "reset_after_bios", "none"),
					rigCheck(func() error {
						if rig.PendingBIOS()["PowerProfile"] != "MaxPerf" || rig.BIOS()["PowerProfile"] == "MaxPerf" {
							return fmt.Errorf("without reset_after_bios the setting should wait: BIOS %v pending %v", rig.BIOS(), rig.PendingBIOS())
						}
						return nil
					}),
				),
			},
			{
				Config: rfNode(rig, bios+`  reset_after_bios = "graceful"
`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(n, "bios_settings.PowerProfile", "MaxPerf"),
					resource.TestCheckResourceAttr(n, "power_state", "on"),
					rigCheck(func() error {
						if rig.BIOS()["PowerProfile"] != "MaxPerf" || len(rig.PendingBIOS()) != 0 || rig.PowerState() != "On" {
							return fmt.Errorf("after the graceful restart: BIOS %v pending %v power %s", rig.BIOS(), rig.PendingBIOS(), rig.PowerState())
						}
						return nil
					}),
				),
			},
			{
				// A setting that is already in effect does not restart the host again.
				Config: rfNode(rig, bios+`  reset_after_bios = "graceful"
`),
				PlanOnly: true,
			},
		},
	})
}

// ipmiUserList returns the names of the enabled, accessible accounts of ipmi_sim's LAN channel,
// read with ipmitool itself (not through the provider's parser).
func ipmiUserList(t *testing.T, sim *testrig.IPMISim) []string {
	t.Helper()
	cmd := exec.Command("ipmitool", "-I", "lanplus", "-H", sim.Endpoint, "-p", strconv.Itoa(sim.Port), "-U", sim.User, "-E", "-C", "3", "user", "list", "1")
	cmd.Env = []string{"IPMITOOL_PASSWORD=" + sim.Password}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ipmitool user list: %v\n%s", err, out)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		// ID Name Callin LinkAuth IPMIMsg Priv...: a named slot with a privilege other than NO ACCESS.
		if len(f) >= 6 && f[1] != "true" && f[1] != "false" && !strings.Contains(line, "NO ACCESS") && f[0] != "ID" {
			names = append(names, f[1])
		}
	}
	return names
}
