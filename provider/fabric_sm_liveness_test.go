package provider

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccFabricSubnetManagerLiveness (issue 22, item 4): OpenSM SIGKILLed on the SM host with its
// files in sync used to plan as "No changes" through every apply. Now the refresh reads whether
// it runs: the plan shows the OpenSM files as a change (what OpenSM runs is nothing), the apply
// starts it with the rendered files and verifies ftree, and the plan after that is empty.
func TestAccFabricSubnetManagerLiveness(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	r := startSMRig(t)
	const f = "gpucluster_fabric.f"
	cfg := r.fabricSMConfig("")
	var pid int
	kill := func() {
		pid = r.svc.PID()
		if pid == 0 {
			t.Fatal("OpenSM is not running before the kill")
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if !testrig.WaitFor(10*time.Second, func() bool { return r.svc.PID() == 0 }) {
			t.Fatalf("OpenSM %d still there after SIGKILL", pid)
		}
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{Config: cfg, Check: r.checkFilesOnHost(t)},
			{
				// Dead with its files in sync: the plan is not empty, and says why.
				PreConfig:          kill,
				Config:             cfg,
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				// The apply restarts it with the rendered files and verifies its routing.
				Config: cfg,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(f, plancheck.ResourceActionUpdate),
					expectDigestChange{files: opensm.FileNames},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					r.checkFilesOnHost(t),
					func(*terraform.State) error {
						now := r.svc.PID()
						if now == 0 || now == pid {
							return fmt.Errorf("OpenSM not restarted by the apply (pid %d, killed %d)", now, pid)
						}
						log := r.logText()
						if v := opensm.ParseLog(log[strings.LastIndex(log, "Entering DISCOVERING state"):]); v.Engine != "ftree" || v.Roots != 2 {
							return fmt.Errorf("after the repair OpenSM routes with %q, %d roots", v.Engine, v.Roots)
						}
						return nil
					},
				),
			},
			// And the plan after the repair is empty (the framework checks it after each apply;
			// once more here, explicitly).
			{Config: cfg, PlanOnly: true},
		},
	})
}
