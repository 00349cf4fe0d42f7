package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bmc"
)

var (
	_ action.Action              = (*nodePowerAction)(nil)
	_ action.ActionWithConfigure = (*nodePowerAction)(nil)
)

func newNodePowerAction() action.Action { return &nodePowerAction{} }

// nodePowerAction is gpucluster_node_power: one power operation on a node, through its BMC.
type nodePowerAction struct{ data *Data }

type nodePowerModel struct {
	Node     types.String   `tfsdk:"node"`
	BMC      types.Object   `tfsdk:"bmc"`
	Power    types.String   `tfsdk:"power"`
	Timeouts timeouts.Value `tfsdk:"timeouts"`
}

const defaultNodePowerTimeout = 20 * time.Minute

func (a *nodePowerAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node_power"
}

func (a *nodePowerAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (a *nodePowerAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	bmcAttr := schemaAs[schema.SingleNestedAttribute](actionAttribute(nodeBMCAttributes()["bmc"]))
	bmcAttr.Required, bmcAttr.Optional = true, false
	bmcAttr.MarkdownDescription = "The node's BMC, in the shape of `gpucluster_node`'s `bmc`: usually " +
		"`bmc = gpucluster_node.<name>.bmc`. The user name and password default to the provider's `bmc` block, the place for " +
		"them: an action shows its configuration in the plan."
	resp.Schema = schema.Schema{
		MarkdownDescription: "One power operation on a node, through its baseboard management controller (Redfish, or " +
			"IPMI as the fallback, as `gpucluster_node` reaches it), for the one-off work that is not a state to keep: " +
			"`terraform apply -invoke=action.gpucluster_node_power.<name>`, or from an `action_trigger`. Terraform 1.14 " +
			"or later.\n\n" +
			"`on` and `off` do nothing when the host is already so. The restarts need a running host and return once the " +
			"BMC reports it on again; pending BIOS settings take effect in that boot. `bmc_reset` restarts the BMC itself " +
			"(Redfish `Manager.Reset`, IPMI cold reset), not the host, and returns once the BMC answers again. The node's " +
			"BMC lock is held throughout, so the action never interleaves with an apply of the node.",
		Attributes: map[string]schema.Attribute{
			"node": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The node's name, e.g. `gpucluster_node.gpu001.name`: what progress lines and errors call it.",
				Validators:          []validator.String{nameValidator()},
			},
			"bmc": bmcAttr,
			"power": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "`on`, `off` (a hard power-off), `graceful_restart` (Redfish GracefulRestart: the OS " +
					"shuts down first; IPMI has none), `force_restart` (Redfish ForceRestart, IPMI power reset), `power_cycle` " +
					"(Redfish PowerCycle, IPMI power cycle) or `bmc_reset` (restart the BMC, not the host).",
				Validators: []validator.String{stringvalidator.OneOf(bmc.PowerOps...)},
			},
		},
		Blocks: map[string]schema.Block{"timeouts": timeouts.BlockWithOpts(ctx, timeouts.Opts{
			InvokeDescription: "Bound on the whole operation (default 20m): waiting for the BMC's lock and a session slot, the BMC calls, and waiting for the host or the BMC to come back.",
		})},
	}
}

func (a *nodePowerAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m nodePowerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Invoke(ctx, defaultNodePowerTimeout)
	resp.Diagnostics.Append(d...)
	tgt, d := bmcTargetFor(ctx, a.data, m.Node.ValueString(), m.BMC, timeout)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = maskSecrets(ctx, tgt.cfg.Password)
	tgt.cfg.Logger = bmcLogger(ctx)
	node := tgt.node
	err := bmc.RunPower(ctx, tgt.cfg, m.Power.ValueString(), func(step string) { actionProgress(ctx, resp, "node %s: %s", node, step) })
	var refused *bmc.PowerRefusedError
	var step *bmc.StepError
	switch {
	case errors.As(err, &refused):
		resp.Diagnostics.AddAttributeError(path.Root("power"), fmt.Sprintf("Node %s is off", node), fmt.Sprintf("Node %q: %s", node, refused.Reason))
	case errors.As(err, &step):
		tgt.fail(&resp.Diagnostics, step.Step, step.Err)
	}
}
