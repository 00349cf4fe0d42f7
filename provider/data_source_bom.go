package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

var (
	_ datasource.DataSource              = (*bomDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*bomDataSource)(nil)
)

func newBOMDataSource() datasource.DataSource { return &bomDataSource{} }

type bomDataSource struct {
	data *Data
}

type bomModel struct {
	fabricInputsModel            // design, absent_cables and the inventory maps (fabric_inputs.go)
	ExternalLinks     types.List `tfsdk:"external_links"`

	Items      types.Map     `tfsdk:"items"`
	TotalCost  types.Float64 `tfsdk:"total_cost"`
	Unpriced   types.List    `tfsdk:"unpriced"`
	Warnings   types.List    `tfsdk:"warnings"`
	CSV        types.String  `tfsdk:"csv"`
	Markdown   types.String  `tfsdk:"markdown"`
	JSON       types.String  `tfsdk:"json"`
	CablingCSV types.String  `tfsdk:"cabling_csv"`

	PriorDesign       types.Object  `tfsdk:"prior_design"`
	AsBuilt           types.Dynamic `tfsdk:"as_built"`
	CablingChangesCSV types.String  `tfsdk:"cabling_changes_csv"`
}

type bomExternalItem struct {
	Label      types.String  `tfsdk:"label"`
	Device     types.String  `tfsdk:"device"`
	Port       types.Int64   `tfsdk:"port"`
	Rack       types.String  `tfsdk:"rack"`
	PositionU  types.Int64   `tfsdk:"position_u"`
	Switch     types.String  `tfsdk:"switch"`
	SwitchPort types.Int64   `tfsdk:"switch_port"`
	Kind       types.String  `tfsdk:"kind"`
	LengthM    types.Float64 `tfsdk:"length_m"`
}

// bomItemType is the fixed item shape of the design guide (docs/guides/design.md), shared with the fabric's `bom` output (fabric_bom.go).
var bomItemType = types.ObjectType{AttrTypes: bomItemAttrTypes}

func (d *bomDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_bom"
}

func (d *bomDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (d *bomDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := map[string]schema.Attribute{}
	// The fabric's own inputs, so the same design and objects feed both; partitions order nothing
	// but are accepted, so one set of inputs fits every type that reads a fabric.
	for k, v := range fabricInputAttributes() {
		attrs[k] = v
	}
	attrs["external_links"] = schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Links from devices outside the fabric graph to a switch port, such as the fabric-manager (UFM) " +
			"appliances of reserved SU slots: `values(data.gpucluster_topology.x.appliance_links)`. Each gets its fiber and " +
			"transceivers (a single-port module at the appliance end) in the BOM and a row in the cabling plan.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"label":       schema.StringAttribute{Optional: true, MarkdownDescription: "Row label (default `<device>:<port>`)."},
			"device":      schema.StringAttribute{Optional: true, MarkdownDescription: "Appliance name, e.g. `ufm01`. Required."},
			"port":        schema.Int64Attribute{Optional: true, MarkdownDescription: "Appliance port (default 1)."},
			"rack":        schema.StringAttribute{Optional: true, MarkdownDescription: "Rack of the appliance; with `position_u`, gives the run length."},
			"position_u":  schema.Int64Attribute{Optional: true, MarkdownDescription: "Unit of the appliance in its rack."},
			"switch":      schema.StringAttribute{Optional: true, MarkdownDescription: "Switch of the fabric it is cabled to. Required."},
			"switch_port": schema.Int64Attribute{Optional: true, MarkdownDescription: "Switch port. Required."},
			"kind":        schema.StringAttribute{Optional: true, MarkdownDescription: "Cable kind; the planner's choice when unset."},
			"length_m":    schema.Float64Attribute{Optional: true, MarkdownDescription: "Length; estimated from the racks when unset."},
		}},
	}
	attrs["items"] = schema.MapNestedAttribute{
		Computed: true,
		MarkdownDescription: "What to order, keyed by SKU (as `bom.items` of `gpucluster_fabric`; `csv`, `markdown` and `json` " +
			"list them sorted by category, then SKU). Cables " +
			"are counted per physical cable at a standard length (a twin-port copper cable carries two links); transceivers " +
			"one twin-port module per switch OSFP cage with an optical link, one flat-top module per DGX cage, one " +
			"single-port module per other HCA or appliance port.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"sku":         outStr("Orderable part number."),
			"description": outStr("What it is."),
			"quantity":    outInt("How many."),
			"unit_price":  outFloat("Catalog price in USD; `null` when the catalog has no sourced price (see `unpriced`)."),
			"cost":        outFloat("`quantity` x `unit_price`; `null` when unpriced."),
		}},
	}
	attrs["total_cost"] = outFloat("Sum of the priced items' cost in USD. Unpriced items are left out, never guessed.")
	attrs["unpriced"] = schema.ListAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "SKUs without a sourced price in the catalog, sorted; add prices with the provider's `catalog_files`.",
	}
	attrs["warnings"] = schema.ListAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "What the planner could not settle cleanly (e.g. an OSFP cage whose two links need different products).",
	}
	attrs["csv"] = outStr("The bill of materials as CSV (RFC 4180) with a header: `category,sku,description,quantity,unit_price,cost`; " +
		"unpriced fields are empty.")
	attrs["markdown"] = outStr("The bill of materials as a Markdown table, with the priced total, the unpriced SKUs, the counts and the warnings; " +
		"with `as_built`, also what the design needs beyond the floor and the devices the floor lacks.")
	attrs["json"] = outStr("The bill of materials as JSON: `items`, `total_cost`, `unpriced`, `counts`, `warnings`; unpriced prices are `null`. " +
		"With `as_built`, `beyond_floor` is the purchase relative to the floor: `items` (per SKU `on_floor`, `needed`, `to_buy`, " +
		"`unit_price`, `cost`), `total_cost` of what to buy, and `absent`, the design's switches and nodes the floor lacks. `items` " +
		"above is always the whole design.")
	attrs["cabling_csv"] = outStr("The cabling plan a technician works from, as CSV (RFC 4180), one row per cable (logical " +
		"link) after the header `" + strings.Join(bom.CablingHeader, ",") + "`. Each end names the box (`a_device`: switch, " +
		"node or appliance; `a_hca` for an HCA end), the fabric's logical port, and the port as the hardware has it: the " +
		"OSFP cage and the split in it (a switch of 2 ports per cage, such as the " + defaultSwitchModel + ", puts logical ports 2c-1 and 2c in cage c as splits 1 and 2, `a_port_name` " +
		"`17/1`; a node with twin-port cages, such as the " + defaultNodeModel + ", puts its compute HCAs two per cage in declaration order), with the part plugged in at that end " +
		"(`a_part`: the transceiver for fiber, one module serving both splits of a cage; the cable itself for copper). The " +
		"label is the lower-tier end (`gpu001/mlx5_0:1`, `leaf01:33`); rows of one twin-port copper cable share `bundle`; an " +
		"unknown length is empty.")
	prior := designSchema()
	prior.MarkdownDescription = "The design as it is cabled now, e.g. the `design` of a `gpucluster_topology` at the " +
		"scalable units built so far, when `design` is the one to build. With it, `cabling_changes_csv` says what the " +
		"technicians must do to go from one to the other. Not beside a floor (`as_built`, here or carried by `design`), " +
		"which is what is cabled now: refused."
	attrs["prior_design"] = prior
	attrs["as_built"] = asBuiltInputAttribute("The fabric on the floor, `gpucluster_discovered_fabric`'s `floor` read " +
		"from an `ibnetdiscover` snapshot: the design is fitted to it (devices matched by their links, the floor's names, " +
		"GUIDs and ports kept wherever the design has that link), and `cabling_changes_csv` is the work order from the " +
		"floor: every cable to unplug, to move from the ports it is really on, and to add; its counts are the design's " +
		"`as_built_fit`. Needs `design`; if the design carries a floor already (`gpucluster_topology`'s `as_built`), it must be " +
		"that same record (another floor, or an edited record, is refused). Not with `prior_design`: the floor is what is " +
		"cabled now.")
	attrs["cabling_changes_csv"] = outStr("With `prior_design`: the re-cabling work order, as CSV (RFC 4180) after the header `" +
		strings.Join(bom.ChangesHeader, ",") + "`, one row per cable to `add`, `remove` " +
		"or `move` (a cable that keeps one end and changes the other; `from` names the end it leaves), each end named as " +
		"in `cabling_csv` (cage, split, part); `also_takes_down` names the links that go down while it is done (the other " +
		"split of each twin-port cage it unplugs or plugs, the other link of a twin-port cable). Ports are compared as the " +
		"hardware has them: a box is known by its GUID, so a cable that stays on the same ports of the same boxes is no row " +
		"whatever either design names them, and the moves are the most that keep one end (the fewest rows). An expansion " +
		"within the planned size only adds; one that re-plans the upper tiers warns how many uplinks it moves, and one " +
		"that renames boxes says which `name_digits` keep the names. Null without `prior_design`.")
	resp.Schema = schema.Schema{
		MarkdownDescription: "Bill of materials and cabling plan of any set of racks, switches, nodes, HCAs and cables: the same " +
			"lists `gpucluster_fabric` takes (the resource objects, or the maps of `gpucluster_topology`). Each cable without a " +
			"kind gets the cheapest kind that reaches its run (DAC, then ACC, then multimode fiber with transceivers, then " +
			"single-mode); prices come from the catalog only, so an item without a sourced price is listed in `unpriced` and " +
			"left out of `total_cost`. For what an expansion adds, plan it: the plan's diff of `bom` of `gpucluster_fabric` " +
			"is the purchase order by SKU, and its plan summary says what to buy.",
		Attributes: attrs,
	}
}

func (d *bomDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m bomModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cat := inventoryCatalog(d.data)
	// The inputs come from Wrap's stash when the request went through it (see wire.go and tfwire); m
	// keeps the null inputs for State.Set and Wrap puts the config's back in the response.
	inputs, unknown, diags := decodeInputs(ctx, &m.fabricInputsModel)
	rd := specReader{}
	if floor, rec := rd.decodeFloor(requestValue(ctx, tfwire.FromConfig, plan.AttrAsBuilt, m.AsBuilt), path.Root(plan.AttrAsBuilt)); floor != nil {
		if inputs.Design == nil {
			rd.diags.AddAttributeError(path.Root(plan.AttrAsBuilt), "as_built without a design",
				"as_built is the floor a design is fitted to; set `design` (e.g. data.gpucluster_topology.x.design). For the bill of materials of the floor alone, give it to a gpucluster_fabric without a design (as_built = data.gpucluster_discovered_fabric.x.floor) and read that fabric's `bom`.")
		}
		// A design fitted to a floor already carries it (its as_built): the work order is from that
		// floor or from none. Another floor here would write the order against a floor the design
		// was not fitted to (issue 32: 1,022 rows against the wrong floor).
		carried, has := designRecord(inputValue(ctx, m.inputSource(), "design", &m.fabricInputsModel))
		if has {
			rd.designsFloor(rec, carried, path.Root(plan.AttrAsBuilt))
		}
		inputs.AsBuilt = floor
	}
	ext := externalLinks(ctx, &rd, m.ExternalLinks)
	resp.Diagnostics.Append(capDiagnostics(diags)...)
	resp.Diagnostics.Append(capDiagnostics(rd.diags)...)
	if (unknown || rd.unknown) && !resp.Diagnostics.HasError() {
		resp.Diagnostics.AddError("Unknown values", "gpucluster_bom needs every value of its inputs known; Terraform reads it once they are.")
	}
	if resp.Diagnostics.HasError() {
		return
	}
	f, ps := plan.Build(cat, inputs)
	addPlanProblems(&resp.Diagnostics, ps)
	if f == nil {
		return
	}
	var prior *topogen.Params
	if f.Fit != nil && !m.PriorDesign.IsNull() {
		// Two accounts of what is cabled now: the floor is what the technicians find, and a work
		// order from one while the other is silently dropped (issue 32) is refused instead.
		resp.Diagnostics.AddAttributeError(path.Root(plan.AttrPriorDesign), "prior_design beside a floor",
			"The design is fitted to a floor (as_built, here or carried by the design), which is what is cabled now; "+
				"prior_design says that too, and only one can be where the work order starts. Drop prior_design for the "+
				"work order from the floor, or give a design built without a floor (and no as_built) for the work order "+
				"from prior_design.")
		return
	}
	if f.Fit == nil && !m.PriorDesign.IsNull() {
		p, d := decodePriorDesign(ctx, m.PriorDesign)
		if resp.Diagnostics.Append(d...); resp.Diagnostics.HasError() {
			return
		}
		prior = &p
	}
	o, ps := plan.Order(cat, f, ext, prior)
	addPlanProblems(&resp.Diagnostics, ps)
	if o == nil {
		return
	}
	for _, w := range o.BOM.Warnings {
		resp.Diagnostics.AddWarning("Bill of materials", w)
	}
	resp.Diagnostics.Append(setBOMOutputs(&m, o)...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// decodePriorDesign reads prior_design, the design as it is cabled now, which carries no floor.
func decodePriorDesign(ctx context.Context, prior types.Object) (topogen.Params, diag.Diagnostics) {
	var diags diag.Diagnostics
	v, err := prior.ToTerraformValue(ctx)
	if err != nil {
		diags.AddAttributeError(path.Root(plan.AttrPriorDesign), "Cannot read prior_design", err.Error())
		return topogen.Params{}, diags
	}
	r := specReader{}
	p := r.decodeDesignAt(v, plan.AttrPriorDesign)
	if r.decodeDesignAsBuilt(v, plan.AttrPriorDesign) != nil {
		r.diags.AddAttributeError(path.Root(plan.AttrPriorDesign).AtName(plan.AttrAsBuilt), "A floor in prior_design",
			"prior_design is the design as it is cabled now, which a floor replaces: give the floor as gpucluster_bom's own as_built, and the work order starts from it.")
	}
	diags.Append(capDiagnostics(r.diags)...)
	if r.unknown && !diags.HasError() {
		diags.AddAttributeError(path.Root(plan.AttrPriorDesign), "Unknown values", "gpucluster_bom needs prior_design known; Terraform reads it once it is.")
	}
	return p, diags
}

// externalLinks reads `external_links`; required values are checked here, the links themselves by
// the BOM.
func externalLinks(ctx context.Context, r *specReader, l types.List) []bom.ExternalLink {
	var out []bom.ExternalLink
	for i, it := range listItems[bomExternalItem](ctx, r, l) {
		p := path.Root("external_links").AtListIndex(i)
		e := bom.ExternalLink{
			Label: r.str(it.Label, p.AtName("label"), false), Device: r.str(it.Device, p.AtName("device"), true),
			Port: r.int(it.Port, p.AtName("port"), false, 1), Rack: r.str(it.Rack, p.AtName("rack"), false),
			PositionU: r.int(it.PositionU, p.AtName("position_u"), false, 0), Switch: r.str(it.Switch, p.AtName("switch"), true),
			SwitchPort: r.int(it.SwitchPort, p.AtName("switch_port"), true, 0), Kind: r.str(it.Kind, p.AtName("kind"), false),
			LengthM: r.float(it.LengthM),
		}
		if e.Label == "" {
			e.Label = fabric.End{Device: e.Device, Port: e.Port}.String()
		}
		out = append(out, e)
	}
	return out
}

// setBOMOutputs renders the orders into the model: the bill of materials in its three forms,
// the cabling plan (cage, split and part at each end: internal/bom/cabling.go) and the work
// order, null without anything to start from.
func setBOMOutputs(m *bomModel, o *plan.Orders) diag.Diagnostics {
	var diags diag.Diagnostics
	b := o.BOM
	m.Items = bomItemsValue(b.Items)
	m.TotalCost = types.Float64Value(b.TotalCost)
	m.Unpriced = textList(b.Unpriced)
	m.Warnings = textList(b.Warnings)
	m.Markdown = types.StringValue(b.Markdown())
	items, err := b.ItemsCSV()
	if err != nil {
		diags.AddError("Rendering the BOM failed", err.Error())
	}
	m.CSV = types.StringValue(items)
	js, err := b.JSON()
	if err != nil {
		diags.AddError("Rendering the BOM failed", err.Error())
	}
	m.JSON = types.StringValue(string(js))
	cabling, err := bom.CablingCSV(o.Cabling)
	if err != nil {
		diags.AddError("Rendering the cabling plan failed", err.Error())
	}
	m.CablingCSV = types.StringValue(cabling)
	m.CablingChangesCSV = types.StringNull()
	if o.HasChanges {
		changes, err := bom.ChangesCSV(o.Changes)
		if err != nil {
			diags.AddError("Rendering the work order failed", err.Error())
		}
		m.CablingChangesCSV = types.StringValue(changes)
	}
	return diags
}
