package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccActionHCAResetNamesItsHost: an action names what it touches (issue 32). The reset takes
// the HCA itself and resets its card on the HCA's own ssh_host, so a name beside another
// machine's host cannot be written any more. Through the real Terraform, with two nodes behind
// two real sshds (gpu001's card and gpu002's, each with a setting waiting for a reset and its
// own log of tool calls): the old form (gpu001's name beside gpu002's ssh_host), an object
// written in the configuration, a gpucluster_node and an ssh_host beside the HCA are each refused
// at plan, once, on their attribute, with what to write, and no card is queried for a reset;
// `hca = gpucluster_hca.b` resets gpu002's card and only it, and the progress line names
// gpu002/mlx5_0, its node and gpu002's sshd.
func TestAccActionHCAResetNamesItsHost(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	requireTerraform(t, actionsVersion, "actions")
	c := newTerraformCLI(t)
	a := startHCANodeWithPath(t, nil, mftTools)
	b := startHCANodeWithPath(t, a, mftTools)
	for _, h := range []*hcaNode{a, b} {
		h.setPending(t, "LINK_TYPE_P1", "IB(1)", "ETH(2)")
	}
	config := func(action string) string {
		return a.provider() + fmt.Sprintf(`
resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
}
resource "gpucluster_hca" "a" {
  node      = "gpu001"
  device    = "mlx5_0"
  port_guid = "0x0002c90300010000"
  ssh_host  = %q
}
resource "gpucluster_hca" "b" {
  node      = "gpu002"
  device    = "mlx5_0"
  port_guid = "0x0002c90300020000"
  ssh_host  = %q
}
action "gpucluster_hca_reset" "r" {
  config {
%s
  }
}
`, a.sshd.Addr(), b.sshd.Addr(), action)
	}
	resets := func(h *hcaNode) []string {
		var out []string
		for _, c := range h.calls() {
			if strings.Contains(c, "fwreset") {
				out = append(out, c)
			}
		}
		return out
	}
	dir := writeConfig(t, config(`    hca = gpucluster_hca.b`))
	c.run(dir, "apply", "-auto-approve", "-input=false", "-no-color") // the HCAs and the node, in the state the action reads
	others := len(servedAttributes(t, "gpucluster_hca"))
	for _, r := range []struct {
		what, config string
		want         []string
	}{
		{"the old form: gpu001's name beside gpu002's ssh_host", fmt.Sprintf(`    node     = "gpu001"
    device   = "mlx5_0"
    ssh_host = %q`, b.sshd.Addr()), []string{
			"Error: gpucluster_hca_reset takes the HCA itself: hca = gpucluster_hca.<resource>",
			`node = "gpu001"`,
			`write hca = gpucluster_hca.<resource> for the HCA "gpu001/mlx5_0" (e.g. gpucluster_hca.gpu001_mlx5_0, or gpucluster_hca.all["gpu001/mlx5_0"]`,
			"remove node, device, ssh_host.",
		}},
		{"an object written in the configuration", `    hca = { name = "gpu001/mlx5_0", node = "gpu001", device = "mlx5_0", ssh_host = gpucluster_hca.b.ssh_host }`, []string{
			"Error: hca is not a gpucluster_hca",
			`hca = { name = "gpu001/mlx5_0"`,
			fmt.Sprintf("hca is an object without %d of gpucluster_hca's attributes", others-4),
		}},
		{"a node", `    hca = gpucluster_node.n`, []string{
			"Error: hca is not a gpucluster_hca",
			"hca = gpucluster_node.n",
			"hca is an object without",
			"It must be one gpucluster_hca, as a reference to the resource gives it: hca = gpucluster_hca.gpu001_mlx5_0",
		}},
		{"an ssh_host beside the HCA", fmt.Sprintf(`    hca      = gpucluster_hca.a
    ssh_host = %q`, b.sshd.Addr()), []string{
			"Error: gpucluster_hca_reset takes the HCA itself",
			"ssh_host = ",
			"remove ssh_host.",
		}},
	} {
		writeConfigIn(t, dir, config(r.config))
		out, err := c.try(dir, "apply", "-auto-approve", "-input=false", "-no-color", "-invoke=action.gpucluster_hca_reset.r")
		flat := strings.Join(strings.Fields(out), " ")
		if err == nil || strings.Count(out, "Error: ") != 1 {
			t.Errorf("%s: not refused once (%v):\n%s", r.what, err, out)
		}
		for _, w := range r.want {
			if !strings.Contains(flat, strings.Join(strings.Fields(w), " ")) {
				t.Errorf("%s: the output does not say %q:\n%s", r.what, w, out)
			}
		}
		if ra, rb := resets(a), resets(b); len(ra)+len(rb) != 0 {
			t.Fatalf("%s: a refused action reached a card: gpu001 %q, gpu002 %q", r.what, ra, rb)
		}
	}

	writeConfigIn(t, dir, config(`    hca = gpucluster_hca.b`))
	out := c.run(dir, "apply", "-auto-approve", "-input=false", "-no-color", "-invoke=action.gpucluster_hca_reset.r")
	if want := "hca gpu002/mlx5_0 (node gpu002, " + b.sshd.Addr() + "): mlxfwreset at level 3 loaded LINK_TYPE_P1"; !strings.Contains(out, want) {
		t.Errorf("the progress does not name the HCA reset and its host (%q):\n%s", want, out)
	}
	if got, want := resets(b), []string{"mlxfwreset -d mlx5_0 query", "mlxfwreset -d mlx5_0 -l 3 -y reset"}; !slices.Equal(got, want) {
		t.Errorf("gpu002's card saw mlxfwreset %q, want %q", got, want)
	}
	if got := resets(a); len(got) != 0 {
		t.Errorf("gpu001's card was reset for gpu002's HCA: %q", got)
	}
	if _, cur, err := b.param("LINK_TYPE_P1"); err != nil || cur != "IB(1)" {
		t.Errorf("gpu002's LINK_TYPE_P1 current %s (%v), want IB(1) after the reset", cur, err)
	}
	if _, cur, err := a.param("LINK_TYPE_P1"); err != nil || cur != "ETH(2)" {
		t.Errorf("gpu001's LINK_TYPE_P1 current %s (%v), want ETH(2): nothing reset it", cur, err)
	}
}

// TestHCAResetTargetOf: what gpucluster_hca_reset takes as its HCA, value by value, against the
// HCA's attributes as the provider serves them: one gpucluster_hca (every attribute) is read as
// the HCA resource's model (its own name, node, device, ssh_host); a whole for_each, a count, an
// HCA without ssh_host, the old form and nothing at all are refused once each on the attribute
// that is wrong; an HCA not known yet is neither taken nor refused.
func TestHCAResetTargetOf(t *testing.T) {
	ctx := context.Background()
	served := servedAttributes(t, "gpucluster_hca")
	if got := hcaRef.attributeNames(ctx); !slices.Equal(got, slices.Sorted(slices.Values(served))) {
		t.Fatalf("hcaRef has the attributes %q, the served schema %q", got, served)
	}
	// hca builds an object with every served attribute: the strings the action reads set (or
	// null, as given), the others null strings (their types do not matter to the check).
	hcaObj := func(set map[string]attr.Value) attr.Value {
		tys, vals := map[string]attr.Type{}, map[string]attr.Value{}
		for _, k := range served {
			tys[k], vals[k] = types.StringType, types.StringNull()
			if v, ok := set[k]; ok {
				tys[k], vals[k] = v.Type(ctx), v
			}
		}
		return types.ObjectValueMust(tys, vals)
	}
	full := hcaObj(map[string]attr.Value{"node": types.StringValue("gpu002"), "device": types.StringValue("mlx5_0"),
		"ssh_host": types.StringValue("10.0.0.2"), "ssh": types.ObjectNull(hcaSSHAttrTypes)})
	model := func(hca types.Dynamic) *hcaResetModel {
		m := &hcaResetModel{HCA: hca}
		for _, p := range []*types.Dynamic{&m.Node, &m.Device, &m.MSTDevice, &m.SSHHost, &m.SSH, &m.Tool} {
			*p = types.DynamicNull()
		}
		return m
	}
	h, d := hcaResetTargetOf(ctx, model(types.DynamicValue(full)))
	if d.HasError() || h == nil || h.Name.ValueString() != "gpu002/mlx5_0" || h.SSHHost.ValueString() != "10.0.0.2" || h.Node.ValueString() != "gpu002" {
		t.Fatalf("the HCA itself: %+v %v", h, d)
	}
	old := model(types.DynamicValue(full))
	old.SSHHost = types.DynamicValue(types.StringValue("10.0.0.1"))
	oldForm := model(types.DynamicNull())
	oldForm.HCA = types.DynamicNull()
	oldForm.Node, oldForm.Device = types.DynamicValue(types.StringValue("gpu001")), types.DynamicValue(types.StringValue("mlx5_0"))
	none := model(types.DynamicNull())
	none.HCA = types.DynamicNull()
	for _, c := range []struct {
		what string
		m    *hcaResetModel
		at   path.Path
		want string
	}{
		{"a whole for_each", model(types.DynamicValue(types.ObjectValueMust(map[string]attr.Type{"b": full.Type(ctx)}, map[string]attr.Value{"b": full}))), path.Root("hca"), fmt.Sprintf("without %d of", len(served))},
		{"a count", model(types.DynamicValue(types.TupleValueMust([]attr.Type{full.Type(ctx)}, []attr.Value{full}))), path.Root("hca"), "hca is a Tuple"},
		{"a name", model(types.DynamicValue(types.StringValue("gpu002/mlx5_0"))), path.Root("hca"), "hca is a String"},
		{"an HCA without ssh_host", model(types.DynamicValue(hcaObj(map[string]attr.Value{"node": types.StringValue("gpu002"), "device": types.StringValue("mlx5_0"), "ssh": types.ObjectNull(hcaSSHAttrTypes)}))), path.Root("hca"), `"gpu002/mlx5_0" has no ssh_host`},
		{"an ssh_host beside the HCA", old, path.Root("ssh_host"), "remove ssh_host."},
		{"the old form", oldForm, path.Root("node"), `for the HCA "gpu001/mlx5_0"`},
		{"nothing", none, path.Root("hca"), "hca is required"},
	} {
		h, d := hcaResetTargetOf(ctx, c.m)
		if h != nil || d.ErrorsCount() != 1 || !strings.Contains(d.Errors()[0].Detail()+d.Errors()[0].Summary(), c.want) {
			t.Errorf("%s: %v, %d errors %v, want one saying %q", c.what, h, d.ErrorsCount(), d, c.want)
			continue
		}
		if dp, ok := d.Errors()[0].(diag.DiagnosticWithPath); !ok || !dp.Path().Equal(c.at) {
			t.Errorf("%s: the error is not on %s: %v", c.what, c.at, d.Errors()[0])
		}
	}
	if h, d := hcaResetTargetOf(ctx, model(types.DynamicUnknown())); h != nil || d.HasError() {
		t.Errorf("an unknown HCA: %v %v", h, d)
	}
}

// TestAccActionHCAResetForEach is the example's for_each form, through the real Terraform: the
// HCAs of two nodes in one for_each, one action instance per HCA (`hca = gpucluster_hca.all[each.key]`, over the same keys: an
// action's for_each cannot be the resource it is triggered by, which is not known before its apply) triggered
// by that HCA's own create. Each card's settings wait after mlxconfig, and each node's own log
// shows exactly one query and one reset of its card: no HCA's reset went to the other's host.
func TestAccActionHCAResetForEach(t *testing.T) {
	requireAcc(t)
	testrig.RequirePeers(t)
	requireTerraform(t, actionsVersion, "actions")
	c := newTerraformCLI(t)
	a := startHCANodeWithPath(t, nil, mftTools)
	b := startHCANodeWithPath(t, a, mftTools)
	dir := writeConfig(t, a.provider()+fmt.Sprintf(`
locals {
  hcas = {
    "gpu001/mlx5_0" = { node = "gpu001", guid = "0x0002c90300010000", host = %q }
    "gpu002/mlx5_0" = { node = "gpu002", guid = "0x0002c90300020000", host = %q }
  }
}
resource "gpucluster_hca" "all" {
  for_each          = local.hcas
  node              = each.value.node
  device            = "mlx5_0"
  port_guid         = each.value.guid
  ssh_host          = each.value.host
  firmware_settings = { LINK_TYPE_P1 = "IB" }
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.gpucluster_hca_reset.all[each.key]]
    }
  }
}
action "gpucluster_hca_reset" "all" {
  for_each = local.hcas
  config {
    hca = gpucluster_hca.all[each.key]
  }
}
`, a.sshd.Addr(), b.sshd.Addr()))
	out := c.run(dir, "apply", "-auto-approve", "-input=false", "-no-color")
	for name, h := range map[string]*hcaNode{"gpu001": a, "gpu002": b} {
		var got []string
		for _, c := range h.calls() {
			if strings.Contains(c, "fwreset") {
				got = append(got, c)
			}
		}
		if want := []string{"mlxfwreset -d mlx5_0 query", "mlxfwreset -d mlx5_0 -l 3 -y reset"}; !slices.Equal(got, want) {
			t.Errorf("%s's card saw mlxfwreset %q, want %q", name, got, want)
		}
		if _, cur, err := h.param("LINK_TYPE_P1"); err != nil || cur != "IB(1)" {
			t.Errorf("%s's LINK_TYPE_P1 current %s (%v), want IB(1)", name, cur, err)
		}
		if want := fmt.Sprintf("hca %s/mlx5_0 (node %s, %s): mlxfwreset at level 3 loaded LINK_TYPE_P1", name, name, h.sshd.Addr()); !strings.Contains(out, want) {
			t.Errorf("no line %q:\n%s", want, out)
		}
	}
}
