package provider

import (
	"context"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/ufm"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

var (
	_ resource.Resource               = (*fabricResource)(nil)
	_ resource.ResourceWithConfigure  = (*fabricResource)(nil)
	_ resource.ResourceWithModifyPlan = (*fabricResource)(nil)
)

func newFabricResource() resource.Resource { return withFabricIdentity(&fabricResource{}) }

type fabricResource struct {
	data *Data
}

type fabricModel struct {
	ID   types.String `tfsdk:"id"`
	Name types.String `tfsdk:"name"`

	fabricInputsModel               // design, absent_cables and the inventory maps (fabric_inputs.go)
	AsBuilt           types.Dynamic `tfsdk:"as_built"`

	FailedCables types.List `tfsdk:"failed_cables"`

	Transport   types.String `tfsdk:"transport"`
	PFC         types.Bool   `tfsdk:"pfc"`
	Policy      types.Object `tfsdk:"policy"`
	PolicyFiles types.List   `tfsdk:"policy_files"`
	Workload    types.Object `tfsdk:"workload"`
	Analysis    types.Object `tfsdk:"analysis"`
	BOM         types.Object `tfsdk:"bom"`
	Summary     types.String `tfsdk:"summary"` // plan.Standing: where the plan summary is, then totals

	SubnetManager types.Object   `tfsdk:"subnet_manager"`
	OpenSM        types.Map      `tfsdk:"opensm"`
	UFMPartitions types.Map      `tfsdk:"ufm_partitions"`
	Timeouts      timeouts.Value `tfsdk:"timeouts"`
}

func (r *fabricResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fabric"
}

func (r *fabricResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (r *fabricResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := fabricInputAttributes()
	attrs["id"] = schema.StringAttribute{
		Computed: true, MarkdownDescription: "The fabric's name.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
	attrs["name"] = schema.StringAttribute{
		Required: true, MarkdownDescription: "Fabric name, e.g. `compute`.",
		Validators:    []validator.String{nameValidator()},
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
	attrs[plan.AttrAsBuilt] = fabricAsBuiltAttribute()
	attrs["failed_cables"] = failedCablesSchema()
	attrs["transport"] = transportSchema()
	attrs["pfc"] = schema.BoolAttribute{Optional: true, MarkdownDescription: "Priority flow control is configured end to end (RoCE only)."}
	attrs["policy"] = policySchema()
	attrs["policy_files"] = schema.ListAttribute{
		Optional: true, ElementType: types.StringType,
		MarkdownDescription: "HCL files of custom `rule` blocks, evaluated against `fabric` and `analysis` like Terraform preconditions.",
		Validators:          []validator.List{filePathsValidator("an HCL file of rule blocks")},
	}
	attrs["workload"] = workloadSchema()
	attrs["analysis"] = analysisSchema()
	attrs["bom"] = bomSchema("Bill of materials of the whole fabric: switches, nodes, HCAs, cables by kind and standard " +
		"length, transceivers and fibers, priced from the catalog. Its items are keyed by SKU, so the plan's diff of " +
		"`bom` is the purchase order of a change: every SKU whose quantity changes, before and after.")
	attrs["summary"] = schema.StringAttribute{
		Computed: true,
		MarkdownDescription: "The fabric as planned, in a few lines. Its first line says where the plan summary is " +
			"(the warning `Fabric plan summary (<name>)`, which Terraform prints after the whole plan); then the " +
			"devices by role, the links by tier and the policy verdict, as totals, so the plan's diff of `summary` " +
			"shows the change in counts. Terraform lists resource changes by address, so with per-item " +
			"`gpucluster_hca` and `gpucluster_node` resources the fabric's diff, and this attribute, come before theirs. " +
			"A plan that changes nothing the summary speaks of keeps the stored value.",
	}
	attrs["subnet_manager"] = subnetManagerSchema()
	attrs["opensm"] = openSMSchema()
	attrs["ufm_partitions"] = ufmPartitionsSchema()
	resp.Schema = schema.Schema{
		MarkdownDescription: "The whole fabric. At plan time it assembles the racks, switches, nodes, HCAs, cables and " +
			"partitions into one graph, checks it across resources (ports used twice, reach, rack budgets, " +
			"connectivity), proves the bisection bandwidth and oversubscription, and fails the plan on a policy " +
			"violation with the rule, the measured and required values and the witness. A plan that changes the " +
			"fabric prints one short summary as a warning: devices and links added, removed and rewired per tier, " +
			"what to buy per SKU and its cost, and the policy verdict. It also renders the exact OpenSM files " +
			"(`opensm` holds a digest per file; `gpucluster_opensm_files` gives their text) and, with " +
			"`subnet_manager`, pushes them to the subnet manager hosts at apply, verifies that OpenSM routes as " +
			"intended and rolls back if not; a refresh reads the files back from the first host, so a hand edit " +
			"shows as a change of that file's digest in the next plan.\n\n" +
			"**State holds secrets** when `subnet_manager.ssh_private_key` is set (refresh needs the key, so it is kept " +
			"in state, marked sensitive): use a backend that encrypts state at rest, or leave the key to the " +
			"provider's `ssh` block.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{"timeouts": timeouts.Block(ctx, timeouts.Opts{
			Create: true, Read: true, Update: true, Delete: true,
			CreateDescription: "Bound on the first push to the subnet manager hosts, verification included (default 20m).",
			ReadDescription:   "Bound on reading the OpenSM files back from the first subnet manager host at refresh (default 2m).",
			UpdateDescription: "Bound on a push to the subnet manager hosts, verification included (default 20m).",
			DeleteDescription: "Bound on restoring the subnet manager hosts' original files at destroy (default 10m).",
		})},
	}
}

// ModifyPlan is where the fabric is judged: everything here runs at `terraform plan`.
func (r *fabricResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var m fabricModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The lists come from Wrap's stash (the framework got them null; see provider/tfwire).
	fp, diags := planFabric(ctx, r.data, withStashedLists(ctx, tfwire.FromProposed, &m, &resp.Diagnostics))
	var summary string
	if fp.out != nil {
		// The summary comes first and also when the policy fails: it is what a reviewer reads.
		summary = r.summarize(ctx, req.State, &m, fp.out, &resp.Diagnostics)
	}
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("analysis"), fp.analysis)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("bom"), fp.bom)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("opensm"), fp.opensm)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ufm_partitions"), fp.ufm)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), m.Name)...)
	if fp.out != nil {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("summary"), r.plannedSummary(ctx, req.State, &m, summary, fp.out))...)
	}
}

// fabricPlan is the plan pipeline's outcome (nil while the plan depends on unknown values or the
// inputs hold errors) and the computed attributes it gives: unknown while it is nil.
type fabricPlan struct {
	out      *plan.Outcome
	analysis types.Object
	bom      types.Object
	opensm   types.Map
	ufm      types.Map // ufm_partitions (fabric_ufm.go)
}

// planFabric decodes the fabric's inputs and settings and runs the plan pipeline: build,
// analyse, judge, price and render. While a value it depends on is unknown the computed outputs
// stay unknown and the checks run again at apply.
func planFabric(ctx context.Context, data *Data, m *fabricModel) (fabricPlan, diag.Diagnostics) {
	fp := fabricPlan{
		analysis: types.ObjectUnknown(analysisAttrTypes),
		bom:      types.ObjectUnknown(bomAttrTypes),
		opensm:   types.MapUnknown(digestType),
		ufm:      types.MapUnknown(types.StringType),
	}
	began := time.Now()
	cat := inventoryCatalog(data)
	inputs, unknown, diags := decodeInputs(ctx, &m.fabricInputsModel)
	diags = capDiagnostics(diags)
	failed, known, d := failedCables(ctx, m.FailedCables)
	diags.Append(d...)
	if unknown || !known || diags.HasError() {
		return fp, diags
	}
	inputs.Failed = failed
	f, ps := plan.Build(cat, inputs)
	addPlanProblems(&diags, ps)
	if f == nil {
		return fp, diags
	}
	req, d := fabricRequest(ctx, data, m)
	diags.Append(d...)
	if diags.HasError() {
		return fp, diags
	}
	out := plan.Run(cat, f, req)
	addPlanProblems(&diags, out.Problems)
	progress(ctx, "%s", out.Progress(m.Name.ValueString(), time.Since(began)))
	fp.out = out
	fp.analysis = analysisValue(out.Analysis, out.Degraded, out.CutOff.Unreachable(), plan.Lines(out.Violations))
	fp.bom = bomValue(out.BOM)
	switch {
	case out.OpenSM != nil:
		fp.opensm = openSMValue(out.OpenSM.Files)
	case req.OpenSM != nil && !req.Managed:
		fp.opensm = types.MapNull(digestType) // not rendered, nothing pushed: the warning says why
	}
	if kind := smKind(m.SubnetManager); kind != "" || m.SubnetManager.IsNull() {
		fp.ufm = planUFM(kind, out.Partitions, out.PartitionsResolved, &diags)
	}
	return fp, diags
}

func (r *fabricResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan, &resp.State, false, types.MapNull(types.StringType), &resp.Diagnostics)
}

func (r *fabricResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var prior types.Map // the UFM PKeys the fabric owns
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("ufm_partitions"), &prior)...)
	r.apply(ctx, req.Plan, &resp.State, true, prior, &resp.Diagnostics)
}

// apply is Create and Update: fill what the plan left unknown, push to the subnet managers, and
// record the new state only when the push succeeded. A failed push leaves the prior state (or
// none): the failing host was rolled back, and the next plan shows the same change and pushes
// it again (hosts that already have the files are left alone).
func (r *fabricResource) apply(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, update bool, prior types.Map, diags *diag.Diagnostics) {
	var m fabricModel
	diags.Append(plan.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	timeout, d := m.Timeouts.Create(ctx, defaultFabricPushTimeout)
	if update {
		timeout, d = m.Timeouts.Update(ctx, defaultFabricPushTimeout)
	}
	diags.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	rendered := r.finalize(ctx, &m, diags)
	if diags.HasError() {
		return
	}
	// The subnet manager's partition target, by kind (fabric_target.go); none without a
	// subnet_manager.
	if kind := smKind(m.SubnetManager); kind != "" && !r.applyTarget(ctx, kind, &m, rendered, prior, diags) {
		return
	}
	diags.Append(state.Set(ctx, &m)...)
}

// Default timeouts of the subnet manager work.
const (
	defaultFabricPushTimeout   = 20 * time.Minute
	defaultFabricReadTimeout   = 2 * time.Minute
	defaultFabricDeleteTimeout = 10 * time.Minute
)

// finalize fills what the plan left unknown (values that only became known during apply) and,
// with subnet_manager, renders the OpenSM files again from the planned inputs: the plan keeps
// only their digests, and the texts pushed must be exactly the ones the plan showed.
func (r *fabricResource) finalize(ctx context.Context, m *fabricModel, diags *diag.Diagnostics) *plan.Rendered {
	m.ID = m.Name
	// UFM takes the planned ufm_partitions, not files: its files are for reference only, and
	// one OpenSM cannot render (an SL without OpenSM's qos) must not stop the apply.
	push := !m.SubnetManager.IsNull() && smKind(m.SubnetManager) != ufm.Kind
	if !m.Analysis.IsUnknown() && !m.OpenSM.IsUnknown() && !m.UFMPartitions.IsUnknown() && !m.Summary.IsUnknown() && !push {
		return nil
	}
	// The lists come from Wrap's stash; m itself keeps the null lists the framework sent, as
	// it goes back through State.Set (Wrap restores the planned lists in the response).
	planned := withStashedLists(ctx, tfwire.FromPlanned, m, diags)
	rendered, ok := r.finalRender(ctx, m, planned, diags)
	if !ok {
		return nil
	}
	if m.OpenSM.IsUnknown() {
		diags.AddError("Fabric still unknown at apply", "The fabric's inputs hold values that are still unknown at apply; this is a bug in the provider or in Terraform.")
		return nil
	}
	if rendered == nil {
		return nil
	}
	if bad := opensm.Mismatch(rendered.Files, openSMDigests(m.OpenSM)); len(bad) > 0 {
		diags.AddAttributeError(path.Root("opensm"), "OpenSM files differ from the plan",
			"The files rendered at apply from the planned inputs do not have the digests the plan showed ("+
				strings.Join(bad, ", ")+"), so nothing is pushed. This is a bug in the provider: the rendering "+
				"must depend on the planned inputs only. Run the plan again and report it if it persists.")
		return nil
	}
	return rendered
}

// finalRender renders the planned files for the push. Outputs the plan left unknown are
// computed by the whole pipeline; when the plan knew them, only the files are rendered again
// (the analysis of a large fabric is the expensive part and its result is already planned).
func (r *fabricResource) finalRender(ctx context.Context, m, planned *fabricModel, diags *diag.Diagnostics) (*plan.Rendered, bool) {
	if m.Analysis.IsUnknown() || m.OpenSM.IsUnknown() || m.UFMPartitions.IsUnknown() || m.Summary.IsUnknown() {
		fp, d := planFabric(ctx, r.data, planned)
		diags.Append(d...)
		if diags.HasError() || fp.out == nil {
			return nil, false
		}
		if m.Analysis.IsUnknown() {
			m.Analysis, m.BOM = fp.analysis, fp.bom
		}
		if m.OpenSM.IsUnknown() {
			m.OpenSM = fp.opensm
		}
		if m.UFMPartitions.IsUnknown() {
			m.UFMPartitions = fp.ufm
		}
		if m.Summary.IsUnknown() {
			m.Summary = types.StringValue(plan.Standing(summaryTitle(m), fp.out))
		}
		return fp.out.OpenSM, true
	}
	f, _, d := readFabric(ctx, inventoryCatalog(r.data), &planned.fabricInputsModel, false)
	diags.Append(d...)
	req, d := fabricRequest(ctx, r.data, planned)
	diags.Append(d...)
	if diags.HasError() || f == nil || req.OpenSM == nil {
		return nil, false
	}
	rendered, ps := plan.Render(f, *req.OpenSM)
	addPlanProblems(diags, ps)
	return rendered, !diags.HasError()
}

func (r *fabricResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m fabricModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Read(ctx, defaultFabricReadTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.refreshOpenSM(ctx, &m, &resp.Diagnostics)
	r.refreshUFM(ctx, &m, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete puts every subnet manager host back as it was before the provider's first push to it
// (opensm.UnpushAll, standbys first): the files that existed get their old content back, the
// files the provider created are removed, and OpenSM is restarted or signalled, or stopped if it
// was not running then. A host without that snapshot (the provider never changed it) is left as
// it is.
func (r *fabricResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m fabricModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Delete(ctx, defaultFabricDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if kind := smKind(m.SubnetManager); kind != "" {
		r.destroyTarget(ctx, kind, &m, &resp.Diagnostics)
	}
}
