package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

var (
	_ resource.Resource               = (*fabricResource)(nil)
	_ resource.ResourceWithConfigure  = (*fabricResource)(nil)
	_ resource.ResourceWithModifyPlan = (*fabricResource)(nil)
)

func init() { resources = append(resources, newFabricResource) }

func newFabricResource() resource.Resource { return &fabricResource{} }

type fabricResource struct {
	data *Data
}

type fabricModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Racks       types.List   `tfsdk:"racks"`
	Switches    types.List   `tfsdk:"switches"`
	Nodes       types.List   `tfsdk:"nodes"`
	HCAs        types.List   `tfsdk:"hcas"`
	Cables      types.List   `tfsdk:"cables"`
	Partitions  types.List   `tfsdk:"partitions"`
	Transport   types.String `tfsdk:"transport"`
	PFC         types.Bool   `tfsdk:"pfc"`
	Policy      types.Object `tfsdk:"policy"`
	PolicyFiles types.List   `tfsdk:"policy_files"`
	Workload    types.Object `tfsdk:"workload"`
	Analysis    types.Object `tfsdk:"analysis"`
	BOM         types.Object `tfsdk:"bom"`
	BOMDelta    types.Object `tfsdk:"bom_delta"`
}

func (r *fabricResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fabric"
}

func (r *fabricResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (r *fabricResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
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
	attrs["transport"] = transportSchema()
	attrs["pfc"] = schema.BoolAttribute{Optional: true, MarkdownDescription: "Priority flow control is configured end to end (RoCE only)."}
	attrs["policy"] = policySchema()
	attrs["policy_files"] = schema.ListAttribute{
		Optional: true, ElementType: types.StringType,
		MarkdownDescription: "HCL files of custom `rule` blocks, evaluated against `fabric` and `analysis` like Terraform preconditions.",
	}
	attrs["workload"] = workloadSchema()
	attrs["analysis"] = analysisSchema()
	attrs["bom"] = bomSchema("Bill of materials of the whole fabric: switches, nodes, HCAs, cables by kind and standard " +
		"length, transceivers and fibers, priced from the catalog.")
	attrs["bom_delta"] = bomSchema("What this plan adds to (positive quantities) or frees from (negative) the fabric in " +
		"the prior state: the purchase order of an expansion. On create it equals `bom`; a plan that leaves the bill " +
		"of materials unchanged keeps the delta of the last change, so an unchanged fabric plans no diff.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "The whole fabric. At plan time it assembles the racks, switches, nodes, HCAs, cables and " +
			"partitions into one graph, checks it across resources (ports used twice, reach, rack budgets, " +
			"connectivity), proves the bisection bandwidth and oversubscription, and fails the plan on a policy " +
			"violation with the rule, the measured and required values and the witness.",
		Attributes: attrs,
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
	out, diags := planFabric(ctx, r.data, &m)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	out.delta(ctx, r.data, req.State)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("analysis"), out.analysis)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("bom"), out.bomObj)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("bom_delta"), out.deltaObj)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), m.Name)...)
}

// fabricPlan is what planFabric computes for the plan.
type fabricPlan struct {
	analysis types.Object
	bomObj   types.Object
	deltaObj types.Object
	bom      *bom.BOM      // nil while the plan depends on unknown values
	graph    *fabric.Graph // nil while the plan depends on unknown values
}

// delta fills bom_delta against the fabric in the prior state. The prior BOM is rebuilt from
// the prior state's own lists rather than read back from its `bom` output, so the difference is
// exact down to the cabling rows; a prior state that no longer builds counts as empty.
func (p *fabricPlan) delta(ctx context.Context, data *Data, state tfsdk.State) {
	if p.bom == nil {
		return
	}
	var prior bom.BOM
	if !state.Raw.IsNull() {
		var m fabricModel
		if !state.Get(ctx, &m).HasError() {
			// Nothing to buy or free: keep the delta of the last change, so a plan of an
			// unchanged fabric stays empty.
			if m.BOM.Equal(p.bomObj) && !m.BOMDelta.IsNull() && !m.BOMDelta.IsUnknown() {
				p.deltaObj = m.BOMDelta
				return
			}
			rd := specReader{}
			if spec := rd.spec(ctx, &m); !rd.unknown && !rd.diags.HasError() {
				if g, problems := fabric.Build(spec, data.Catalog); !fabric.HasErrors(problems) {
					prior = bom.FromGraph(g, data.Catalog)
				}
			}
		}
	}
	p.deltaObj = bomValue(bom.Delta(prior, *p.bom))
}

// planFabric builds, analyses and judges the fabric. While a value it depends on is unknown the
// computed outputs stay unknown and the checks run again at apply.
func planFabric(ctx context.Context, data *Data, m *fabricModel) (fabricPlan, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := fabricPlan{
		analysis: types.ObjectUnknown(analysisAttrTypes),
		bomObj:   types.ObjectUnknown(bomAttrTypes),
		deltaObj: types.ObjectUnknown(bomAttrTypes),
	}
	rd := specReader{}
	spec := rd.spec(ctx, m)
	diags.Append(rd.diags...)
	if diags.HasError() || rd.unknown {
		return out, diags
	}
	g, problems := fabric.Build(spec, data.Catalog)
	for _, p := range problems {
		if p.Severity == fabric.Warning {
			diags.AddAttributeWarning(problemPath(p.Path), "Fabric: "+p.Rule, p.Message)
		} else {
			diags.AddAttributeError(problemPath(p.Path), "Fabric: "+p.Rule, p.Message)
		}
	}
	if diags.HasError() {
		return out, diags
	}
	out.graph = g
	a, violations, d := judgeFabric(ctx, g, m)
	diags.Append(d...)
	out.analysis = analysisValue(a, violations)
	b := bom.FromGraph(g, data.Catalog)
	out.bom, out.bomObj = &b, bomValue(b)
	return out, diags
}

func (r *fabricResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m fabricModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.finalize(ctx, &m, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// finalize fills what the plan left unknown (values that only became known during apply).
func (r *fabricResource) finalize(ctx context.Context, m *fabricModel, diags *diag.Diagnostics) {
	m.ID = m.Name
	if !m.Analysis.IsUnknown() {
		return
	}
	out, d := planFabric(ctx, r.data, m)
	diags.Append(d...)
	m.Analysis, m.BOM = out.analysis, out.bomObj
	if m.BOMDelta.IsUnknown() {
		m.BOMDelta = out.bomObj
	}
}

func (r *fabricResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m fabricModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *fabricResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m fabricModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	r.finalize(ctx, &m, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *fabricResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
