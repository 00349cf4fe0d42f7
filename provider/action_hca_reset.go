package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

var (
	_ action.Action                   = (*hcaResetAction)(nil)
	_ action.ActionWithConfigure      = (*hcaResetAction)(nil)
	_ action.ActionWithValidateConfig = (*hcaResetAction)(nil)
	_ action.ActionWithModifyPlan     = (*hcaResetAction)(nil)
)

func newHCAResetAction() action.Action { return &hcaResetAction{} }

// hcaResetAction is gpucluster_hca_reset: an HCA's pending firmware settings loaded with
// mlxfwreset where the card allows it (hca.ResetPending).
type hcaResetAction struct{ data *Data }

type hcaResetModel struct {
	HCA      types.Dynamic  `tfsdk:"hca"`
	Level    types.String   `tfsdk:"level"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
	// The old form's, each refused (hcaResetTargetOf): the HCA was named by node and device
	// beside an ssh_host that could be another machine's.
	Node      types.Dynamic `tfsdk:"node"`
	Device    types.Dynamic `tfsdk:"device"`
	MSTDevice types.Dynamic `tfsdk:"mst_device"`
	SSHHost   types.Dynamic `tfsdk:"ssh_host"`
	SSH       types.Dynamic `tfsdk:"ssh"`
	Tool      types.Dynamic `tfsdk:"tool"`
}

// hcaResetOldAttributes are the attributes the action took before it took the HCA itself, in
// the order the old form wrote them.
var hcaResetOldAttributes = []string{"node", "device", "mst_device", "ssh_host", "ssh", "tool"}

// old returns the old form's attributes in hcaResetOldAttributes' order.
func (m *hcaResetModel) old() []types.Dynamic {
	return []types.Dynamic{m.Node, m.Device, m.MSTDevice, m.SSHHost, m.SSH, m.Tool}
}

// hcaRef is gpucluster_hca_reset's `hca`: one gpucluster_hca. The reset is per card (mlxfwreset
// -d resets one device), and the HCA is what the trigger is on (a firmware_settings or firmware
// change), so the action takes that HCA, with the node name, device, ssh_host, ssh and tool it
// was configured through.
var hcaRef = instanceRef{attr: "hca", typeName: "gpucluster_hca", res: &hcaResource{}, example: "gpu001_mlx5_0",
	why: "The action resets that HCA's card on the HCA's own ssh_host (with its mst_device, ssh and tool) and names " +
		"it by its name and host, so that it cannot reset one machine's cards while naming another."}

const defaultHCAResetTimeout = 10 * time.Minute

func (a *hcaResetAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_hca_reset"
}

func (a *hcaResetAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (a *hcaResetAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	attrs := map[string]schema.Attribute{
		"hca": schema.DynamicAttribute{
			// Optional to Terraform so that the old form gets one error saying what to write
			// (hcaResetTargetOf) rather than "hca is required" beside it; required in effect.
			Optional: true,
			MarkdownDescription: "Required. The HCA itself: `hca = gpucluster_hca.gpu001_mlx5_0` (one instance of a " +
				"`for_each`: `gpucluster_hca.all[\"gpu001/mlx5_0\"]`). The action resets that HCA's card " +
				"(its `mst_device`, else its `device`) on the HCA's own `ssh_host`, with its `ssh` and `tool` (unset: the " +
				"provider's `ssh` block, and the tool the node has: `command -v flint || command -v mstflint`, MFT when " +
				"both are there), and calls it by its `name`, its node and the host reached on every progress line and " +
				"error (`hca gpu001/mlx5_0 (node gpu001, 10.0.0.1:22): ...`). Anything else (a name, an object written " +
				"in the configuration, another resource, an HCA without `ssh_host`) is refused at plan, so the action " +
				"cannot reset one machine's cards while naming another.",
		},
		"level": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "The `mlxfwreset` level: `0` (live patch), `1` (immediate reset, the ARM side of a SoC) or `3` " +
				"(driver restart and PCI reset: the HCA's links go down for seconds). Unset: the level the tool chooses for the " +
				"card's current state, unless that is a reboot. A level the card does not support now is an error naming " +
				"those it does.",
			Validators: []validator.String{stringvalidator.OneOf("0", "1", "3")},
		},
	}
	for _, k := range hcaResetOldAttributes {
		attrs[k] = schema.DynamicAttribute{
			Optional: true,
			MarkdownDescription: "No longer taken: the HCA is `hca = gpucluster_hca.<name>`, and its " + k + " is the " +
				"HCA's own. A configuration that still sets it is refused at plan with what to write instead.",
		}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Loads an HCA's pending firmware settings now. `mlxconfig` writes every setting to the " +
			"card's Next Boot values; this action queries the card, and when some value waits, asks `mlxfwreset` which " +
			"reset levels the card supports in its current state and resets it at one that does not reboot the node, then " +
			"queries again to check that nothing waits any more. When only a reboot would load them (the card supports " +
			"no other level now), it resets nothing and says so in a warning: reboot the node, e.g. with " +
			"`gpucluster_node_power`. Nothing pending: nothing is reset. `mstconfig`'s `mstfwreset` is used with " +
			"the HCA's `tool = \"mstconfig\"`. The node's SSH lock is held throughout, so it never interleaves with an apply of " +
			"the node's HCAs. For `terraform apply -invoke`, or as the `action_trigger` of a `firmware_settings` change " +
			"(`events = [after_update]`). Terraform 1.14 or later.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{"timeouts": timeouts.BlockWithOpts(ctx, timeouts.Opts{
			InvokeDescription: "Bound on the whole reset (default 10m): SSH, the queries and mlxfwreset.",
		})},
	}
}

// hcaResetTargetOf reads the action's HCA: the gpucluster_hca itself (hcaRef), as the HCA
// resource's model, so that the reset goes where the HCA's own apply goes. The old form (node,
// device and ssh_host given one by one) is refused once, on the first of its attributes set,
// with what to write. nil while the HCA is not known yet (a reference at validation), which is
// not an error.
func hcaResetTargetOf(ctx context.Context, m *hcaResetModel) (*hcaModel, diag.Diagnostics) {
	var diags diag.Diagnostics
	var set []string
	for i, v := range m.old() {
		if !v.IsNull() {
			set = append(set, hcaResetOldAttributes[i])
		}
	}
	if len(set) > 0 {
		given := "gpu001/mlx5_0"
		node, _ := m.Node.UnderlyingValue().(basetypes.StringValue)
		dev, _ := m.Device.UnderlyingValue().(basetypes.StringValue)
		if node.ValueString() != "" && dev.ValueString() != "" {
			given = fabric.HCAName(node.ValueString(), dev.ValueString())
		}
		diags.AddAttributeError(path.Root(set[0]), "gpucluster_hca_reset takes the HCA itself: hca = gpucluster_hca.<resource>",
			fmt.Sprintf("The action now takes the HCA, and resets its card on the HCA's own ssh_host: write hca = "+
				"gpucluster_hca.<resource> for the HCA %q (e.g. gpucluster_hca.%s, or gpucluster_hca.all[%q] for an "+
				"instance of a for_each) and remove %s. A node name beside an ssh_host could name one machine and reset "+
				"another's cards.", given, strings.NewReplacer("/", "_", ".", "_").Replace(given), given, strings.Join(set, ", ")))
		return nil, diags
	}
	if m.HCA.IsNull() {
		diags.AddAttributeError(path.Root("hca"), "hca is required",
			"Give the HCA whose card to reset: hca = gpucluster_hca.<resource> (e.g. gpucluster_hca.gpu001_mlx5_0).")
		return nil, diags
	}
	attrs, d := hcaRef.of(ctx, m.HCA, "name", "node", "device", "mst_device", "ssh_host", "ssh", "tool")
	diags.Append(d...)
	if attrs == nil {
		return nil, diags
	}
	h := &hcaModel{}
	h.Name, _ = attrs["name"].(types.String)
	h.Node, _ = attrs["node"].(types.String)
	h.Device, _ = attrs["device"].(types.String)
	h.MSTDevice, _ = attrs["mst_device"].(types.String)
	h.SSHHost, _ = attrs["ssh_host"].(types.String)
	h.SSH, _ = attrs["ssh"].(types.Object)
	h.Tool, _ = attrs["tool"].(types.String)
	if h.Node.IsUnknown() || h.Device.IsUnknown() || h.SSHHost.IsUnknown() {
		return nil, diags
	}
	if h.Name.IsNull() || h.Name.IsUnknown() {
		h.Name = types.StringValue(fabric.HCAName(h.Node.ValueString(), h.Device.ValueString()))
	}
	if h.SSHHost.IsNull() {
		diags.AddAttributeError(path.Root("hca"), "The HCA has no ssh_host",
			fmt.Sprintf("gpucluster_hca %q has no ssh_host, so the provider cannot reach its node: give the HCA "+
				"ssh_host (usually gpucluster_node.<node>.ssh_host) first.", h.Name.ValueString()))
		return nil, diags
	}
	return h, diags
}

// ValidateConfig refuses what is wrong in the configuration as written (the old form, an object
// literal); a reference to a resource is unknown here and is checked by ModifyPlan once
// Terraform knows it.
func (a *hcaResetAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	resp.Diagnostics.Append(checkHCAResetConfig(ctx, req.Config)...)
}

// ModifyPlan checks the HCA once its value is known: at plan, and again at apply (for an
// action_trigger on an HCA created in the same run).
func (a *hcaResetAction) ModifyPlan(ctx context.Context, req action.ModifyPlanRequest, resp *action.ModifyPlanResponse) {
	resp.Diagnostics.Append(checkHCAResetConfig(ctx, req.Config)...)
}

// checkHCAResetConfig is ValidateConfig's and ModifyPlan's check: the configuration names one
// gpucluster_hca, in the form the action takes.
func checkHCAResetConfig(ctx context.Context, cfg tfsdk.Config) diag.Diagnostics {
	var m hcaResetModel
	diags := cfg.Get(ctx, &m)
	if diags.HasError() {
		return diags
	}
	_, d := hcaResetTargetOf(ctx, &m)
	return append(diags, d...)
}

func (a *hcaResetAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m hcaResetModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Invoke(ctx, defaultHCAResetTimeout)
	resp.Diagnostics.Append(d...)
	h, d := hcaResetTargetOf(ctx, &m)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	if h == nil {
		// Terraform invokes an action with its configuration known; this is not reached.
		resp.Diagnostics.AddAttributeError(path.Root("hca"), "hca is not known", "The HCA's node, device and ssh_host must be known when the action runs.")
		return
	}
	// The HCA resource's own target: same tool, device and SSH rules.
	t, d := (&hcaResource{data: a.data}).firmwareTarget(ctx, h, timeout)
	resp.Diagnostics.Append(underHCA(d)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = maskSecrets(ctx, t.ssh.PrivateKeyPEM)
	opts := hca.ResetPendingLevel(m.Level.ValueString()) // the validator allows 0, 1, 3 only

	ctx, release, err := remote.LockHost(ctx, t.ssh.Host, t.ssh.Port)
	if err != nil {
		t.fail(&resp.Diagnostics, "wait for its node", err, nil)
		return
	}
	defer release()
	client, err := remote.Dial(ctx, t.ssh)
	if err != nil {
		t.fail(&resp.Diagnostics, "connect to its node", err, nil)
		return
	}
	defer client.Close()
	// Every line names the HCA, its node and the host reached: the machine acted on.
	where := fmt.Sprintf("hca %s (node %s, %s)", t.name, t.node, t.ssh.Addr())
	actionProgress(ctx, resp, "%s: querying pending firmware settings of %s", where, t.device)
	res, err := hca.ResetPending(ctx, client, t.tool, t.device, opts)
	if err != nil {
		t.fail(&resp.Diagnostics, "load its pending firmware settings", err, res.Commands)
		return
	}
	line, warnSummary, warnDetail := res.Outcome(t.name, t.node, t.device, t.ssh.Addr())
	actionProgress(ctx, resp, "%s: %s", where, line)
	if warnSummary != "" {
		resp.Diagnostics.AddWarning(warnSummary, warnDetail)
	}
}

// underHCA moves the errors firmwareTarget puts on the HCA's attributes (`ssh_host`,
// `ssh.<field>`) to `hca.<attribute>`, where the action takes the HCA.
func underHCA(in diag.Diagnostics) diag.Diagnostics { return underAttr("hca", in) }
