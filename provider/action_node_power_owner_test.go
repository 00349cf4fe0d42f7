package provider

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccActionNodePowerNamesItsBMC: an action names what it touches (issue 32: node = "gpu999"
// with gpu001's bmc powered gpu001 and logged "node gpu999: already on"). With gpucluster_node
// gpu001 applied in the same run on the Redfish rig, the power action given gpu001's bmc under
// the name gpu999 is refused on `node`, naming the BMC and its node, before the BMC is asked
// anything (the rig records no reset and no change); under gpu001's own name it runs.
func TestAccActionNodePowerNamesItsBMC(t *testing.T) {
	requireAcc(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{RestartTime: 100 * 1e6})
	rig.SetPowerOutOfBand("On")
	config := func(name, input string) string {
		return rfNode(rig, "") + fmt.Sprintf(`
action "gpucluster_node_power" "p" {
  config {
    node  = %s
    bmc   = gpucluster_node.n.bmc
    power = "force_restart"
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
`, name, input)
	}
	var resets int
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      config(`"gpu999"`, "window-1"),
				ExpectError: regexp.MustCompile(fmt.Sprintf(`(?s)bmc is another node's BMC.*The BMC at 127\.0\.0\.1:%d is\s+gpucluster_node\s+"gpu001"'s.*node\s+is\s+"gpu999"`, rig.Port)),
			},
			{
				PreConfig: func() {
					if got := rig.Resets(); len(got) != 0 {
						t.Errorf("the refused action reached the BMC: %v", got)
					}
				},
				Config: config("gpucluster_node.n.name", "window-2"),
				Check: rigCheck(func() error {
					if got := rig.Resets(); len(got) != resets+1 || got[resets] != "ComputerSystem.Reset ForceRestart" {
						return fmt.Errorf("under its own name the action did not run once: %v", got)
					}
					return nil
				}),
			},
		},
	})
}
