package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

var (
	_ action.Action              = (*hcaResetAction)(nil)
	_ action.ActionWithConfigure = (*hcaResetAction)(nil)
)

func newHCAResetAction() action.Action { return &hcaResetAction{} }

// hcaResetAction is gpucluster_hca_reset: an HCA's pending firmware settings loaded with
// mlxfwreset where the card allows it (hca.ResetPending).
type hcaResetAction struct{ data *Data }

type hcaResetModel struct {
	Node      types.String   `tfsdk:"node"`
	Device    types.String   `tfsdk:"device"`
	MSTDevice types.String   `tfsdk:"mst_device"`
	SSHHost   types.String   `tfsdk:"ssh_host"`
	SSH       types.Object   `tfsdk:"ssh"`
	Tool      types.String   `tfsdk:"tool"`
	Level     types.String   `tfsdk:"level"`
	Timeouts  timeouts.Value `tfsdk:"timeouts"`
}

const defaultHCAResetTimeout = 10 * time.Minute

func (a *hcaResetAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_hca_reset"
}

func (a *hcaResetAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (a *hcaResetAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	// The attributes a gpucluster_hca has, with its validators and descriptions: the action takes
	// the same values (`ssh_host = gpucluster_hca.x.ssh_host`, ...).
	var rs resource.SchemaResponse
	(&hcaResource{}).Schema(ctx, resource.SchemaRequest{}, &rs)
	attrs := map[string]schema.Attribute{}
	for _, k := range []string{"node", "device", "mst_device", "ssh_host", "ssh", "tool"} {
		attrs[k] = actionAttribute(rs.Schema.Attributes[k])
	}
	for _, k := range []string{"node", "device"} {
		a := schemaAs[schema.StringAttribute](attrs[k])
		a.Validators = []validator.String{nameValidator()} // the resource's also replace on change: not a thing here
		attrs[k] = a
	}
	host := schemaAs[schema.StringAttribute](attrs["ssh_host"])
	host.Required, host.Optional = true, false
	host.MarkdownDescription = "Where to run mlxfwreset and mlxconfig: the HCA's node as SSH reaches it, usually " +
		"`gpucluster_hca.<name>.ssh_host`; `host`, `host:port` or `[ipv6]:port`. User, key and known_hosts come from the " +
		"provider's `ssh` block (or `ssh`). Host keys are always checked."
	attrs["ssh_host"] = host
	tool := schemaAs[schema.StringAttribute](attrs["tool"])
	tool.MarkdownDescription = hcaToolDescription + " Usually `gpucluster_hca.<name>.tool`, which records the one the " +
		"node has. Unset: the node is asked (`command -v flint || command -v mstflint`, in the same SSH command as the " +
		"first query; MFT when both are there)."
	attrs["tool"] = tool
	attrs["level"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "The `mlxfwreset` level: `0` (live patch), `1` (immediate reset, the ARM side of a SoC) or `3` " +
			"(driver restart and PCI reset: the HCA's links go down for seconds). Unset: the level the tool chooses for the " +
			"card's current state, unless that is a reboot. A level the card does not support now is an error naming " +
			"those it does.",
		Validators: []validator.String{stringvalidator.OneOf("0", "1", "3")},
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Loads an HCA's pending firmware settings now. `mlxconfig` writes every setting to the " +
			"card's Next Boot values; this action queries the card, and when some value waits, asks `mlxfwreset` which " +
			"reset levels the card supports in its current state and resets it at one that does not reboot the node, then " +
			"queries again to check that nothing waits any more. When only a reboot would load them (the card supports " +
			"no other level now), it resets nothing and says so in a warning: reboot the node, e.g. with " +
			"`gpucluster_node_power`. Nothing pending: nothing is reset. `mstconfig`'s `mstfwreset` is used with " +
			"`tool = \"mstconfig\"`. The node's SSH lock is held throughout, so it never interleaves with an apply of " +
			"the node's HCAs. For `terraform apply -invoke`, or as the `action_trigger` of a `firmware_settings` change " +
			"(`events = [after_update]`). Terraform 1.14 or later.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{"timeouts": timeouts.BlockWithOpts(ctx, timeouts.Opts{
			InvokeDescription: "Bound on the whole reset (default 10m): SSH, the queries and mlxfwreset.",
		})},
	}
}

func (a *hcaResetAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m hcaResetModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Invoke(ctx, defaultHCAResetTimeout)
	resp.Diagnostics.Append(d...)
	name := fabric.HCAName(m.Node.ValueString(), m.Device.ValueString())
	// The HCA resource's own target: same tool, device and SSH rules.
	t, d := (&hcaResource{data: a.data}).firmwareTarget(ctx, &hcaModel{
		Name: types.StringValue(name), Device: m.Device, MSTDevice: m.MSTDevice, SSHHost: m.SSHHost, SSH: m.SSH, Tool: m.Tool,
	}, timeout)
	resp.Diagnostics.Append(d...)
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
	actionProgress(ctx, resp, "hca %s on %s: querying pending firmware settings", name, t.host)
	res, err := hca.ResetPending(ctx, client, t.tool, t.device, opts)
	if err != nil {
		t.fail(&resp.Diagnostics, "load its pending firmware settings", err, res.Commands)
		return
	}
	line, warnSummary, warnDetail := res.Outcome(name, m.Node.ValueString(), t.device, t.ssh.Addr())
	actionProgress(ctx, resp, "hca %s on %s: %s", name, t.host, line)
	if warnSummary != "" {
		resp.Diagnostics.AddWarning(warnSummary, warnDetail)
	}
}
