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
				Required: true,
				MarkdownDescription: "The node whose BMC `bmc` is, e.g. `gpucluster_node.gpu001.name` beside " +
					"`bmc = gpucluster_node.gpu001.bmc`: what progress lines and errors call it, each beside the BMC actually " +
					"touched (`node gpu001 (BMC 10.0.0.11:443): already on ...`). The BMC decides the machine, not the name: " +
					"where this run reads or applies a `gpucluster_node` with that BMC (as with an `action_trigger` on it, or " +
					"the nodes refreshed before an `-invoke`), a `node` that is not that node is refused before the BMC is " +
					"touched; a BMC no declared node has is acted on under the name given.",
				Validators: []validator.String{nameValidator()},
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
	node := tgt.node
	owners := &bmc.Owners{}
	if a.data != nil && a.data.bmcOwners != nil {
		owners = a.data.bmcOwners
	}
	key, owner, known := owners.Owner(tgt.cfg)
	if known && owner != node {
		// The BMC is what is touched: a name that is not its node's would act on one machine and
		// report another (issue 32).
		resp.Diagnostics.AddAttributeError(path.Root("node"), "bmc is another node's BMC",
			fmt.Sprintf("The BMC at %s is gpucluster_node %q's (this run reads or applies it with that bmc), and node is %q: "+
				"the action would act on %s while naming %s. Give the node and its own BMC together: node = "+
				"gpucluster_node.%s.name with bmc = gpucluster_node.%s.bmc, or the bmc of %s.", key, owner, node, owner, node, owner, owner, node))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = maskSecrets(ctx, tgt.cfg.Password)
	tgt.cfg.Logger = bmcLogger(ctx)
	// Every line names the BMC touched beside the node it was given as, so the log says which
	// machine was acted on even for a node this run does not declare.
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
