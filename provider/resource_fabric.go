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
	"github.com/hashicorp/terraform-plugin-framework/types"

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
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("analysis"), out.analysis)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), m.Name)...)
}

// fabricPlan is what planFabric computes for the plan.
type fabricPlan struct {
	analysis types.Object
	graph    *fabric.Graph // nil while the plan depends on unknown values
}

// planFabric builds, analyses and judges the fabric. While a value it depends on is unknown the
// computed outputs stay unknown and the checks run again at apply.
func planFabric(ctx context.Context, data *Data, m *fabricModel) (fabricPlan, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := fabricPlan{analysis: types.ObjectUnknown(analysisAttrTypes)}
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
	m.Analysis = out.analysis
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
