package provider

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/objectplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
)

var (
	_ resource.Resource                   = (*cableResource)(nil)
	_ resource.ResourceWithConfigure      = (*cableResource)(nil)
	_ resource.ResourceWithValidateConfig = (*cableResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*cableResource)(nil)
	_ resource.ResourceWithImportState    = (*cableResource)(nil)
	_ resource.ResourceWithIdentity       = (*cableResource)(nil)
)

func newCableResource() resource.Resource { return &cableResource{} }

type cableResource struct{ data *Data }

type cableModel struct {
	ID      types.String  `tfsdk:"id"`
	A       types.Object  `tfsdk:"a"`
	B       types.Object  `tfsdk:"b"`
	Kind    types.String  `tfsdk:"kind"`
	LengthM types.Float64 `tfsdk:"length_m"`
	Label   types.String  `tfsdk:"label"`
	SKU     types.String  `tfsdk:"sku"`
}

// cableEndModel is one end of a cable. The whole end may be unknown at plan time (an object
// from another resource), so the model keeps it as a types.Object and converts it on use.
type cableEndModel struct {
	Device types.String `tfsdk:"device"`
	Port   types.Int64  `tfsdk:"port"`
}

// endDeviceRE is a switch name or an HCA name (<node>/<device>); neither contains ':' or spaces,
// so the label "<device>:<port> <-> <device>:<port>" parses back unambiguously.
var endDeviceRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}(/[A-Za-z0-9][A-Za-z0-9._-]{0,62})?$`)

func (r *cableResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_cable"
}

// cableEndRules are gpucluster_cable's rules for its end a or b (rows of cableShape): the ends
// are the cable's identity (its label and id), so changing one replaces it.
func cableEndRules(side string) resAttr {
	return resAttr{
		required: true,
		desc: "End " + side + " of the cable: `{ device = \"leaf01\", port = 33 }` for a switch port or " +
			"`{ device = \"gpu001/mlx5_0\", port = 1 }` for an HCA port.",
		objMod: []planmodifier.Object{objectplanmodifier.RequiresReplace()},
		nested: map[string]resAttr{
			"device": {
				required: true,
				desc:     "Name of a `gpucluster_switch` (`leaf01`) or of a `gpucluster_hca` (`gpu001/mlx5_0`).",
				strVal: []validator.String{stringvalidator.RegexMatches(endDeviceRE,
					"must name a switch (\"leaf01\") or an HCA (\"gpu001/mlx5_0\"): letters, digits, '.', '_' or '-', with one '/' for an HCA")},
			},
			"port": {
				required: true,
				desc: "Port number, from 1: switch ports " + docText().SwitchPortRange() + ", HCA ports " +
					"1 to the model's count (" + docText().HCAPorts() + "). The fabric checks it against the device's model.",
				intVal: []validator.Int64{portValidator()},
			},
		},
	}
}

func (r *cableResource) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "One logical InfiniBand link between two ports (" + docText().LinkRate() + " between " + defaultSwitchModel + " ports): switch to switch, or switch to HCA. " +
			"`kind` and `length_m` are optional: left unset, the fabric estimates the run from the rack positions and " +
			"picks the cheapest kind that reaches. Declare one cable per link even where a twin-port cable or " +
			"transceiver carries two.\n\n" +
			"The cable is known by its `label`, `<a.device>:<a.port> <-> <b.device>:<b.port>` in the order written, e.g. " +
			"`leaf01:33 <-> gpu001/mlx5_0:1`, which is also its `id` and its import name.",
		// The declared attributes are the rows of cableShape (fabric_inventory.go), the fabric's
		// `cables` element; id, label and sku are the resource's own.
		Attributes: cableShape.resourceAttributes(map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "The cable's label.",
			},
			"label": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Label for both ends of the cable: `<a.device>:<a.port> <-> <b.device>:<b.port>`, ends in " +
					"the order written, e.g. `leaf01:33 <-> gpu001/mlx5_0:1`. It only changes when an end does.",
			},
			"sku": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "Orderable part number for `kind` at `length_m` (the shortest standard length that " +
					"covers it), e.g. `MFP7E10-N005`; chosen for switch-to-HCA ends when either end is an HCA, else " +
					"switch-to-switch. Null when `kind` or `length_m` is unset: the fabric's bill of materials then " +
					"chooses the cable.",
			},
		}),
	}
}

func (r *cableResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerData(req.ProviderData, &resp.Diagnostics)
}

// ValidateConfig rejects a cable whose two ends are the same port; the error sits on `b`, the
// end a user most likely copied from `a` and forgot to change.
func (r *cableResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var m cableModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	a, okA := knownCableEnd(ctx, m.A)
	b, okB := knownCableEnd(ctx, m.B)
	if okA && okB {
		if msg := fabric.CheckCableEnds(fabric.End{Device: a.device, Port: int(a.port)}, fabric.End{Device: b.device, Port: int(b.port)}); msg != "" {
			addRuleError(&resp.Diagnostics, path.Root("b").AtName("device"), "Cable joins a device to itself", msg)
		}
	}
}

func (r *cableResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"label": identityschema.StringAttribute{RequiredForImport: true, Description: "The cable's `label`, `<a.device>:<a.port> <-> <b.device>:<b.port>`, e.g. `leaf01:33 <-> gpu001/mlx5_0:1`."},
	}}
}

// ModifyPlan computes the label and the SKU, and checks what needs the catalog: ports no switch
// model has, and a length that no cable of the kind reaches.
func (r *cableResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m, cfg cableModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cat := inventoryCatalog(r.data)
	// length_m is Computed so that it can carry an estimate one day; today an unset length stays
	// null and the fabric estimates the run from the racks.
	if cfg.LengthM.IsNull() {
		m.LengthM = types.Float64Null()
	}
	a, okA := knownCableEnd(ctx, m.A)
	b, okB := knownCableEnd(ctx, m.B)
	for _, e := range []struct {
		side string
		end  plainCableEnd
		ok   bool
	}{{"a", a, okA}, {"b", b, okB}} {
		if e.ok {
			if msg := fabric.CheckCatalogPort(cat, int(e.end.port)); msg != "" {
				addRuleError(&resp.Diagnostics, path.Root(e.side).AtName("port"), "Port out of range", msg)
			}
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m.Label, m.ID, m.SKU = types.StringUnknown(), types.StringUnknown(), types.StringUnknown()
	if okA && okB {
		m.Label = types.StringValue(cableLabel(a, b))
		m.ID = m.Label
	}
	switch {
	case m.Kind.IsNull() || m.LengthM.IsNull():
		m.SKU = types.StringNull()
	case m.Kind.IsUnknown() || m.LengthM.IsUnknown() || !okA || !okB:
		// stays unknown until apply
	default:
		sku, err := cat.CableSKU(m.Kind.ValueString(), cableEnds(a, b), m.LengthM.ValueFloat64())
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("kind"), "Cable kind does not reach", m.Label.ValueString()+": "+err.Error())
			return
		}
		m.SKU = types.StringValue(sku)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (r *cableResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m cableModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, cableIdentity{m.Label}, &resp.Diagnostics)
}

// Read keeps the state as it is: a cable declaration has nothing remote to refresh (drift
// against the wiring is the discovered_fabric data source's job).
func (r *cableResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m cableModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, cableIdentity{m.Label}, &resp.Diagnostics)
}

func (r *cableResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m cableModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	setIdentity(ctx, resp.Identity, cableIdentity{m.Label}, &resp.Diagnostics)
}

func (r *cableResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// ImportState takes the cable's label, then the optional kind and length
// (importid.ParseCable): `leaf01:33 <-> gpu001/mlx5_0:1,kind=fiber-mm,length_m=5`.
func (r *cableResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if importByIdentity(req) {
		r.importIdentity(ctx, req, resp)
		return
	}
	ci, err := importid.ParseCable(req.ID)
	if err != nil {
		addImportErrors(&resp.Diagnostics, err)
		return
	}
	m := importedCable(ci)
	if ci.Kind != nil && ci.LengthM != nil {
		sku, err := inventoryCatalog(r.data).CableSKU(*ci.Kind, cableEnds(cableEnd(ci.A), cableEnd(ci.B)), *ci.LengthM)
		if err != nil {
			addImportErrors(&resp.Diagnostics, err)
			return
		}
		m.SKU = types.StringValue(sku)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// plainCableEnd is a cable end with known values.
type plainCableEnd struct {
	device string
	port   int64
}

func (e plainCableEnd) object() types.Object {
	return types.ObjectValueMust(endAttrTypes, map[string]attr.Value{
		"device": types.StringValue(e.device), "port": types.Int64Value(e.port),
	})
}

// knownCableEnd converts an end whose device and port are both known.
func knownCableEnd(ctx context.Context, o types.Object) (plainCableEnd, bool) {
	if o.IsNull() || o.IsUnknown() {
		return plainCableEnd{}, false
	}
	var e cableEndModel
	if diags := o.As(ctx, &e, objectAsOptions); diags.HasError() {
		return plainCableEnd{}, false
	}
	if e.Device.IsNull() || e.Device.IsUnknown() || e.Port.IsNull() || e.Port.IsUnknown() {
		return plainCableEnd{}, false
	}
	return plainCableEnd{device: e.Device.ValueString(), port: e.Port.ValueInt64()}, true
}

// cableLabel is fabric.CableLabel of the two ends, the one builder of the label.
func cableLabel(a, b plainCableEnd) string {
	return fabric.CableLabel(fabric.End{Device: a.device, Port: int(a.port)}, fabric.End{Device: b.device, Port: int(b.port)})
}

// cableEnd is a fabric end as a cable end.
func cableEnd(e fabric.End) plainCableEnd { return plainCableEnd{e.Device, int64(e.Port)} }

// cableEnds tells the link's Ends class from the names: the cable alone does not know its devices.
func cableEnds(a, b plainCableEnd) string {
	return catalog.LinkEnds(!fabric.IsHCAName(a.device), !fabric.IsHCAName(b.device))
}
