package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// hcaResetAction is the reset action for the test node's card: the HCA itself, whose node,
// device, ssh_host and tool the action uses.
func (h *hcaNode) hcaResetAction(extra string) string {
	return fmt.Sprintf(`
action "gpucluster_hca_reset" "h" {
  config {
    hca = gpucluster_hca.h
%s
  }
}
`, extra)
}

// editCard changes the double's card as someone on the node would.
func (h *hcaNode) editCard(t *testing.T, edit func(card map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(h.state)
	if err != nil {
		t.Fatal(err)
	}
	st := map[string]any{}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	edit(as[map[string]any](t, as[[]any](t, st["devices"])[0]))
	h.writeState(t, st)
}

// setResetLevels sets the mlxfwreset levels the double's card supports now.
func (h *hcaNode) setResetLevels(t *testing.T, levels []int) {
	t.Helper()
	h.editCard(t, func(card map[string]any) { card["reset_levels"] = levels })
}

// setPending makes a parameter's Next Boot value differ from its Current one.
func (h *hcaNode) setPending(t *testing.T, name, next, current string) {
	t.Helper()
	h.editCard(t, func(card map[string]any) {
		for _, p := range as[[]any](t, card["params"]) {
			if pm := as[map[string]any](t, p); pm["name"] == name {
				pm["next"], pm["current"] = next, current
			}
		}
	})
}

// TestAccActionHCAReset runs the reset action as the HCA's action_trigger, through the mlxconfig
// double behind a real sshd: the settings the create sets wait for a reboot, and the action loads
// them at the level mlxfwreset chooses (the card's Current values after it, read from the double's
// state); when the card then supports only a reboot, a change stays pending and no reset runs.
func TestAccActionHCAReset(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	h := startHCANode(t)
	config := func(settings string) string {
		return h.hca(`  firmware_settings = { `+settings+` }
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.gpucluster_hca_reset.h]
    }
  }`) + h.hcaResetAction("")
	}
	resets := func() []string {
		var out []string
		for _, c := range h.calls() {
			if strings.Contains(c, "fwreset") {
				out = append(out, c)
			}
		}
		return out
	}
	var before int
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: config(`LINK_TYPE_P1 = "IB"`),
				Check: resource.ComposeAggregateTestCheckFunc(
					paramIs(h, "LINK_TYPE_P1", "IB(1)", "IB(1)"),
					rigCheck(func() error {
						got := resets()
						want := []string{"mlxfwreset -d " + cx7 + " query", "mlxfwreset -d " + cx7 + " -l 3 -y reset"}
						if !slices.Equal(got, want) {
							return fmt.Errorf("mlxfwreset calls %q, want %q", got, want)
						}
						before = len(got)
						return nil
					}),
				),
			},
			{
				PreConfig: func() { h.setResetLevels(t, []int{4}) },
				Config:    config(`LINK_TYPE_P1 = "IB", SRIOV_EN = "True"`),
				Check: resource.ComposeAggregateTestCheckFunc(
					paramIs(h, "SRIOV_EN", "True(1)", "False(0)"),
					rigCheck(func() error {
						if got := resets()[before:]; !slices.Equal(got, []string{"mlxfwreset -d " + cx7 + " query"}) {
							return fmt.Errorf("with only a reboot supported, mlxfwreset calls %q", got)
						}
						return nil
					}),
				),
			},
		},
	})
}

// TestAccActionHCAResetInvoke invokes the action on its own: a card that supports only a reboot
// gets no reset and the operator a warning saying to reboot the node; a level the card does not
// support is an error naming the ones it does.
func TestAccActionHCAResetInvoke(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	requireTerraform(t, actionsVersion, "actions")
	c := newTerraformCLI(t)
	h := startHCANode(t)
	h.setPending(t, "LINK_TYPE_P1", "IB(1)", "ETH(2)")
	h.setResetLevels(t, []int{4})
	dir := writeConfig(t, h.hca("")+h.hcaResetAction(""))
	c.run(dir, "apply", "-auto-approve", "-input=false", "-no-color")
	out := c.run(dir, "apply", "-auto-approve", "-input=false", "-no-color", "-invoke=action.gpucluster_hca_reset.h")
	if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "Warning: HCA gpu001/mlx5_0: reboot node gpu001 to load its firmware settings") ||
		!strings.Contains(flat, "LINK_TYPE_P1 wait for a reboot") || !strings.Contains(flat, "supported levels: 4") {
		t.Fatalf("no reboot warning:\n%s", out)
	}
	if _, cur, _ := h.param("LINK_TYPE_P1"); cur != "ETH(2)" {
		t.Fatalf("LINK_TYPE_P1 current %s: something reset the card", cur)
	}
	h.setResetLevels(t, []int{3, 4})
	writeConfigIn(t, dir, h.hca("")+h.hcaResetAction(`    level = "0"`))
	out, err := c.try(dir, "apply", "-auto-approve", "-input=false", "-no-color", "-invoke=action.gpucluster_hca_reset.h")
	if flat := strings.Join(strings.Fields(out), " "); err == nil ||
		!strings.Contains(flat, "reset level 0 is not supported by the card now; it supports 3 (Driver restart and PCI reset), 4 (Warm Reboot)") {
		t.Fatalf("level 0 on a card without it: %v\n%s", err, out)
	}
}
