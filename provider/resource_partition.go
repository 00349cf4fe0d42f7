package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
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

var partitionMemberAttrTypes = map[string]attr.Type{
	"hca": types.StringType, "guid": types.StringType, "membership": types.StringType,
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
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The partition's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Partition name as OpenSM logs it, e.g. `compute`: up to 31 letters, digits, `_`, `.` or `-`, " +
					"starting with a letter or `_` (OpenSM reads a leading digit as a P_Key and splits on `,` `=` `:` `;`).",
				Validators:    []validator.String{partitionNameValidator()},
				PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
			},
			"pkey": schema.StringAttribute{
				Required: true,
				MarkdownDescription: "Partition key as `0x` and 4 hex digits, from `0x0001` to `0x7ffe`. The top bit (0x8000) " +
					"is the membership bit, which each member's `membership` sets; `0x7fff` is the default partition. " +
					"Each partition of a fabric needs its own key (OpenSM merges partitions that share one).",
				Validators: []validator.String{pkeyValidator()},
			},
			"members": schema.ListNestedAttribute{
				Required: true,
				MarkdownDescription: "Members of the partition: each names an HCA of the fabric (`{ hca = \"gpu001/mlx5_0\" }`) " +
					"or a port GUID or OpenSM keyword (`{ guid = \"ALL_CAS\" }`), with a membership.",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
				NestedObject: schema.NestedAttributeObject{
					Validators: []validator.Object{partitionMemberValidator{}},
					Attributes: map[string]schema.Attribute{
						"hca": schema.StringAttribute{
							Optional:            true,
							MarkdownDescription: "Name of a `gpucluster_hca` of the fabric, e.g. `gpu001/mlx5_0`; its `port_guid` goes into the file.",
							Validators:          []validator.String{hcaNameValidator()},
						},
						"guid": schema.StringAttribute{
							Optional: true,
							MarkdownDescription: "A port GUID (`0x` and 16 hex digits), or one of OpenSM's keywords: `ALL` (every port), " +
								"`ALL_CAS` (every HCA port), `ALL_SWITCHES`, `ALL_ROUTERS`, `SELF` (the subnet manager's own port).",
							Validators: []validator.String{memberGUIDValidator()},
						},
						"membership": schema.StringAttribute{
							Optional: true,
							Computed: true,
							Default:  stringdefault.StaticString(fabric.DefaultMembership),
							MarkdownDescription: "`full` (talks to every member) or `limited` (talks to full members only). " +
								"Defaults to `full` (in partitions.conf an omitted membership means limited).",
							Validators: []validator.String{membershipValidator()},
						},
					},
				},
			},
			"ipoib": schema.BoolAttribute{
				Optional:            true,
				Computed:            true,
				Default:             booldefault.StaticBool(false),
				MarkdownDescription: "Create the IPoIB broadcast group of the partition (OpenSM's `ipoib` flag). Defaults to `false`.",
			},
			"mtu": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "MTU of the IPoIB broadcast group in bytes, one of the InfiniBand MTUs: `256`, `512`, `1024`, " +
					"`2048` or `4096` (4096 on a GPU fabric; smaller ones only cost bandwidth). Unset: OpenSM's default (2048). " +
					"The provider writes OpenSM's IBTA code (`mtu=1` ... `mtu=5`; 4096 is `mtu=5`).",
				Validators: []validator.Int64{mtuValidator()},
			},
			"rate": schema.Int64Attribute{
				Optional: true,
				MarkdownDescription: "Rate of the IPoIB broadcast group in Gb/s, one of the InfiniBand path rates: " +
					fabric.PartitionRateList() + " (400 for NDR). Unset: OpenSM's default (10). The provider writes " +
					"OpenSM's enum (`rate=21` for 400).",
				Validators: []validator.Int64{rateValidator()},
			},
			"sl": schema.Int64Attribute{
				Optional:            true,
				Computed:            true,
				Default:             int64default.StaticInt64(0),
				MarkdownDescription: "Service level of the broadcast group, 0-15. Defaults to `0`.",
				Validators:          []validator.Int64{slValidator()},
			},
		},
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
			Members: types.ListNull(types.ObjectType{AttrTypes: partitionMemberAttrTypes}),
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
		members[i] = types.ObjectValueMust(partitionMemberAttrTypes, map[string]attr.Value{
			"hca": strOrNull(pm.HCA), "guid": strOrNull(pm.GUID), "membership": types.StringValue(pm.Membership),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &partitionModel{ID: types.StringValue(pi.Name), Name: types.StringValue(pi.Name),
		PKey: types.StringValue(pi.PKey), Members: types.ListValueMust(types.ObjectType{AttrTypes: partitionMemberAttrTypes}, members),
		IPoIB: types.BoolValue(pi.IPoIB), MTU: types.Int64PointerValue(pi.MTU), Rate: types.Int64PointerValue(pi.Rate), SL: types.Int64Value(pi.SL)})...)
}
