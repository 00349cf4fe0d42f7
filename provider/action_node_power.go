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
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bmc"
)

var (
	_ action.Action                   = (*nodePowerAction)(nil)
	_ action.ActionWithConfigure      = (*nodePowerAction)(nil)
	_ action.ActionWithValidateConfig = (*nodePowerAction)(nil)
	_ action.ActionWithModifyPlan     = (*nodePowerAction)(nil)
)

func newNodePowerAction() action.Action { return &nodePowerAction{} }

// nodePowerAction is gpucluster_node_power: one power operation on a node, through its BMC.
type nodePowerAction struct{ data *Data }

type nodePowerModel struct {
	Node     types.Dynamic  `tfsdk:"node"`
	BMC      types.Dynamic  `tfsdk:"bmc"` // the old form's; refused (powerNodeOf)
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
			"node": schema.DynamicAttribute{
				Required: true,
				MarkdownDescription: "The node itself: `node = gpucluster_node.gpu001` (one instance of a `for_each`: " +
					"`gpucluster_node.all[\"gpu001\"]`). The action powers that node's own BMC (its `bmc`, with the user name " +
					"and password of the provider's `bmc` block unless the node sets its own) and calls it by its `name` on every " +
					"progress line and error, beside the BMC touched (`node gpu001 (BMC 10.0.0.11:443): already on`). Anything " +
					"else (a name, an object written in the configuration, another resource, a node without `bmc`) is refused " +
					"at plan, so the action cannot act on one machine while naming another.",
			},
			"bmc": schema.DynamicAttribute{
				Optional: true,
				MarkdownDescription: "No longer taken: the BMC is the node's own (`node = gpucluster_node.<name>`). " +
					"A configuration that still sets it is refused at plan with what to write instead.",
			},
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

// ValidateConfig refuses what is wrong in the configuration as written (the old `node = "name"`
// with `bmc`, an object literal); a reference to a resource is unknown here and is checked by
// ModifyPlan once Terraform knows it.
func (a *nodePowerAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	resp.Diagnostics.Append(checkNodePowerConfig(ctx, req.Config)...)
}

// ModifyPlan checks the node once its value is known: at plan, and again at apply (for an
// action_trigger on a node created in the same run).
func (a *nodePowerAction) ModifyPlan(ctx context.Context, req action.ModifyPlanRequest, resp *action.ModifyPlanResponse) {
	resp.Diagnostics.Append(checkNodePowerConfig(ctx, req.Config)...)
}

// checkNodePowerConfig is ValidateConfig's and ModifyPlan's check: the configuration names one
// gpucluster_node, in the form the action takes.
func checkNodePowerConfig(ctx context.Context, cfg tfsdk.Config) diag.Diagnostics {
	var m nodePowerModel
	diags := cfg.Get(ctx, &m)
	if diags.HasError() {
		return diags
	}
	_, _, d := powerNodeOf(ctx, m.Node, m.BMC)
	return append(diags, d...)
}

func (a *nodePowerAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m nodePowerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Invoke(ctx, defaultNodePowerTimeout)
	resp.Diagnostics.Append(d...)
	name, bmcObj, d := powerNodeOf(ctx, m.Node, m.BMC)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	if name == "" || bmcObj.IsNull() || bmcObj.IsUnknown() {
		// Terraform invokes an action with its configuration known; this is not reached.
		resp.Diagnostics.AddAttributeError(path.Root("node"), "node is not known", "The node's name and bmc must be known when the action runs.")
		return
	}
	tgt, d := bmcTargetFor(ctx, a.data, name, bmcObj, timeout)
	resp.Diagnostics.Append(underNode(d)...)
	if resp.Diagnostics.HasError() {
		return
	}
	node := tgt.node
	owners := &bmc.Owners{}
	if a.data != nil && a.data.bmcOwners != nil {
		owners = a.data.bmcOwners
	}
	key, owner, known := owners.Owner(tgt.cfg)
	if known && owner != node {
		// The node's bmc comes from the node, but another gpucluster_node of this run claims the
		// same BMC (host and port): which machine it is cannot be told.
		resp.Diagnostics.AddAttributeError(path.Root("node"), "Two nodes share one BMC",
			fmt.Sprintf("The BMC at %s is node %q's bmc and also gpucluster_node %q's (this run reads or applies it): "+
				"the action would power one machine while naming either. Give each gpucluster_node its own bmc.", key, node, owner))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = maskSecrets(ctx, tgt.cfg.Password)
	tgt.cfg.Logger = bmcLogger(ctx)
	// Every line names the BMC touched beside its node, so the log says which machine was acted on.
	err := bmc.RunPower(ctx, tgt.cfg, m.Power.ValueString(), func(step string) {
		actionProgress(ctx, resp, "node %s (BMC %s): %s", node, key, step)
	})
	var refused *bmc.PowerRefusedError
	var step *bmc.StepError
	switch {
	case errors.As(err, &refused):
		resp.Diagnostics.AddAttributeError(path.Root("power"), fmt.Sprintf("Node %s is off", node), fmt.Sprintf("Node %q (BMC %s): %s", node, key, refused.Reason))
	case errors.As(err, &step):
		tgt.fail(&resp.Diagnostics, step.Step, step.Err)
	}
}
