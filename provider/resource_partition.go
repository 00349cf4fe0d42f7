package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
)

var (
	_ resource.Resource                = (*partitionResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*partitionResource)(nil)
	_ resource.ResourceWithImportState = (*partitionResource)(nil)
	_ resource.ResourceWithIdentity    = (*partitionResource)(nil)
	_ resource.ResourceWithConfigure   = (*partitionResource)(nil)
)

func newPartitionResource() resource.Resource { return &partitionResource{} }

type partitionResource struct{ data *Data }

// Configure keeps the provider's settings: an import from UFM reads its PKeys (partition_ufm.go).
func (r *partitionResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerData(req.ProviderData, &resp.Diagnostics)
}

type partitionModel struct {
	ID      types.String `tfsdk:"id"`
	Name    types.String `tfsdk:"name"`
	PKey    types.String `tfsdk:"pkey"`
	Members types.List   `tfsdk:"members"`
	IPoIB   types.Bool   `tfsdk:"ipoib"`
	MTU     types.Int64  `tfsdk:"mtu"`
	Rate    types.Int64  `tfsdk:"rate"`
	SL      types.Int64  `tfsdk:"sl"`
}

func (r *partitionResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_partition"
}

func (r *partitionResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "An InfiniBand partition: a P_Key and its members, rendered into OpenSM's `partitions.conf` " +
			"by the fabric resource (`NAME=PKEY[,ipoib][,mtu=..][,rate=..][,sl=..] : MEMBER=full|limited, ... ;`). " +
			"The default partition 0x7fff always exists and is not declared here. Where UFM runs the subnet manager " +
			"(`subnet_manager.kind = \"ufm\"`), the fabric applies it through UFM's PKey REST API instead, and an existing " +
			"UFM PKey is imported as UFM holds it, by the ID `NAME,ufm=0x0101` or by identity with the name the " +
			"`gpucluster_partition` list resource gives.",
		// The declared attributes are the rows of partitionShape (fabric_inventory.go), the
		// fabric's `partitions` element; id is the resource's own.
		Attributes: partitionShape.resourceAttributes(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The partition's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
		}),
	}
}

// ModifyPlan only fills the id, so references to it are known at plan time; a partition needs
// nothing from the catalog.
func (r *partitionResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), name)...)
}

func (r *partitionResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema("partition")
}

func (r *partitionResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m partitionModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = m.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

// Read keeps the state as it is: the partition reaches OpenSM through the fabric resource, which
// reads the file back.
func (r *partitionResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m partitionModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

func (r *partitionResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m partitionModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = m.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

func (r *partitionResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}

// ImportState takes the ID importid.ParsePartition reads, or an identity `{ name }`. The ID
// NAME,ufm=PKEY, and an identity whose name the provider's UFM lists, import the PKey as UFM holds
// it (partition_ufm.go). Any other identity imports the name alone: the key and members come from
// the configuration at the first apply (the partition reaches OpenSM through the fabric, whose
// refresh reads partitions.conf back).
func (r *partitionResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if importByIdentity(req) {
		name := importName(ctx, req, fabric.CheckPartitionName, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		if r.data != nil && r.data.UFM != nil {
			if m, found := importUFMByName(ctx, r.data, name, &resp.Diagnostics); found || resp.Diagnostics.HasError() {
				if !resp.Diagnostics.HasError() {
					resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
				}
				return
			}
		}
		n := types.StringValue(name)
		resp.Diagnostics.Append(resp.State.Set(ctx, &partitionModel{ID: n, Name: n, PKey: types.StringNull(),
			Members: types.ListNull(memberObjType),
			IPoIB:   types.BoolValue(false), MTU: types.Int64Null(), Rate: types.Int64Null(), SL: types.Int64Value(0)})...)
		return
	}
	pi, errs := importid.ParsePartition(req.ID)
	if len(errs) > 0 {
		addImportErrors(&resp.Diagnostics, errs...)
		return
	}
	if pi.UFM != 0 {
		if m, ok := importUFMByKey(ctx, r.data, pi.Name, pi.UFM, &resp.Diagnostics); ok {
			resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
		}
		return
	}
	members := make([]attr.Value, len(pi.Members))
	for i, pm := range pi.Members {
		members[i] = types.ObjectValueMust(memberAttrTypes, map[string]attr.Value{
			"hca": strOrNull(pm.HCA), "guid": strOrNull(pm.GUID), "membership": types.StringValue(pm.Membership),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &partitionModel{ID: types.StringValue(pi.Name), Name: types.StringValue(pi.Name),
		PKey: types.StringValue(pi.PKey), Members: types.ListValueMust(memberObjType, members),
		IPoIB: types.BoolValue(pi.IPoIB), MTU: types.Int64PointerValue(pi.MTU), Rate: types.Int64PointerValue(pi.Rate), SL: types.Int64Value(pi.SL)})...)
}
