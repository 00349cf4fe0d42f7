package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
)

var (
	_ resource.Resource                = (*rackResource)(nil)
	_ resource.ResourceWithImportState = (*rackResource)(nil)
	_ resource.ResourceWithIdentity    = (*rackResource)(nil)
)

func newRackResource() resource.Resource { return &rackResource{} }

type rackResource struct{}

type rackModel struct {
	ID       types.String  `tfsdk:"id"`
	Name     types.String  `tfsdk:"name"`
	Row      types.Int64   `tfsdk:"row"`
	Position types.Int64   `tfsdk:"position"`
	Units    types.Int64   `tfsdk:"units"`
	PowerKW  types.Float64 `tfsdk:"power_kw"`
}

func (r *rackResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_rack"
}

func (r *rackResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A rack in the hall. `row` and `position` place it on a grid (600 mm per position, " +
			"2.4 m per row: rack depth plus aisle) from which the fabric estimates cable runs; `units` and " +
			"`power_kw` are the budgets the fabric checks the equipment against.",
		// The declared attributes are the rows of rackShape (fabric_inventory.go), the fabric's
		// `racks` element; id is the resource's own.
		Attributes: rackShape.resourceAttributes(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The rack's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		}),
	}
}

func (r *rackResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema("rack")
}

func (r *rackResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m rackModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = m.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

// Read keeps the state as it is: a rack is a declaration with nothing remote to refresh.
func (r *rackResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m rackModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

func (r *rackResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m rackModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = m.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

func (r *rackResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// ImportState takes `NAME,row=R,position=P[,units=U][,power_kw=K]`, or an identity `{ name }`:
// a rack is a declaration with nothing to read, so row and position come from the configuration
// at the first apply.
func (r *rackResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if importByIdentity(req) {
		name := importName(ctx, req, fabric.CheckName, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		n := types.StringValue(name)
		resp.Diagnostics.Append(resp.State.Set(ctx, &rackModel{ID: n, Name: n, Row: types.Int64Null(), Position: types.Int64Null(),
			Units: types.Int64Value(fabric.DefaultRackUnits), PowerKW: types.Float64Null()})...)
		return
	}
	ri, err := importid.ParseRack(req.ID)
	if err != nil {
		addImportErrors(&resp.Diagnostics, err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &rackModel{ID: types.StringValue(ri.Name), Name: types.StringValue(ri.Name),
		Row: types.Int64Value(ri.Row), Position: types.Int64Value(ri.Position), Units: types.Int64Value(ri.Units),
		PowerKW: types.Float64PointerValue(ri.PowerKW)})...)
}
