package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

var (
	_ resource.Resource                = (*switchResource)(nil)
	_ resource.ResourceWithConfigure   = (*switchResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*switchResource)(nil)
	_ resource.ResourceWithImportState = (*switchResource)(nil)
	_ resource.ResourceWithIdentity    = (*switchResource)(nil)
)

func newSwitchResource() resource.Resource { return &switchResource{} }

type switchResource struct{ data *Data }

type switchModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	Model     types.String `tfsdk:"model"`
	Rack      types.String `tfsdk:"rack"`
	PositionU types.Int64  `tfsdk:"position_u"`
	Role      types.String `tfsdk:"role"`
	GUID      types.String `tfsdk:"guid"`
	Group     types.String `tfsdk:"group"`
	Ports     types.Int64  `tfsdk:"ports"`
}

const defaultSwitchModel = topogen.DefaultSwitchModel

func (r *switchResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_switch"
}

func (r *switchResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "An InfiniBand switch of the fabric, such as a " + defaultSwitchModel + " (the default `model`). The switch is a " +
			"declaration: the fabric resource assembles switches, HCAs and cables into one graph at plan time and " +
			"infers each switch's role (leaf, spine, core) from the cabling unless `role` says otherwise. " +
			"Cable ends name the switch by `name`, e.g. `{ device = \"leaf01\", port = 33 }`.",
		// The declared attributes are the rows of switchShape (fabric_inventory.go), the fabric's
		// `switches` element; id and ports are the resource's own.
		Attributes: switchShape.resourceAttributes(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The switch's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"ports": schema.Int64Attribute{
				Computed:            true,
				MarkdownDescription: "Number of ports of the model, from the catalog (" + docText().SwitchPorts() + ").",
			},
		}),
	}
}

func (r *switchResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerData(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan checks the model against the catalog (validators cannot: Terraform may validate
// before the provider is configured) and fills the computed `id` and `ports`.
func (r *switchResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m switchModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = m.Name
	m.Ports = types.Int64Unknown()
	if !m.Model.IsUnknown() {
		cat := inventoryCatalog(r.data)
		if sm, ok := cat.Switches[m.Model.ValueString()]; ok {
			m.Ports = types.Int64Value(int64(sm.Ports))
		} else {
			addUnknownModel(&resp.Diagnostics, path.Root("model"), "switch", m.Model.ValueString(), cat.SwitchNames())
			return
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (r *switchResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema("switch")
}

func (r *switchResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m switchModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

// Read keeps the state as it is: a switch declaration has nothing remote to refresh.
func (r *switchResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m switchModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

func (r *switchResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m switchModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

func (r *switchResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

const switchImportSyntax = "NAME,rack=R,position_u=U,guid=0x...[,model=M][,role=leaf|spine|core][,group=G]"

// ImportState takes `NAME,rack=R,position_u=U,guid=G[,model=M][,role=ROLE][,group=GROUP]`, or an
// identity `{ name }` (switch_identity.go).
func (r *switchResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if importByIdentity(req) {
		r.importIdentity(ctx, req, resp)
		return
	}
	name, kv, err := importid.Parse(req.ID, "model", "rack", "position_u", "role", "guid", "group")
	if err == nil {
		err = importid.Require(req.ID, kv, switchImportSyntax, "rack", "position_u", "guid")
	}
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	m := switchModel{
		ID: types.StringValue(name), Name: types.StringValue(name),
		Model: types.StringValue(defaultSwitchModel), Rack: types.StringValue(kv["rack"]),
		GUID: importString(kv, "guid"), Role: importString(kv, "role"), Group: importString(kv, "group"),
	}
	if v, ok := kv["model"]; ok {
		m.Model = types.StringValue(v)
	}
	m.PositionU = importInt64(&resp.Diagnostics, kv, "position_u")
	cat := inventoryCatalog(r.data)
	sm, ok := cat.Switches[m.Model.ValueString()]
	if !ok {
		addUnknownModel(&resp.Diagnostics, path.Root("model"), "switch", m.Model.ValueString(), cat.SwitchNames())
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Ports = types.Int64Value(int64(sm.Ports))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
