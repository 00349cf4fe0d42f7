package provider

import (
	"context"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

var (
	_ resource.Resource                = (*hcaResource)(nil)
	_ resource.ResourceWithConfigure   = (*hcaResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*hcaResource)(nil)
	_ resource.ResourceWithImportState = (*hcaResource)(nil)
	_ resource.ResourceWithIdentity    = (*hcaResource)(nil)
)

func newHCAResource() resource.Resource { return &hcaResource{} }

type hcaResource struct{ data *Data }

// hcaModel holds the inventory attributes of an HCA and, for an HCA with firmware_settings, what
// the provider sets and reads with mlxconfig on its node (hca_firmware.go).
type hcaModel struct {
	ID        types.String `tfsdk:"id"`
	Name      types.String `tfsdk:"name"`
	Node      types.String `tfsdk:"node"`
	Device    types.String `tfsdk:"device"`
	Model     types.String `tfsdk:"model"`
	PortGUID  types.String `tfsdk:"port_guid"`
	Rail      types.Int64  `tfsdk:"rail"`
	MSTDevice types.String `tfsdk:"mst_device"`

	FirmwareSettings    types.Map      `tfsdk:"firmware_settings"`
	UncheckedParameters types.Set      `tfsdk:"unchecked_parameters"`
	SSHHost             types.String   `tfsdk:"ssh_host"`
	SSH                 types.Object   `tfsdk:"ssh"`
	Tool                types.String   `tfsdk:"tool"`
	Reset               types.String   `tfsdk:"reset"`
	PendingReboot       types.Bool     `tfsdk:"pending_reboot"`
	FirmwareVersion     types.String   `tfsdk:"firmware_version"`
	Firmware            types.Object   `tfsdk:"firmware"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
}

// defaultHCAModel is the default node's HCA in the catalog (ConnectX-7-OSFP on a DGX-H100).
var defaultHCAModel = builtinCatalog().Nodes[defaultNodeModel].HCAModel

var (
	// mstDeviceRE accepts what mlxconfig -d and mstconfig -d take: an mst device path, a PCI
	// address or an RDMA device name; one word, so it passes through a remote shell unchanged.
	mstDeviceRE = regexp.MustCompile(`^[A-Za-z0-9/][A-Za-z0-9/._:-]{0,254}$`)
)

func (r *hcaResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_hca"
}

func (r *hcaResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "A compute HCA port of a node, such as " + docText().HCAExample() + ". Its `name` (`<node>/<device>`, e.g. `gpu001/mlx5_0`) is the device name of cable ends and of " +
			"partition members; its `port_guid` goes into OpenSM's files.\n\n" +
			"With `firmware_settings`, the provider also configures the adapter's firmware parameters with `mlxconfig` " +
			"(or mstflint's `mstconfig`), run over SSH on the node named by `ssh_host`, and reads them back at every " +
			"refresh. Destroying the HCA, or removing `firmware_settings`, changes nothing on the card.",
		Blocks: map[string]schema.Block{"timeouts": hcaTimeoutsBlock(ctx)},
		// The declared attributes are the rows of hcaShape (fabric_inventory.go), the fabric's
		// `hcas` element; id, mst_device and the firmware's are the resource's own.
		Attributes: hcaShape.resourceAttributes(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The HCA's name.",
				PlanModifiers:       []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"mst_device": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Device that `mlxconfig -d` (or `mstconfig -d`) addresses on the node, e.g. " +
					"`/dev/mst/mt4129_pciconf0` or the PCI address `0000:3b:00.0`. Unset: the RDMA `device` name.",
				Validators: []validator.String{stringvalidator.RegexMatches(mstDeviceRE,
					"must be one word: an mst device path, a PCI address or an RDMA device name, e.g. \"/dev/mst/mt4129_pciconf0\" or \"0000:3b:00.0\"")},
			},
		}),
	}
	for k, a := range hcaFirmwareAttributes() {
		resp.Schema.Attributes[k] = a
	}
	resp.Schema.Attributes["firmware"] = hcaFirmwareImageAttribute()
}

func (r *hcaResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerData(req.ProviderData, &resp.Diagnostics)
}

// ModifyPlan fills the default name <node>/<device> at plan time, so cables and partitions that
// refer to it see a known value, checks the model against the catalog, and replaces the HCA when
// its name changes (the name is its identity in the fabric, as for the other inventory types).
func (r *hcaResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m, cfg hcaModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	// Only these three of the config matter here; reading the whole config through reflection
	// was a tenth of the provider's time on a plan of 1,000 HCAs.
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("name"), &cfg.Name)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("firmware_settings"), &cfg.FirmwareSettings)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("ssh_host"), &cfg.SSHHost)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("firmware"), &cfg.Firmware)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("tool"), &cfg.Tool)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if cfg.Name.IsNull() {
		m.Name = types.StringUnknown()
		if !m.Node.IsUnknown() && !m.Device.IsUnknown() {
			m.Name = types.StringValue(fabric.HCAName(m.Node.ValueString(), m.Device.ValueString()))
		}
	}
	m.ID = m.Name
	// The node's own known_hosts file must be there at plan, as the provider's must
	// (remote.CheckKnownHostsFile); SSH would otherwise fail only at apply.
	if !m.SSH.IsNull() && !m.SSH.IsUnknown() {
		if kh, ok := m.SSH.Attributes()["known_hosts_file"].(types.String); ok && !kh.IsNull() && !kh.IsUnknown() {
			if msg := remote.CheckKnownHostsFile(kh.ValueString()); msg != "" {
				addRuleError(&resp.Diagnostics, path.Root("ssh").AtName("known_hosts_file"), "known_hosts file not found", msg)
			}
		}
	}
	if !m.Model.IsUnknown() {
		cat := inventoryCatalog(r.data)
		if _, ok := cat.HCAs[m.Model.ValueString()]; !ok {
			addUnknownModel(&resp.Diagnostics, path.Root("model"), "HCA", m.Model.ValueString(), cat.HCANames())
			return
		}
	}
	modifyToolPlan(ctx, req.State, &m, &cfg, &resp.Diagnostics)
	modifyFirmwarePlan(ctx, req.State, &m, &cfg, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	r.modifyFirmwareImagePlan(ctx, req.State, &m, cfg.Firmware, cfg.Tool, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !req.State.Raw.IsNull() {
		var prior hcaModel
		resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
		if !m.Name.IsUnknown() && !m.Name.Equal(prior.Name) {
			resp.RequiresReplace = append(resp.RequiresReplace, path.Root("name"))
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (r *hcaResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"node":   identityschema.StringAttribute{RequiredForImport: true, Description: "The HCA's `node`."},
		"device": identityschema.StringAttribute{RequiredForImport: true, Description: "The HCA's RDMA `device` on its node, e.g. `mlx5_0`."},
	}}
}

// Create records the HCA and, with firmware_settings, configures the card (hca_firmware.go).
func (r *hcaResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	if m := r.apply(ctx, req.Plan, &resp.State, false, &resp.Diagnostics); m != nil {
		setIdentity(ctx, resp.Identity, hcaIdentity{m.Node, m.Device}, &resp.Diagnostics)
	}
}

// Update applies firmware_settings again: hca.Apply sets only what differs from the card, and
// nothing when nothing does.
func (r *hcaResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	if m := r.apply(ctx, req.Plan, &resp.State, true, &resp.Diagnostics); m != nil {
		setIdentity(ctx, resp.Identity, hcaIdentity{m.Node, m.Device}, &resp.Diagnostics)
	}
}

// apply is Create and Update; they differ only in the timeout they read. It returns the model it
// recorded, nil on error.
func (r *hcaResource) apply(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, update bool, diags *diag.Diagnostics) *hcaModel {
	var m hcaModel
	diags.Append(plan.Get(ctx, &m)...)
	if diags.HasError() {
		return nil
	}
	if !m.FirmwareSettings.IsNull() || !m.Firmware.IsNull() {
		timeout, d := m.Timeouts.Create(ctx, defaultHCACreateTimeout)
		if update {
			timeout, d = m.Timeouts.Update(ctx, defaultHCAUpdateTimeout)
		}
		diags.Append(d...)
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		// The image first: newer firmware may know parameters that firmware_settings set.
		if !m.Firmware.IsNull() {
			diags.Append(r.firmwareImageApply(ctx, &m, timeout)...)
			if diags.HasError() {
				return nil
			}
		}
		if !m.FirmwareSettings.IsNull() {
			diags.Append(r.firmwareApply(ctx, &m, timeout)...)
			if diags.HasError() {
				return nil
			}
		}
	}
	diags.Append(state.Set(ctx, &m)...)
	return &m
}

// Read queries the card's firmware settings; an HCA without them is a declaration with nothing
// remote to refresh.
func (r *hcaResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m hcaModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if !m.FirmwareSettings.IsNull() || !m.Firmware.IsNull() {
		timeout, d := m.Timeouts.Read(ctx, defaultHCAReadTimeout)
		resp.Diagnostics.Append(d...)
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var fi *hca.FirmwareInfo
		if !m.FirmwareSettings.IsNull() {
			var rd diag.Diagnostics
			fi, rd = r.firmwareRead(ctx, &m, timeout)
			resp.Diagnostics.Append(rd...)
		}
		if !resp.Diagnostics.HasError() && !m.Firmware.IsNull() && (fi != nil || m.FirmwareSettings.IsNull()) {
			resp.Diagnostics.Append(r.firmwareImageRead(ctx, &m, fi, timeout)...)
		}
		if resp.Diagnostics.HasError() {
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, hcaIdentity{m.Node, m.Device}, &resp.Diagnostics)
}

// Delete forgets the HCA and leaves the card's settings as they are: there is no "previous"
// configuration to return to, and mlxconfig's reset to factory defaults would undo settings that
// other tools made.
func (r *hcaResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

const hcaImportSyntax = "NODE/DEVICE,port_guid=0x...[,model=M][,rail=N][,mst_device=D] or NAME,node=N,device=D,port_guid=0x...[,...]"

// ImportState takes the HCA's name and its attributes. For the default name `NODE/DEVICE` the
// node and device come from the name; an HCA with a name of its own gives them as node= and
// device=. An identity `{ node, device }` imports it by those (identity_import.go).
func (r *hcaResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if importByIdentity(req) {
		r.importIdentity(ctx, req, resp)
		return
	}
	name, kv, err := importid.Parse(req.ID, "node", "device", "model", "port_guid", "rail", "mst_device")
	if err == nil {
		if node, device, ok := strings.Cut(name, "/"); ok {
			if _, set := kv["node"]; !set {
				kv["node"] = node
			}
			if _, set := kv["device"]; !set {
				kv["device"] = device
			}
		}
		err = importid.Require(req.ID, kv, hcaImportSyntax, "node", "device", "port_guid")
	}
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error())
		return
	}
	m := hcaModel{
		ID: types.StringValue(name), Name: types.StringValue(name),
		Node: types.StringValue(kv["node"]), Device: types.StringValue(kv["device"]),
		Model: types.StringValue(defaultHCAModel), PortGUID: types.StringValue(kv["port_guid"]),
		MSTDevice: importString(kv, "mst_device"),
	}
	nullHCAFirmwareFields(&m)
	if v, ok := kv["model"]; ok {
		m.Model = types.StringValue(v)
	}
	m.Rail = importInt64(&resp.Diagnostics, kv, "rail")
	cat := inventoryCatalog(r.data)
	if _, ok := cat.HCAs[m.Model.ValueString()]; !ok {
		addUnknownModel(&resp.Diagnostics, path.Root("model"), "HCA", m.Model.ValueString(), cat.HCANames())
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
