package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-version"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bmc"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// actionsVersion is the first Terraform with actions (and list resources, `terraform query`).
var actionsVersion = version.Must(version.NewVersion("1.14.0"))

// requireTerraform skips the test, saying why, when the CLI the acceptance tests run
// (TF_ACC_TERRAFORM_PATH) is older than least (what terraform-plugin-testing's
// tfversion.SkipBelow does for resource.Test) or is OpenTofu, which has neither actions nor list
// resources in 1.12. It runs before newTerraformCLI, which builds the provider.
func requireTerraform(t *testing.T, least *version.Version, what string) {
	t.Helper()
	tf := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if tf == "" {
		tf = "terraform"
	}
	cmd := exec.Command(tf, "version", "-json")
	cmd.Env = append(os.Environ(), "CHECKPOINT_DISABLE=1")
	out, err := cmd.Output()
	var v struct {
		Version string `json:"terraform_version"`
	}
	if i := strings.Index(string(out), "{"); err != nil || i < 0 || json.Unmarshal(out[i:], &v) != nil {
		t.Fatalf("%s version -json: %v\n%s", tf, err, out)
	}
	got, err := version.NewVersion(v.Version)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(filepath.Base(tf), "tofu") || got.Core().LessThan(least) {
		t.Skipf("%s needs Terraform %s or later; %s is %s", what, least, tf, got)
	}
}

// writeConfig writes main.tf, requiring the provider from its address, into a new directory.
func writeConfig(t *testing.T, hcl string) string {
	t.Helper()
	dir := t.TempDir()
	writeConfigIn(t, dir, hcl)
	return dir
}

// writeConfigIn writes the configuration into dir, replacing its main.tf (the state stays).
func writeConfigIn(t *testing.T, dir, hcl string) {
	t.Helper()
	hcl = "terraform {\n  required_providers {\n    gpucluster = { source = \"gpucluster/gpucluster\" }\n  }\n}\n" + hcl
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rfPowerActions declares gpucluster_node gpu001 on the Redfish rig's BMC and one
// gpucluster_node_power action per operation on it, named after the operation; the credentials
// are the provider's.
func rfPowerActions(rig *testrig.Redfish) string {
	var b strings.Builder
	fmt.Fprintf(&b, `provider "gpucluster" {
  bmc = { username = %s, password = %s }
}
resource "gpucluster_node" "gpu001" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
  bmc        = { endpoint = "127.0.0.1", port = %d, protocols = ["redfish"], tls_ca_pem = %s }
}
`, hclString(rig.Username), hclString(rig.Password), rig.Port, hclString(rig.CAPEM))
	for _, op := range bmc.PowerOps {
		fmt.Fprintf(&b, `
action "gpucluster_node_power" %q {
  config {
    node  = gpucluster_node.gpu001
    power = %q
  }
}
`, op, op)
	}
	return b.String()
}

// TestAccActionNodePowerInvoke runs the power action as an operator does, `terraform apply
// -invoke`, on a gpucluster_node applied before, against the Redfish rig: each operation reaches the BMC as the Redfish call it names
// (the rig's own record), `on`/`off` do nothing when the host is already so, a restart of a host
// that is off is refused, a BMC reset restarts the manager and leaves the host alone, and no
// output shows the password.
func TestAccActionNodePowerInvoke(t *testing.T) {
	requireAcc(t)
	requireTerraform(t, actionsVersion, "actions")
	c := newTerraformCLI(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{RestartTime: 300 * time.Millisecond})
	rig.SetPowerOutOfBand("On")
	dir := writeConfig(t, rfPowerActions(rig))
	c.run(dir, "apply", "-auto-approve", "-input=false", "-no-color") // the node, in the state the actions read
	if got := rig.Resets(); len(got) != 0 {
		t.Fatalf("creating the node reset the host: %v", got)
	}
	invoke := func(op string) (string, error) {
		out, err := c.try(dir, "apply", "-auto-approve", "-input=false", "-no-color", "-invoke=action.gpucluster_node_power."+op)
		if strings.Contains(out, rig.Password) {
			t.Fatalf("the output of %s shows the BMC password:\n%s", op, out)
		}
		return out, err
	}
	mustInvoke := func(op string) string {
		t.Helper()
		out, err := invoke(op)
		if err != nil {
			t.Fatalf("invoke %s: %v\n%s", op, err, out)
		}
		return out
	}

	out := mustInvoke(bmc.PowerForceRestart)
	t.Logf("terraform apply -invoke=action.gpucluster_node_power.force_restart:\n%s", out)
	if got := rig.Resets(); !reflect.DeepEqual(got, []string{"ComputerSystem.Reset ForceRestart"}) {
		t.Fatalf("after force_restart the rig saw %v", got)
	}
	if !strings.Contains(out, "node gpu001 (BMC 127.0.0.1:"+fmt.Sprint(rig.Port)+"): on again after force_restart") {
		t.Errorf("no progress line in the output:\n%s", out)
	}
	mustInvoke(bmc.PowerCycle)
	mustInvoke(bmc.PowerGracefulRestart)
	if got := rig.Resets()[1:]; !reflect.DeepEqual(got, []string{"ComputerSystem.Reset PowerCycle", "ComputerSystem.Reset GracefulRestart"}) {
		t.Fatalf("after power_cycle and graceful_restart the rig saw %v", got)
	}
	mustInvoke(bmc.PowerOff)
	if rig.PowerState() != "Off" {
		t.Fatalf("power %s after off", rig.PowerState())
	}
	resets := len(rig.Resets())
	changes := len(rig.Changes())
	if out := mustInvoke(bmc.PowerOff); !strings.Contains(out, "already off") || len(rig.Changes()) != changes {
		t.Errorf("off on a host that is off changed the BMC (%v) or said nothing:\n%s", rig.Changes()[changes:], out)
	}
	out, err := invoke(bmc.PowerForceRestart)
	if err == nil || !strings.Contains(out, "Node gpu001 is off") || len(rig.Resets()) != resets {
		t.Fatalf("force_restart of a host that is off: %v, resets %v\n%s", err, rig.Resets(), out)
	}
	out = mustInvoke(bmc.PowerBMCReset)
	if got := rig.Resets()[resets:]; !reflect.DeepEqual(got, []string{"Manager.Reset GracefulRestart"}) || rig.PowerState() != "Off" {
		t.Fatalf("bmc_reset: the rig saw %v, host %s", got, rig.PowerState())
	}
	if !strings.Contains(out, "answers again") {
		t.Errorf("bmc_reset returned before the BMC answered again:\n%s", out)
	}
	mustInvoke(bmc.PowerOn)
	if rig.PowerState() != "On" {
		t.Fatalf("power %s after on", rig.PowerState())
	}
}

// TestAccActionNodePowerTrigger runs the action from an action_trigger, over IPMI against
// ipmi_sim, on a gpucluster_node created in the same run: creating the resource that triggers it power-cycles the host (the chassis control
// program sees it go off and on), and graceful_restart, which IPMI does not have, fails the apply
// with the reason.
func TestAccActionNodePowerTrigger(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	sim := testrig.StartIPMISim(t)
	sim.SetPowerOutOfBand(true)
	config := func(op, input string) string {
		return fmt.Sprintf(`provider "gpucluster" {
  bmc = { username = %s, password = %s }
}
resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
  bmc        = { endpoint = %q, port = %d, protocols = ["ipmi"] }
}
action "gpucluster_node_power" "p" {
  config {
    node  = gpucluster_node.n
    power = %q
  }
}
resource "terraform_data" "maintenance" {
  input = [gpucluster_node.n.id, %q]
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.gpucluster_node_power.p]
    }
  }
}
`, hclString(sim.User), hclString(sim.Password), sim.Endpoint, sim.Port, op, input)
	}
	var calls int
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				PreConfig: func() { calls = len(sim.ChassisCalls()) },
				Config:    config(bmc.PowerCycle, "window-1"),
				Check: rigCheck(func() error {
					got := strings.Join(sim.ChassisCalls()[calls:], "\n")
					if i, j := strings.Index(got, "set power 0"), strings.LastIndex(got, "set power 1"); i < 0 || j < i || sim.PowerState() != "on" {
						return fmt.Errorf("power_cycle: chassis calls %q, power %s", got, sim.PowerState())
					}
					return nil
				}),
			},
			{
				Config:      config(bmc.PowerGracefulRestart, "window-2"),
				ExpectError: re("IPMI has no graceful restart"),
			},
		},
	})
}
