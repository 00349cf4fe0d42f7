package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// lazyPlanCheck builds its check when the plan is there: for checks on values an earlier step
// learns (the waves, the failing node).
type lazyPlanCheck func() plancheck.PlanCheck

func (f lazyPlanCheck) CheckPlan(ctx context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	f().CheckPlan(ctx, req, resp)
}

// failBurn sets (or, with why "", clears) the double's burn fault on one card of the node: its
// burns fail while writing, with flint's "Burning FS4 image failed: <why>".
func (nd *rolloutNode) failBurn(t *testing.T, device, why string) {
	t.Helper()
	b, err := os.ReadFile(nd.state)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range as[[]any](t, st["devices"]) {
		dm := as[map[string]any](t, d)
		for _, a := range as[[]any](t, dm["aliases"]) {
			if a == device {
				dm["burn_error"], found = why, true
			}
		}
	}
	if !found {
		t.Fatalf("%s has no card %s", nd.name, device)
	}
	if b, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nd.state, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestAccFirmwareRolloutHCABurnFails: the second card of a wave-1 node fails its burn (the flint
// double's fault mode, flint's own error text). The rest of wave 1 finishes, the waves after it
// never start (no burn on their nodes), the error names the node, the device and flint's text,
// and what was done stays recorded: the next plan reads the burned cards at the baseline and
// plans only the failed card and the later wave; once the fault is cleared, that apply finishes
// the rollout.
func TestAccFirmwareRolloutHCABurnFails(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	dir := t.TempDir()
	shared := filepath.Join(dir, "calls.log")
	nodes := startRolloutNodes(t, 4, shared)
	image := writeRolloutImage(t, dir)
	byName := map[string]*rolloutNode{}
	for _, nd := range nodes {
		byName[nd.name] = nd
	}
	const fw = "gpucluster_firmware_rollout.fw"
	var wave map[string]int
	var failing string // the first node of wave 1
	var since int
	burnsOf := func(calls []sharedCall) map[string][]string {
		out := map[string][]string{}
		for _, c := range calls {
			if f := strings.Fields(c.call); len(f) > 2 && f[0] == "flint" && f[len(f)-1] == "burn" {
				out[c.node] = append(out[c.node], f[2])
			}
		}
		return out
	}
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
					if n != 2 || len(nodesOfWave(wave, 1, "")) != 2 {
						return fmt.Errorf("%d waves of %v, want 2 of two nodes each", n, wave)
					}
					return nil
				},
			},
			{
				PreConfig: func() {
					failing = nodesOfWave(wave, 1, "")[0]
					byName[failing].failBurn(t, "mlx5_1", "Error while erasing the flash")
					since = len(readShared(shared))
				},
				Config: rolloutHCAConfig(nodes, image, true),
				ExpectError: regexp.MustCompile(`(?s)HCA gpu00\d/mlx5_1: cannot update its firmware to 28\.43\.1014 \(wave 1\).*` +
					`Burning\s+FS4\s+image\s+failed:\s+Error\s+while\s+erasing\s+the\s+flash.*Firmware rollout stopped.*wave\s+1\s+of\s+2.*the\s+waves\s+after\s+it\s+were\s+not\s+started`),
			},
			{
				PreConfig: func() {
					burns := burnsOf(readShared(shared)[since:])
					want := map[string][]string{failing: {"mlx5_0", "mlx5_1"}}
					for _, n := range nodesOfWave(wave, 1, failing) {
						want[n] = []string{"mlx5_0", "mlx5_1"}
					}
					if fmt.Sprint(burns) != fmt.Sprint(want) {
						t.Errorf("burns %v, want %v (wave 1 only; the failing node's mlx5_1 tried once)", burns, want)
					}
					for _, nd := range nodes {
						fl, err := nd.flashes()
						if err != nil {
							t.Fatal(err)
						}
						for _, d := range []string{"mlx5_0", "mlx5_1"} {
							want := rolloutCardNew
							if wave[nd.name] == 2 || (nd.name == failing && d == "mlx5_1") {
								want = rolloutCardOld
							}
							if fl[d][0] != want {
								t.Errorf("%s %s: flash %s, want %s", nd.name, d, fl[d][0], want)
							}
						}
					}
					byName[failing].failBurn(t, "mlx5_1", "")
					since = len(readShared(shared))
				},
				Config: rolloutHCAConfig(nodes, image, true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					// What the failed apply recorded and the refresh confirms: wave 1's burned
					// cards at the baseline, the failed card and wave 2 at the old version.
					lazyPlanCheck(func() plancheck.PlanCheck {
						return expectBefore{fw, []string{"running_hcas", failing + "/mlx5_0", "version"}, rolloutCardNew}
					}),
					lazyPlanCheck(func() plancheck.PlanCheck {
						return expectBefore{fw, []string{"running_hcas", failing + "/mlx5_1", "version"}, rolloutCardOld}
					}),
					lazyPlanCheck(func() plancheck.PlanCheck {
						return expectBefore{fw, []string{"running_hcas", nodesOfWave(wave, 2, "")[0] + "/mlx5_0", "version"}, rolloutCardOld}
					}),
					planAttr{fw, "updates", func(v any) error {
						want := []string{fmt.Sprintf("1 %s mlx5_1", failing)}
						for _, n := range nodesOfWave(wave, 2, "") {
							want = append(want, "2 "+n+" mlx5_0", "2 "+n+" mlx5_1")
						}
						list, _ := v.([]any)
						var got []string
						for _, e := range list {
							o, _ := e.(map[string]any)
							got = append(got, fmt.Sprintf("%v %v %v", o["wave"], o["node"], o["device"]))
						}
						if strings.Join(got, "; ") != strings.Join(want, "; ") {
							return fmt.Errorf("updates %v, want %v", got, want)
						}
						return nil
					}},
				}},
				Check: resource.ComposeAggregateTestCheckFunc(
					func(s *terraform.State) error {
						return resource.TestCheckResourceAttr(fw, "running_hcas."+failing+"/mlx5_1.version", rolloutCardNew)(s)
					},
					rigCheck(func() error {
						burns := burnsOf(readShared(shared)[since:])
						want := map[string][]string{failing: {"mlx5_1"}}
						for _, n := range nodesOfWave(wave, 2, "") {
							want[n] = []string{"mlx5_0", "mlx5_1"}
						}
						if fmt.Sprint(burns) != fmt.Sprint(want) {
							return fmt.Errorf("burns %v, want %v", burns, want)
						}
						return nil
					}),
				),
			},
			{Config: rolloutHCAConfig(nodes, image, true), PlanOnly: true},
		},
	})
}
