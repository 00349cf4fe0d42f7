package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

var (
	_ datasource.DataSource              = (*topologyDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*topologyDataSource)(nil)
)

func newTopologyDataSource() datasource.DataSource { return &topologyDataSource{} }

type topologyDataSource struct {
	data *Data
}

// The data source has no model struct: its arguments are read from the configuration by the
// design's decoder (decodeArgs), from the generator's argument table, and its outputs are built
// as tftypes values (topologyOutputs). Only items and items_by_group are its own.

func (d *topologyDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_topology"
}

func (d *topologyDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

// Attribute types of the generated objects: exactly the configuration attributes of the
// resources and of the fabric's maps, so one object fits gpucluster_hca's arguments,
// gpucluster_fabric's `hcas` and gpucluster_bom's `hcas` alike. Built once; the values are built
// directly from them (no reflection), which keeps 50,000 cables well under a second.
var (
	// The inventory objects come from the shape tables (fabric_inventory.go), the same that make
	// the fabric's maps, so they cannot drift apart.
	// External links (fabric-manager appliances in reserved slots): the shape of gpucluster_bom's
	// `external_links`.
	topoExternalAttrTypes = map[string]attr.Type{
		"label": types.StringType, "device": types.StringType, "port": types.Int64Type, "rack": types.StringType,
		"position_u": types.Int64Type, "switch": types.StringType, "switch_port": types.Int64Type,
		"kind": types.StringType, "length_m": types.Float64Type,
	}

	topoRackType     = rackObjType
	topoSwitchType   = switchObjType
	topoNodeType     = nodeObjType
	topoHCAType      = hcaObjType
	topoCableType    = cableObjType
	topoExternalType = types.ObjectType{AttrTypes: topoExternalAttrTypes}

	topoGroupAttrTypes = map[string]attr.Type{
		"kind":            types.StringType,
		"racks":           types.MapType{ElemType: topoRackType},
		"switches":        types.MapType{ElemType: topoSwitchType},
		"nodes":           types.MapType{ElemType: topoNodeType},
		"hcas":            types.MapType{ElemType: topoHCAType},
		"cables":          types.MapType{ElemType: topoCableType},
		"appliance_links": types.MapType{ElemType: topoExternalType},
	}
	topoGroupType = types.ObjectType{AttrTypes: topoGroupAttrTypes}

	countMapType         = types.MapType{ElemType: types.Int64Type}
	topoSummaryAttrTypes = map[string]attr.Type{
		"tiers": types.Int64Type, "racks": types.Int64Type, "switches": types.Int64Type, "nodes": types.Int64Type,
		"hcas": types.Int64Type, "cables": types.Int64Type, "endpoints": types.Int64Type,
		"appliance_links": types.Int64Type, "switches_by_role": countMapType, "links_by_tier": countMapType,
		"planned_nodes": types.Int64Type, "planned_scalable_units": types.Int64Type, "planned_groups": types.Int64Type,
	}
	topoPortRangeAttrTypes = map[string]attr.Type{
		"role": types.StringType, "first": types.Int64Type, "last": types.Int64Type,
		"faces": types.StringType, "rule": types.StringType,
	}
	topoPortRangeType = types.ObjectType{AttrTypes: topoPortRangeAttrTypes}
)

// ---- schema ----

func outStr(d string) schema.StringAttribute {
	return schema.StringAttribute{Computed: true, MarkdownDescription: d}
}
func outInt(d string) schema.Int64Attribute {
	return schema.Int64Attribute{Computed: true, MarkdownDescription: d}
}
func outFloat(d string) schema.Float64Attribute {
	return schema.Float64Attribute{Computed: true, MarkdownDescription: d}
}

// topoMapAttributes are the five maps (and the appliance links) of a design or of one group.
// The fields of the five come from the inventory shape tables; the appliance links have no
// input shape, so their fields are described here.
func topoMapAttributes(scope string) map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"racks":    outMap("Racks "+scope+", keyed by name; the arguments of `gpucluster_rack`.", shapeOutputs(rackShape)),
		"switches": outMap("Switches "+scope+", keyed by name; the arguments of `gpucluster_switch`.", shapeOutputs(switchShape)),
		"nodes":    outMap("GPU nodes "+scope+", keyed by name; the arguments of `gpucluster_node`.", shapeOutputs(nodeShape)),
		"hcas":     outMap("Compute HCA ports "+scope+", keyed by name (`gpu001/mlx5_0`); the arguments of `gpucluster_hca`.", shapeOutputs(hcaShape)),
		"cables": outMap("Cables "+scope+", keyed by their lower-tier end (`gpu001/mlx5_0:1`, `leaf01:33`; global and torus links by "+
			"the end in the lower-numbered group or the + port); the arguments of `gpucluster_cable`.", shapeOutputs(cableShape)),
		"appliance_links": outMap("Links of the fabric-manager (UFM) appliances in reserved node slots "+scope+", keyed `ufm01:1`. "+
			"Appliances are not fabric devices (no resource takes them); pass `values(...)` to `gpucluster_bom`'s "+
			"`external_links` so their transceivers and fibers are ordered, and keep their leaf ports free.", map[string]schema.Attribute{
			"label": outStr("The appliance end, `ufm01:1`."), "device": outStr("Appliance name."), "port": outInt("Appliance port."),
			"rack": outStr("Rack of the reserved slot."), "position_u": outInt("Unit of the appliance in the slot."),
			"switch": outStr("Leaf it is cabled to."), "switch_port": outInt("Leaf port."),
			"kind":     outStr("`cable_kind`, or `null` for the planner's choice."),
			"length_m": outFloat("`null`: estimated from the rack positions."),
		}),
	}
}

// topoGroupsAttribute is `groups`: per block of the design, a kind and the block's own maps.
func topoGroupsAttribute(desc string) schema.MapNestedAttribute {
	attrs := topoMapAttributes("of the group")
	attrs["kind"] = outStr("`scalable-unit`, `pod`, `group`, `plane`, or `central` for the switches above the blocks.")
	return outMap(desc, attrs)
}

func (d *topologyDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := topologyArgAttributes()
	for k, v := range map[string]schema.Attribute{
		"items": schema.ListAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Which item maps to fill: a list of `racks`, `switches`, `nodes`, `hcas`, `cables` and " +
				"`appliance_links` (default: all of them; `[]`: none, for a design that only feeds a fabric through `design`). " +
				"A map left out is empty, and Terraform neither stores nor compares its objects: `items = [\"nodes\", \"hcas\"]` " +
				"is what a configuration with per-item `gpucluster_node` and `gpucluster_hca` resources and a fabric given " +
				"`design` needs.",
			Validators: []validator.List{
				listvalidator.UniqueValues(),
				listvalidator.ValueStringsAre(stringvalidator.OneOf(topologyItemMaps...)),
			},
		},
		"items_by_group": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "Put the item maps `items` chooses in `groups`, one set per block of the design (scalable " +
				"unit, pod, dragonfly+ group, torus plane, and the switches above them), instead of in the top-level maps, " +
				"which stay empty (default `false`). Every object is in one place, never twice. For one module instance " +
				"per block: several small `for_each` maps plan far faster in Terraform than one big one.",
		},
		plan.AttrAsBuilt: asBuiltInputAttribute("The fabric on the floor, `data.gpucluster_discovered_fabric.x.floor` (an " +
			"`ibnetdiscover` snapshot, or a live read): the design is mapped onto it by the links devices have, not by their " +
			"names (nodes to node slots by the leaves their HCAs reach, leaves to rails and units, spines and cores by the " +
			"leaves they serve), so that the most floor cables stay on their ports, whatever the floor's port convention. " +
			"The item maps then carry the floor's names, GUIDs and ports wherever the design has the floor's link, and the " +
			"generator's own only for what is new; `design` carries the floor, so a fabric given it builds the same; " +
			"`as_built_fit` says what stays, moves and is added. Sizes beyond the floor's original plan are built: the " +
			"upper tiers are planned for the size asked, keeping every cable the new design has room for."),
		"as_built_fit": asBuiltFitAttribute(),
		"design": topologyDesignAttribute("The arguments above, normalized: every default filled in and the planned sizes resolved " +
			"(`planned_nodes`, `planned_scalable_units`, `planned_groups`, `tiers`, a dragonfly+ group's shape, a torus's " +
			"`endpoints_per_switch`). `design = data.gpucluster_topology.x.design` hands `gpucluster_fabric` (and " +
			"`gpucluster_bom`, `gpucluster_opensm_files`, `gpucluster_scheduler_topology`, `gpucluster_diagram`, " +
			"`gpucluster_discovered_fabric`) the whole design in a few lines; they build exactly the graph of the maps " +
			"here. The sizes given stay as given, so growing `scalable_units` or `node_count` within the planned size " +
			"changes that one attribute."),
		"summary": schema.SingleNestedAttribute{
			Computed:            true,
			MarkdownDescription: "Counts of the design.",
			Attributes: map[string]schema.Attribute{
				"tiers": outInt("Switch tiers (trees 1-3, dragonfly+ 2 plus global links, torus 1)."),
				"racks": outInt("Racks."), "switches": outInt("Switches."), "nodes": outInt("GPU nodes."),
				"hcas": outInt("Compute HCA ports."), "cables": outInt("Cables between fabric devices (appliance links not included)."),
				"endpoints":       outInt("HCA ports cabled to the fabric."),
				"appliance_links": outInt("Links of fabric-manager appliances in reserved slots."),
				"switches_by_role": schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
					MarkdownDescription: "Switches by role: `leaf`, `spine`, `core`."},
				"links_by_tier": schema.MapAttribute{Computed: true, ElementType: types.Int64Type,
					MarkdownDescription: "Links by tier, every tier of the kind listed (zero included): `node-leaf`, `appliance-leaf`, " +
						"`leaf-spine`, `spine-core`, `global` (dragonfly+), `torus`. RA-11333-001's \"compute + UFM\" links are " +
						"`node-leaf` + `appliance-leaf`."},
				"planned_nodes":          outInt("Most nodes the upper tiers were built for: growth up to it only adds."),
				"planned_scalable_units": outInt("`rail-optimized`: SUs the upper tiers were built for; `null` for other kinds."),
				"planned_groups":         outInt("`dragonfly-plus`: groups the global links were spread for; `null` for other kinds."),
			},
		},
		"port_plan": schema.ListNestedAttribute{
			Computed:            true,
			MarkdownDescription: "Which ports of each switch role face what, and by which rule a port number is chosen; together the ranges cover every port the design uses.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"role": outStr("`leaf`, `spine` or `core`."), "first": outInt("First port."), "last": outInt("Last port."),
				"faces": outStr("What the ports face: `nodes`, `spines`, `cores`, `leaves`, `global`, ..."),
				"rule":  outStr("How a port number is chosen, in words."),
			}},
		},
		"port_plan_text": outStr("`port_plan` as text, one line per range: `leaf ports 1-32: nodes: ...`."),
		"groups": topoGroupsAttribute("The blocks of the design (scalable units `su01`..., pods `pod01`..., dragonfly+ groups `group01`..., " +
			"torus planes `plane01`...) and the switches above them (`spines` or `core`), each an object with its own " +
			"`racks`, `switches`, `nodes`, `hcas`, `cables` and `appliance_links` maps, shaped like the design's, and a `kind` " +
			"(`scalable-unit`, `pod`, `group`, `plane`, or `central` for the switches above the blocks). Every object of the " +
			"design is in exactly one group; a cable in the group of its lower-tier end. The maps are filled with " +
			"`items_by_group = true` (then the top-level maps are empty: nothing is output twice); otherwise each group " +
			"has its `kind` and empty maps. Use them for one module instance per block: several small `for_each` maps plan " +
			"far faster in Terraform than one big one."),
		"notes": schema.ListAttribute{
			Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Sizing decisions in words: the planned size the upper tiers were built for, spines rounded up " +
				"to divide the uplinks (and from how many), how a dragonfly+'s groups were sized and how many of their global " +
				"ports are cabled, the top tier's free ports against the spine-headroom rule and how to keep them, ...",
		},
	} {
		attrs[k] = v
	}
	for k, v := range topoMapAttributes("of the design") {
		attrs[k] = v
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Generates a fabric: racks, switches, GPU nodes, HCAs and cables for a fat tree (1-3 tiers, any leaf " +
			"oversubscription), a rail-optimized DGX SuperPOD of scalable units, a Dragonfly+ or a 3D torus, with the " +
			"port plan and the rack layout.\n\n" +
			"The maps `racks`, `switches`, `nodes`, `hcas` and `cables` are keyed by name (cables by their lower-tier end) and " +
			"hold objects whose attributes are exactly the arguments of the matching resources, so `for_each = " +
			"data.gpucluster_topology.x.hcas` feeds `gpucluster_hca` and `cables = data.gpucluster_topology.x.cables` feeds " +
			"`gpucluster_fabric` and `gpucluster_bom` as it is. Unset values are `null`. `design` is the same fabric in a few " +
			"lines: `design = data.gpucluster_topology.x.design` makes `gpucluster_fabric` build exactly the graph of the maps.\n\n" +
			"**Stable keys:** growing `node_count`, `scalable_units` or `group_count` up to the planned size only adds entries; " +
			"no existing name, GUID, rack, position, port or cable changes, so a plan shows additions only. The upper tiers " +
			"are built for the planned size from the start (`planned_nodes`, `planned_scalable_units`, `planned_groups`).\n\n" +
			"**Refusals:** what cannot be built fails the plan on the argument at fault, with the reason and the nearest " +
			"buildable input (\"nearest buildable: planned_scalable_units = 8\"). Nothing is rounded silently.\n\n" +
			"**Scale:** Terraform's own cost grows faster than linearly with the size of one `for_each` map. Up to a few " +
			"thousand items, per-item resources are fine; beyond, give `gpucluster_fabric` the `design`, ask only for the " +
			"maps something iterates over (`items = [\"nodes\", \"hcas\"]` for per-item nodes and HCAs, the resources with an " +
			"apply-side life; `items = []` when nothing does), and with `items_by_group = true` take them from `groups`, one " +
			"module instance per block.",
		Attributes: attrs,
	}
}

// ---- read ----

func (d *topologyDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var cfg map[string]tftypes.Value
	if err := req.Config.Raw.As(&cfg); err != nil {
		resp.Diagnostics.AddError("Internal error", "reading the data source's configuration: "+err.Error()+"; this is a bug in the provider")
		return
	}
	r := specReader{}
	p := r.decodeArgs(cfg, path.Root, "")
	sel := r.itemSelection(cfg["items"], cfg["items_by_group"])
	resp.Diagnostics.Append(r.diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if r.unknown {
		// A data source is read once its configuration is known; an unknown here is a bug.
		resp.Diagnostics.AddError("Internal error", "the configuration of gpucluster_topology holds an unknown value at read; this is a bug in the provider")
		return
	}
	// The floor comes from Wrap's stash (tfwire strips as_built like the fabric's maps).
	asBuiltIn := requestValue(ctx, tfwire.FromConfig, plan.AttrAsBuilt, nil)
	if v, ok := cfg[plan.AttrAsBuilt]; ok && asBuiltIn.IsNull() {
		asBuiltIn = v
	}
	floor, rec := r.decodeFloor(asBuiltIn, path.Root(plan.AttrAsBuilt))
	resp.Diagnostics.Append(capDiagnostics(r.diags)...)
	if resp.Diagnostics.HasError() {
		floor = nil // the arguments are still checked, so each cause is said at once
	}
	des, fit, ps := plan.Design(inventoryCatalog(d.data), p, floor, "")
	addPlanProblems(&resp.Diagnostics, ps)
	if resp.Diagnostics.HasError() {
		return
	}
	record := noFloor
	if floor != nil {
		record = recordValue(floor, rec) // the record as it came: the design carries the floor given
	}
	out := topologyOutputs(des, fit, record, sel)
	// Through Wrap the item maps skip the framework (wire.go, bypassOutputs).
	tfwire.StashOutputs(ctx, out, "racks", "switches", "nodes", "hcas", "cables", "appliance_links", "groups", "design")
	state, err := tfwire.WithOutputs(req.Config.Raw, out)
	if err != nil {
		resp.Diagnostics.AddError("Internal error", "building the data source's state: "+err.Error()+"; this is a bug in the provider")
		return
	}
	resp.State.Raw = state
}

// ---- outputs ----
//
// The outputs are built as tftypes values directly, with the types derived once from the attribute
// types above. tfsdk.State.Set would convert a model of attr.Values three times over (reflection,
// then to the schema type and back, then to tftypes): 14 s for a 16,384-endpoint tree, against
// well under a second here (BenchmarkTopologyOutputs).

var (
	tfRack     = topoRackType.TerraformType(context.Background())
	tfSwitch   = topoSwitchType.TerraformType(context.Background())
	tfNode     = topoNodeType.TerraformType(context.Background())
	tfHCA      = topoHCAType.TerraformType(context.Background())
	tfCable    = topoCableType.TerraformType(context.Background())
	tfExternal = topoExternalType.TerraformType(context.Background())
	tfGroup    = topoGroupType.TerraformType(context.Background())
	tfSummary  = types.ObjectType{AttrTypes: topoSummaryAttrTypes}.TerraformType(context.Background())
	tfPortPlan = topoPortRangeType.TerraformType(context.Background())
	tfCounts   = countMapType.TerraformType(context.Background())

	tfNullString = tftypes.NewValue(tftypes.String, nil)
	tfNullNumber = tftypes.NewValue(tftypes.Number, nil)
)

func tfStr(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// smallInts holds the numbers ports, units and counts mostly are, made once: a tftypes number is a
// *big.Float, and sharing them (values are immutable) halves the allocations of a cable.
var smallInts = func() []tftypes.Value {
	out := make([]tftypes.Value, 1025)
	for i := range out {
		out[i] = tftypes.NewValue(tftypes.Number, int64(i))
	}
	return out
}()

func tfInt(v int) tftypes.Value {
	if v >= 0 && v < len(smallInts) {
		return smallInts[v]
	}
	return tftypes.NewValue(tftypes.Number, int64(v))
}

// tfStrOrNull maps an unset string ("") to null.
func tfStrOrNull(s string) tftypes.Value {
	if s == "" {
		return tfNullString
	}
	return tfStr(s)
}

// tfIntOrNull maps the "unset" value of a fabric field (0, or -1 for a rail) to null.
func tfIntOrNull(v, unset int) tftypes.Value {
	if v == unset {
		return tfNullNumber
	}
	return tfInt(v)
}

func tfFloatOrNull(v float64) tftypes.Value {
	if v == 0 {
		return tfNullNumber
	}
	return tftypes.NewValue(tftypes.Number, v)
}

func tfObj(t tftypes.Type, attrs map[string]tftypes.Value) tftypes.Value {
	return tftypes.NewValue(t, attrs)
}

func tfMap(elem tftypes.Type, m map[string]tftypes.Value) tftypes.Value {
	return tftypes.NewValue(tftypes.Map{ElementType: elem}, m)
}

// The objects of the maps, encoded by the shape tables (fabric_inventory.go).
func rackValue(r fabric.Rack) tftypes.Value     { return rackShape.encode(tfRack, &r) }
func switchValue(s fabric.Switch) tftypes.Value { return switchShape.encode(tfSwitch, &s) }
func nodeValue(n fabric.Node) tftypes.Value     { return nodeShape.encode(tfNode, &n) }
func hcaValue(h fabric.HCA) tftypes.Value       { return hcaShape.encode(tfHCA, &h) }
func cableValue(c fabric.Cable) tftypes.Value   { return cableShape.encode(tfCable, &c) }

func applianceValue(a topogen.ApplianceLink, kind string) tftypes.Value {
	return tfObj(tfExternal, map[string]tftypes.Value{
		"label": tfStr(a.Key), "device": tfStr(a.Appliance), "port": tfInt(a.Port),
		"rack": tfStrOrNull(a.Rack), "position_u": tfIntOrNull(a.PositionU, 0),
		"switch": tfStr(a.Leaf), "switch_port": tfInt(a.LeafPort),
		"kind": tfStrOrNull(kind), "length_m": tfNullNumber,
	})
}

// topologyItemMaps are the item maps `items` chooses among, in the order of the default.
var topologyItemMaps = []string{"racks", "switches", "nodes", "hcas", "cables", "appliance_links"}

// itemSelection is what `items` and `items_by_group` ask: which item maps to fill, and where.
type itemSelection struct {
	maps    map[string]bool
	byGroup bool
}

// allItems is the default: every map, at the top level.
func allItems() itemSelection {
	m := map[string]bool{}
	for _, n := range topologyItemMaps {
		m[n] = true
	}
	return itemSelection{maps: m}
}

// itemSelection reads `items` (null: every map) and `items_by_group` (null: false).
func (r *specReader) itemSelection(items, byGroup tftypes.Value) itemSelection {
	sel := allItems()
	if items.Type() != nil && !items.IsNull() && items.IsKnown() {
		var l []tftypes.Value
		_ = items.As(&l)
		sel.maps = map[string]bool{}
		for i, v := range l {
			var n string
			if !v.IsKnown() || v.IsNull() || v.As(&n) != nil {
				r.diags.AddAttributeError(path.Root("items").AtListIndex(i), "Invalid item map", "items lists map names: "+strings.Join(topologyItemMaps, ", "))
				continue
			}
			sel.maps[n] = true
		}
	}
	if byGroup.Type() != nil && !byGroup.IsNull() && byGroup.IsKnown() {
		_ = byGroup.As(&sel.byGroup)
	}
	return sel
}

// itemValues encodes the objects of one block of maps (the design's, or a group's) for the maps
// sel asks; the others are empty.
func itemValues(sel itemSelection, racks map[string]fabric.Rack, switches map[string]fabric.Switch, nodes map[string]fabric.Node,
	hcas map[string]fabric.HCA, cables map[string]fabric.Cable, appliances map[string]topogen.ApplianceLink, cableKind string) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(topologyItemMaps))
	out["racks"] = encodeMap(sel.maps["racks"], tfRack, racks, rackValue)
	out["switches"] = encodeMap(sel.maps["switches"], tfSwitch, switches, switchValue)
	out["nodes"] = encodeMap(sel.maps["nodes"], tfNode, nodes, nodeValue)
	out["hcas"] = encodeMap(sel.maps["hcas"], tfHCA, hcas, hcaValue)
	out["cables"] = encodeMap(sel.maps["cables"], tfCable, cables, cableValue)
	out["appliance_links"] = encodeMap(sel.maps["appliance_links"], tfExternal, appliances, func(a topogen.ApplianceLink) tftypes.Value {
		return applianceValue(a, cableKind)
	})
	return out
}

// encodeMap is one item map as a Terraform map: the objects of m when on, else empty.
func encodeMap[T any](on bool, elem tftypes.Type, m map[string]T, enc func(T) tftypes.Value) tftypes.Value {
	if !on {
		return tfMap(elem, map[string]tftypes.Value{})
	}
	vals := make(map[string]tftypes.Value, len(m))
	for k, v := range m {
		vals[k] = enc(v)
	}
	return tfMap(elem, vals)
}

// topologyOutputs returns the computed attributes of the design by attribute name (floor: the
// design's as_built record, floorValue). The item
// maps sel asks for are filled at the top level, or in each group's maps with sel.byGroup; an
// object is never output twice.
func topologyOutputs(des *topogen.Design, fit *asbuilt.Fitted, floor tftypes.Value, sel itemSelection) map[string]tftypes.Value {
	top, none := sel, itemSelection{}
	if sel.byGroup {
		top = none
	}
	inGroups := none
	if sel.byGroup {
		inGroups = sel
	}
	var out map[string]tftypes.Value
	groups := make(map[string]tftypes.Value, len(des.Groups))
	if fit == nil {
		out = itemValues(top, des.Racks, des.Switches, des.Nodes, des.HCAs, des.Cables, des.Appliances, des.Params.CableKind)
		for _, g := range des.Groups {
			attrs := itemValues(inGroups, g.Racks, g.Switches, g.Nodes, g.HCAs, g.Cables, g.Appliances, des.Params.CableKind)
			attrs["kind"] = tfStr(g.Kind)
			groups[g.Name] = tfObj(tfGroup, attrs)
		}
	} else {
		// Fitted to the floor: the items under the floor's names; the appliance links on the
		// fitted leaves (in the central group of the blocks they sit in).
		all, fitted := fit.Groups()
		out = itemValues(top, all.Racks, all.Switches, all.Nodes, all.HCAs, all.Cables, all.Appliances, des.Params.CableKind)
		for _, g := range fitted {
			attrs := itemValues(inGroups, g.Racks, g.Switches, g.Nodes, g.HCAs, g.Cables, nil, des.Params.CableKind)
			attrs["kind"] = tfStr(g.Kind)
			groups[g.Name] = tfObj(tfGroup, attrs)
		}
	}
	out["groups"] = tfMap(tfGroup, groups)
	out["design"] = designValue(des.Normalized(), floor)
	out["as_built_fit"] = asBuiltFitValue(fit)

	s := des.Summary
	counts := func(c map[string]int) tftypes.Value {
		m := make(map[string]tftypes.Value, len(c))
		for k, n := range c {
			m[k] = tfInt(n)
		}
		return tftypes.NewValue(tfCounts, m)
	}
	out["summary"] = tfObj(tfSummary, map[string]tftypes.Value{
		"tiers": tfInt(des.Tiers), "racks": tfInt(s.Racks), "switches": tfInt(s.Switches), "nodes": tfInt(s.Nodes),
		"hcas": tfInt(s.HCAs), "cables": tfInt(s.Cables), "endpoints": tfInt(s.Endpoints),
		"appliance_links": tfInt(s.ApplianceLinks), "switches_by_role": counts(s.SwitchesByRole),
		"links_by_tier": counts(s.LinksByTier), "planned_nodes": tfIntOrNull(s.PlannedNodes, 0),
		"planned_scalable_units": tfIntOrNull(s.PlannedScalableUnits, 0), "planned_groups": tfIntOrNull(s.PlannedGroups, 0),
	})

	pp := make([]tftypes.Value, len(des.PortPlan))
	for i, r := range des.PortPlan {
		pp[i] = tfObj(tfPortPlan, map[string]tftypes.Value{
			"role": tfStr(r.Role), "first": tfInt(r.First), "last": tfInt(r.Last), "faces": tfStr(r.Faces), "rule": tfStr(r.Rule),
		})
	}
	out["port_plan"] = tftypes.NewValue(tftypes.List{ElementType: tfPortPlan}, pp)
	out["port_plan_text"] = tfStr(des.PortPlanText())

	notes := make([]tftypes.Value, len(des.Notes))
	for i, n := range des.Notes {
		notes[i] = tfStr(n)
	}
	out["notes"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, notes)
	return out
}
