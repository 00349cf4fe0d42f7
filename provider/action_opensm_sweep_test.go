package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccActionOpenSMSweep runs the sweep as the fabric's action_trigger, against OpenSM on ibsim
// behind a real sshd: a partition change is pushed by the fabric (one SIGHUP, verified) and then
// swept by the action (a second heavy sweep, verified from the files on the host), OpenSM is
// signalled and never restarted, and the new member holds the partition's key on its port
// (smpquery, not OpenSM's log). Then the action alone, triggered by another resource, sweeps once
// more without any push.
func TestAccActionOpenSMSweep(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	r := startSMRig(t)
	// The sweep takes the same subnet_manager object as the fabric (local.sm), and is triggered
	// by the fabric's update, as the action's documentation shows.
	config := func(more string, moreCompute ...int) string {
		hcl := r.fabricSMConfig("", moreCompute...)
		// The key marked sensitive where it comes from, so the action's plan does not show it.
		hcl = regexp.MustCompile(`ssh_private_key = file\(("[^"]*")\)`).ReplaceAllString(hcl, "ssh_private_key = sensitive(file($1))")
		hcl = strings.Replace(hcl, "  subnet_manager = local.sm\n}", `  subnet_manager = local.sm
  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.gpucluster_opensm_sweep.sm]
    }
  }
}`, 1)
		return hcl + `
action "gpucluster_opensm_sweep" "sm" {
  config {
    subnet_manager = local.sm
  }
}
` + more
	}
	routingRuns := func() int { return strings.Count(r.logText(), "tables configured on all switches") }
	var runs, pid int
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: config(""),
				Check: rigCheck(func() error {
					runs, pid = routingRuns(), r.svc.PID()
					if pid == 0 {
						return fmt.Errorf("OpenSM is not running after the first push")
					}
					return nil
				}),
			},
			{
				Config: config("", 40),
				Check: rigCheck(func() error {
					if got := routingRuns() - runs; got != 2 {
						return fmt.Errorf("%d routing runs after the partition change, want 2 (the push's and the sweep's)", got)
					}
					if r.svc.PID() != pid {
						return fmt.Errorf("OpenSM was restarted (pid %d, was %d)", r.svc.PID(), pid)
					}
					if p := r.pkeys(t, 40); !strings.Contains(p, "0x8001") {
						return fmt.Errorf("HCA 40 lacks the compute key after the change:\n%s", p)
					}
					runs = routingRuns()
					return nil
				}),
			},
			{
				Config: config(`
resource "terraform_data" "cable_swap" {
  input = "leaf01:1 replaced"
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.gpucluster_opensm_sweep.sm]
    }
  }
}
`, 40),
				Check: rigCheck(func() error {
					if got := routingRuns() - runs; got != 1 || r.svc.PID() != pid {
						return fmt.Errorf("%d routing runs (want 1, the sweep's alone), pid %d (was %d)", got, r.svc.PID(), pid)
					}
					return nil
				}),
			},
		},
	})
}
