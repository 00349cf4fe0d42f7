package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

var (
	_ resource.Resource                = (*nodeResource)(nil)
	_ resource.ResourceWithConfigure   = (*nodeResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*nodeResource)(nil)
	_ resource.ResourceWithImportState = (*nodeResource)(nil)
	_ resource.ResourceWithIdentity    = (*nodeResource)(nil)
)

func newNodeResource() resource.Resource { return &nodeResource{} }

type nodeResource struct{ data *Data }

// nodeModel holds the inventory attributes of a node and, for a node with a BMC, what the
// provider sets and reads through it (node_bmc.go).
type nodeModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Model       types.String `tfsdk:"model"`
	Rack        types.String `tfsdk:"rack"`
	PositionU   types.Int64  `tfsdk:"position_u"`
	SSHHost     types.String `tfsdk:"ssh_host"`
	ComputeHCAs types.Int64  `tfsdk:"compute_hcas"`
	HCADevices  types.List   `tfsdk:"hca_devices"`

	BMC          types.Object   `tfsdk:"bmc"`
	PowerState   types.String   `tfsdk:"power_state"`
	BootDevice   types.Object   `tfsdk:"boot_device"`
	BMCUsers     types.List     `tfsdk:"bmc_users"`
	BIOSSettings types.Map      `tfsdk:"bios_settings"`
	ResetBIOS    types.String   `tfsdk:"reset_after_bios"`
	Inventory    types.Object   `tfsdk:"inventory"`
	Firmware     types.Object   `tfsdk:"firmware"`
	Timeouts     timeouts.Value `tfsdk:"timeouts"`
}

const defaultNodeModel = topogen.DefaultNodeModel

func (r *nodeResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_node"
}

func (r *nodeResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A GPU server such as a " + defaultNodeModel + " (the default `model`). The node places the server in a rack and says how " +
			"many compute HCAs it carries and under which RDMA device names; each of those HCAs is a " +
			"`gpucluster_hca` named `<node>/<device>` (`gpu001/mlx5_0`).\n\n" +
			"With `bmc`, the provider also brings the server up through its baseboard management controller: power, " +
			"boot override, BMC accounts and BIOS settings, read back at every refresh so that changes made outside " +
			"Terraform show in the plan. BMC credentials come from the provider's `bmc` block, or from a per-node " +
			"override that is kept in the state (use an encrypted state backend then). Destroying a node changes " +
			"nothing on the server: it is neither powered off nor reset, and its BMC accounts stay.",
		Blocks: map[string]schema.Block{"timeouts": nodeTimeoutsBlock(ctx)},
		// The declared attributes are the rows of nodeShape (fabric_inventory.go), the fabric's
		// `nodes` element; id, ssh_host, hca_devices and the BMC's are the resource's own.
		Attributes: nodeShape.resourceAttributes(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The node's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"ssh_host": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Host name or address, optionally with `:port`, for in-band work over SSH, e.g. " +
					"`gpu001.mgmt.example`. The node's HCAs take it as their own `ssh_host` " +
					"(`ssh_host = gpucluster_node.gpu001.ssh_host`) to run mlxconfig there. The user and key come from the " +
					"provider's `ssh` settings.",
				Validators: []validator.String{stringvalidator.RegexMatches(remote.HostRE,
					"must be a host name or an IP address, e.g. \"gpu001.mgmt.example\" or \"10.0.0.11\""), sshPortValidator()},
			},
			"hca_devices": schema.ListAttribute{
				ElementType: types.StringType,
				Optional:    true,
				Computed:    true,
				MarkdownDescription: "RDMA device names of the compute HCAs, one per compute HCA, in rail order. Defaults to " +
					"`mlx5_0` ... `mlx5_<compute_hcas-1>`. Set it when the kernel numbers them otherwise (storage or in-band " +
					"ports taking some `mlx5_N`). The names must be unique: each names one HCA of the node.",
				Validators: []validator.List{
					listvalidator.ValueStringsAre(deviceValidator()),
					listvalidator.UniqueValues(),
				},
			},
		}),
	}
	for k, a := range nodeBMCAttributes() {
		resp.Schema.Attributes[k] = a
	}
}

func (r *nodeResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerData(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan checks the model against the catalog, fills compute_hcas and hca_devices from it
// when they are not set, and checks that hca_devices names one device per compute HCA.
func (r *nodeResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m, cfg nodeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = m.Name
	r.modifyBMCPlan(ctx, req.State, &m, &cfg, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.ComputeHCAs.IsNull() {
		m.ComputeHCAs = types.Int64Unknown()
	}
	if !m.Model.IsUnknown() {
		cat := inventoryCatalog(r.data)
		nm, ok := cat.Nodes[m.Model.ValueString()]
		if !ok {
			addUnknownModel(&resp.Diagnostics, path.Root("model"), "node", m.Model.ValueString(), cat.NodeNames())
			return
		}
		if cfg.ComputeHCAs.IsNull() {
			m.ComputeHCAs = types.Int64Value(int64(nm.ComputeHCAs))
		}
	}
	switch {
	case cfg.HCADevices.IsNull():
		m.HCADevices = types.ListUnknown(types.StringType)
		if !m.ComputeHCAs.IsUnknown() {
			m.HCADevices = defaultHCADevices(int(m.ComputeHCAs.ValueInt64()))
		}
	case !cfg.HCADevices.IsUnknown() && !m.ComputeHCAs.IsUnknown():
		if n, want := len(cfg.HCADevices.Elements()), m.ComputeHCAs.ValueInt64(); int64(n) != want {
			from := "compute_hcas"
			if cfg.ComputeHCAs.IsNull() {
				from = fmt.Sprintf("compute_hcas, the %s default", m.Model.ValueString())
			}
			resp.Diagnostics.AddAttributeError(path.Root("hca_devices"), "Wrong number of HCA devices",
				fmt.Sprintf("hca_devices lists %d devices but the node has %d compute HCAs (%s); list one device per compute HCA or set compute_hcas = %d",
					n, want, from, n))
			return
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

// defaultHCADevices is hca_devices when the configuration leaves it out: fabric.DefaultHCADevices.
func defaultHCADevices(n int) types.List {
	l, _ := types.ListValueFrom(context.Background(), types.StringType, fabric.DefaultHCADevices(n))
	return l
}

func (r *nodeResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema("node")
}

// Create records the node and, when it has a BMC, sets it up through the BMC (node_bmc.go).
func (r *nodeResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m nodeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.BMC.IsNull() {
		timeout, d := m.Timeouts.Create(ctx, defaultNodeCreateTimeout)
		resp.Diagnostics.Append(d...)
		users, d := configUsers(ctx, req.Config)
		resp.Diagnostics.Append(d...)
		if resp.Diagnostics.HasError() {
			return
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		resp.Diagnostics.Append(r.bmcApply(ctx, &m, nil, users, timeout)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

// Read refreshes what the BMC reports; a node without a BMC is a declaration with nothing remote
// to refresh.
func (r *nodeResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m nodeModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.BMC.IsNull() {
		timeout, d := m.Timeouts.Read(ctx, defaultNodeReadTimeout)
		resp.Diagnostics.Append(d...)
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		resp.Diagnostics.Append(r.bmcRead(ctx, &m, timeout)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

// Update changes through the BMC what differs from the state (everything, when the node now
// points at another BMC), then reads the BMC back. Removing bmc makes the node an inventory
// record again and changes nothing on the server.
func (r *nodeResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m, prior nodeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.BMC.IsNull() {
		timeout, d := m.Timeouts.Update(ctx, defaultNodeUpdateTimeout)
		resp.Diagnostics.Append(d...)
		users, d := configUsers(ctx, req.Config)
		resp.Diagnostics.Append(d...)
		if resp.Diagnostics.HasError() {
			return
		}
		p := &prior
		if !sameBMCTarget(ctx, m.BMC, prior.BMC) {
			p = nil
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		resp.Diagnostics.Append(r.bmcApply(ctx, &m, p, users, timeout)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, nameIdentity{m.Name}, &resp.Diagnostics)
}

// Delete forgets the node. It changes nothing on the server: powering off or resetting a machine
// because a resource left the configuration (a rename, a refactor into modules) would take
// production hosts down by accident, so that stays an explicit power_state = "off".
func (r *nodeResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

const nodeImportSyntax = "NAME,rack=R,position_u=U[,model=M][,ssh_host=H][,compute_hcas=N][,hca_devices=mlx5_0;mlx5_1;...]"

// ImportState takes `NAME,rack=R,position_u=U[,model=M][,ssh_host=H][,compute_hcas=N]
// [,hca_devices=D0;D1;...]`; the devices are separated by ';' because ',' separates attributes.
//
// An identity `{ name }` imports the node by name (identity_import.go).
func (r *nodeResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if importByIdentity(req) {
		r.importIdentity(ctx, req, resp)
		return
	}
	name, kv, err := importid.Parse(req.ID, "model", "rack", "position_u", "ssh_host", "compute_hcas", "hca_devices")
	if err == nil {
		err = importid.Require(req.ID, kv, nodeImportSyntax, "rack", "position_u")
	}
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	m := nodeModel{
		ID: types.StringValue(name), Name: types.StringValue(name),
		Model: types.StringValue(defaultNodeModel), Rack: types.StringValue(kv["rack"]),
		SSHHost: importString(kv, "ssh_host"),
	}
	nullNodeBMCFields(&m)
	if v, ok := kv["model"]; ok {
		m.Model = types.StringValue(v)
	}
	m.PositionU = importInt64(&resp.Diagnostics, kv, "position_u")
	m.ComputeHCAs = importInt64(&resp.Diagnostics, kv, "compute_hcas")
	if resp.Diagnostics.HasError() {
		return
	}
	cat := inventoryCatalog(r.data)
	nm, ok := cat.Nodes[m.Model.ValueString()]
	if !ok {
		addUnknownModel(&resp.Diagnostics, path.Root("model"), "node", m.Model.ValueString(), cat.NodeNames())
		return
	}
	if m.ComputeHCAs.IsNull() {
		m.ComputeHCAs = types.Int64Value(int64(nm.ComputeHCAs))
	}
	if v, ok := kv["hca_devices"]; ok {
		devs := strings.Split(v, ";")
		if int64(len(devs)) != m.ComputeHCAs.ValueInt64() {
			resp.Diagnostics.AddError("Invalid import ID", fmt.Sprintf("hca_devices=%q lists %d devices but the node has %d compute HCAs; "+
				"list one per compute HCA, separated by ';'", v, len(devs), m.ComputeHCAs.ValueInt64()))
			return
		}
		l, diags := types.ListValueFrom(ctx, types.StringType, devs)
		resp.Diagnostics.Append(diags...)
		m.HCADevices = l
	} else {
		m.HCADevices = defaultHCADevices(int(m.ComputeHCAs.ValueInt64()))
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
