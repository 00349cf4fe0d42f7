package provider

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

var (
	_ datasource.DataSource              = (*topologyDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*topologyDataSource)(nil)
)

func newTopologyDataSource() datasource.DataSource { return &topologyDataSource{} }

type topologyDataSource struct {
	data *Data
}

type topologyModel struct {
	Kind                  types.String  `tfsdk:"kind"`
	NodeCount             types.Int64   `tfsdk:"node_count"`
	PlannedNodes          types.Int64   `tfsdk:"planned_nodes"`
	ScalableUnits         types.Int64   `tfsdk:"scalable_units"`
	PlannedScalableUnits  types.Int64   `tfsdk:"planned_scalable_units"`
	NodeModel             types.String  `tfsdk:"node_model"`
	SwitchModel           types.String  `tfsdk:"switch_model"`
	Oversubscription      types.Float64 `tfsdk:"oversubscription"`
	Tiers                 types.Int64   `tfsdk:"tiers"`
	Spines                types.Int64   `tfsdk:"spines"`
	ReservedNodeSlots     types.Int64   `tfsdk:"reserved_node_slots"`
	ApplianceLinksPerSlot types.Int64   `tfsdk:"appliance_links_per_slot"`
	TorusDims             types.List    `tfsdk:"torus_dims"`
	EndpointsPerSwitch    types.Int64   `tfsdk:"endpoints_per_switch"`
	GroupCount            types.Int64   `tfsdk:"group_count"`
	PlannedGroups         types.Int64   `tfsdk:"planned_groups"`
	LeavesPerGroup        types.Int64   `tfsdk:"leaves_per_group"`
	SpinesPerGroup        types.Int64   `tfsdk:"spines_per_group"`
	Prefixes              types.Object  `tfsdk:"prefixes"`
	SwitchGUIDBase        types.String  `tfsdk:"switch_guid_base"`
	HCAGUIDBase           types.String  `tfsdk:"hca_guid_base"`
	HCAGUIDs              types.Map     `tfsdk:"hca_guids"`
	RackPowerKW           types.Float64 `tfsdk:"rack_power_kw"`
	RackUnits             types.Int64   `tfsdk:"rack_units"`
	SwitchesPerRack       types.Int64   `tfsdk:"switches_per_rack"`
	CableKind             types.String  `tfsdk:"cable_kind"`
	WithGroups            types.Bool    `tfsdk:"with_groups"`
	Items                 types.Bool    `tfsdk:"items"`

	Design types.Object `tfsdk:"design"`

	Racks          types.Map    `tfsdk:"racks"`
	Switches       types.Map    `tfsdk:"switches"`
	Nodes          types.Map    `tfsdk:"nodes"`
	HCAs           types.Map    `tfsdk:"hcas"`
	Cables         types.Map    `tfsdk:"cables"`
	ApplianceLinks types.Map    `tfsdk:"appliance_links"`
	Summary        types.Object `tfsdk:"summary"`
	PortPlan       types.List   `tfsdk:"port_plan"`
	PortPlanText   types.String `tfsdk:"port_plan_text"`
	Groups         types.Map    `tfsdk:"groups"`
	Notes          types.List   `tfsdk:"notes"`
}

type topologyPrefixes struct {
	Node      types.String `tfsdk:"node"`
	Leaf      types.String `tfsdk:"leaf"`
	Spine     types.String `tfsdk:"spine"`
	Core      types.String `tfsdk:"core"`
	Rack      types.String `tfsdk:"rack"`
	Appliance types.String `tfsdk:"appliance"`
	Group     types.String `tfsdk:"group"`
	Torus     types.String `tfsdk:"torus"`
}

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

var prefixRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,40}$`)

func topoPrefix(what, def string) schema.StringAttribute {
	return schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: fmt.Sprintf("Name prefix of %s (default `%s`).", what, def),
		Validators: []validator.String{stringvalidator.RegexMatches(prefixRE,
			"must start with a letter or digit and hold only letters, digits, '.', '_' or '-' (up to 41), e.g. \"gpu\"")},
	}
}

func topoInt(desc string, least int64) schema.Int64Attribute {
	return schema.Int64Attribute{Optional: true, MarkdownDescription: desc, Validators: []validator.Int64{int64validator.AtLeast(least)}}
}

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
	attrs := map[string]schema.Attribute{
		"kind": schema.StringAttribute{
			Required: true,
			MarkdownDescription: "`fat-tree` (1-3 tiers, any leaf oversubscription a split of the radix gives; Leiserson, Al-Fares et al.), " +
				"`rail-optimized` (DGX SuperPOD scalable units, RA-11333-001: one leaf per rail per SU), `dragonfly-plus` " +
				"(Shpiner et al. 2017: leaf/spine groups joined all-to-all by global links) or `torus-3d` (wraparound in x, y and z).",
			Validators: []validator.String{stringvalidator.OneOf(topogen.Kinds...)},
		},
		"node_count": topoInt("GPU nodes to build now. Named `node_count` because `nodes` is the map of generated nodes. "+
			"`fat-tree`: required. `rail-optimized`: optional, instead of or within `scalable_units` (nodes fill SU slots in order). "+
			"`dragonfly-plus`: optional, with or instead of `group_count`. `torus-3d`: default fills every switch.", 1),
		"planned_nodes": topoInt("`fat-tree`: the size the spine and core layers are built for (default `node_count`). "+
			"Growing `node_count` up to it only adds leaves, nodes, HCAs and cables; past it is refused, since it would move leaf uplinks.", 1),
		"scalable_units": topoInt("`rail-optimized`: scalable units to build now. Each SU has one leaf per rail and as many node "+
			"slots as a leaf has down ports (32 DGX H100 on QM9700 at 1:1). A partial SU gets its leaves and leaf-spine cables whole.", 1),
		"planned_scalable_units": topoInt("`rail-optimized`: the SUs the spine (and core) layer is built for (default `scalable_units`). "+
			"Growing `scalable_units` up to it only adds; set it to the final size from the first apply.", 1),
		"node_model": schema.StringAttribute{Optional: true, MarkdownDescription: "Catalog node model (default `DGX-H100`). " +
			"Its compute HCAs are the endpoints (8 per DGX H100), its height and power fill the racks."},
		"switch_model": schema.StringAttribute{Optional: true, MarkdownDescription: "Catalog switch model (default `QM9700`, 64 NDR ports)."},
		"oversubscription": schema.Float64Attribute{
			Optional: true,
			MarkdownDescription: "Down:up ratio at the leaf as one number (default `1`, non-blocking; `3` is 3:1). Accepted when some " +
				"split of the radix gives exactly that ratio, using as many ports as it can and leaving the rest spare (`2` on 64 ports: " +
				"42 down, 21 up, 1 spare); otherwise the refusal names the nearest ratios that do, as values it accepts (`43/21`).",
			Validators: []validator.Float64{float64validator.AtLeast(1)},
		},
		"tiers": schema.Int64Attribute{
			Optional: true,
			MarkdownDescription: "Switch tiers of a tree: 1-3 for `fat-tree`, 2-3 for `rail-optimized` (default: the fewest that hold " +
				"the planned size). 2 tiers of radix r at 1:1 hold r²/2 endpoints (2,048 on QM9700), 3 tiers r³/4 (65,536).",
			Validators: []validator.Int64{int64validator.Between(1, 3)},
		},
		"spines": topoInt("2-tier trees: the spine count, e.g. to match a fabric already built. It must divide the leaf's uplinks "+
			"so every leaf reaches every spine equally (default: the fewest that hold the planned leaves, rounded up to such a divisor; "+
			"`notes` says so).", 1),
		"reserved_node_slots": topoInt("`rail-optimized`: node slots of SU 1, from its last, given to fabric-manager (UFM) appliances "+
			"instead of nodes, as RA-11333-001 does (`1`: SU 1 holds 31 DGX). Their links are in `appliance_links`.", 0),
		"appliance_links_per_slot": topoInt("Links of each reserved slot to the leaves, one per rail leaf from rail 0 (default `4`, "+
			"RA-11333-001 Table 4: compute + UFM links = GPUs + 4).", 1),
		"torus_dims": schema.ListAttribute{
			Optional: true, ElementType: types.Int64Type,
			MarkdownDescription: "`torus-3d`: switches along x, y and z, each at least 2, e.g. `[4, 4, 4]`. The torus is built whole; " +
				"changing its dimensions re-cables the wraparound links.",
			Validators: []validator.List{listvalidator.SizeBetween(3, 3)},
		},
		"endpoints_per_switch": topoInt("`torus-3d`: HCA ports per switch (default: one node's compute HCAs); six ports stay for the neighbours.", 1),
		"group_count": topoInt("`dragonfly-plus`: groups to build now (at least 2 planned). Named `group_count` because `groups` is the "+
			"map of generated groups.", 1),
		"planned_groups": topoInt("`dragonfly-plus`: the groups the global links are spread for (default `group_count`). "+
			"Adding groups up to it only adds cables.", 2),
		"leaves_per_group": topoInt("`dragonfly-plus`: leaves per group (default radix/2).", 1),
		"spines_per_group": topoInt("`dragonfly-plus`: spines per group, a divisor of the leaf's uplinks (default: the uplinks, one link per leaf-spine pair).", 1),
		"prefixes": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Name prefixes. Numbers are zero-padded to the planned count (`gpu001`, `leaf01`), so names " +
				"keep their width as the design grows.",
			Attributes: map[string]schema.Attribute{
				"node":      topoPrefix("nodes", "gpu"),
				"leaf":      topoPrefix("leaf switches", "leaf"),
				"spine":     topoPrefix("spine switches", "spine"),
				"core":      topoPrefix("core switches", "core"),
				"rack":      topoPrefix("racks", "rack"),
				"appliance": topoPrefix("fabric-manager appliances in reserved slots", "ufm"),
				"group":     topoPrefix("dragonfly+ switch groups", "group"),
				"torus":     topoPrefix("torus switches, named by coordinates (`sw0-1-2`)", "sw"),
			},
		},
		"switch_guid_base": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Base of the derived switch GUIDs, hex with `0x` (default `0x0002c90000000000`, the Mellanox OUI): switch " +
				"n of tier t (leaf 1, spine 2, core 3) gets base + t·2²⁰ + n, so a switch keeps its GUID as the design grows. For designs " +
				"made before the hardware arrives and for the simulator.",
		},
		"hca_guid_base": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Base of the derived HCA port GUIDs (default `0x0002c90100000000`): HCA k, counted node by node from 1, " +
				"gets base + k.",
		},
		"hca_guids": schema.MapAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Inventory of burned-in port GUIDs by HCA name, e.g. `{ \"gpu001/mlx5_0\" = \"0x946dae0300a1b2c3\" }`; " +
				"overrides the derived GUID of each HCA listed. Every GUID must stay unique.",
		},
		"rack_power_kw": schema.Float64Attribute{
			Optional: true,
			MarkdownDescription: "Power budget of every rack in kW (default `42`: four DGX H100 at their 10.2 kW maximum). It sets how " +
				"many nodes share a compute rack.",
			Validators: []validator.Float64{float64validator.AtLeast(0.001)},
		},
		"rack_units":        topoInt("Usable units of every rack (default `42`).", 1),
		"switches_per_rack": topoInt("Most switches in one network rack (default `16`: 1,024 NDR links into one rack's trays).", 1),
		"cable_kind": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Kind written on every generated cable: `dac`, `acc`, `aoc`, `fiber-mm` or `fiber-sm` " +
				"(RA-11333-001 cables everything in multimode fiber: `fiber-mm`). Unset: `null`, and the planner picks the " +
				"cheapest kind that reaches each run.",
			Validators: []validator.String{stringvalidator.OneOf(catalog.CableKinds...)},
		},

		"with_groups": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "Fill `groups` (default `true`). Every object of the design is in `groups` too, which doubles " +
				"what Terraform stores and sends; set `false` when nothing iterates over the groups.",
		},

		"items": schema.BoolAttribute{
			Optional: true,
			MarkdownDescription: "Fill the item maps `racks`, `switches`, `nodes`, `hcas`, `cables`, `appliance_links` and `groups` " +
				"(default `true`). Set `false` when only `design` is wanted (a large fabric given to `gpucluster_fabric` by " +
				"its design): the maps are then empty, and Terraform neither stores nor compares the data source's " +
				"hundreds of thousands of objects.",
		},
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
			"design is in exactly one group; a cable in the group of its lower-tier end. Use them for one module instance per " +
			"block: several small `for_each` maps plan far faster in Terraform than one big one."),
		"notes": schema.ListAttribute{
			Computed: true, ElementType: types.StringType,
			MarkdownDescription: "Sizing decisions in words: the planned size the upper tiers were built for, spines rounded up to divide the uplinks, ...",
		},
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
			"thousand items, per-item resources are fine; beyond, give `gpucluster_fabric` the `design` (set `items = false` " +
			"when nothing iterates over the maps), keep per-item resources for what has an apply-side life (nodes, HCAs), and " +
			"use `groups` for one module instance per block.",
		Attributes: attrs,
	}
}

// ---- read ----

func (d *topologyDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m topologyModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cat := inventoryCatalog(d.data)
	p, diags := topologyParams(ctx, &m)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	des, err := topogen.Generate(p, cat)
	if err != nil {
		addTopologyError(&resp.Diagnostics, err)
		return
	}
	items := m.Items.IsNull() || m.Items.ValueBool()
	out := topologyOutputs(des, items, items && (m.WithGroups.IsNull() || m.WithGroups.ValueBool()))
	// Through Wrap the item maps skip the framework (bypass.go, bypassOutputs).
	stashOutputs(ctx, out, "racks", "switches", "nodes", "hcas", "cables", "appliance_links", "groups")
	state, err := withOutputs(req.Config.Raw, out)
	if err != nil {
		resp.Diagnostics.AddError("Internal error", "building the data source's state: "+err.Error()+"; this is a bug in the provider")
		return
	}
	resp.State.Raw = state
}

// addTopologyError attaches a refusal to the argument it names, with the reason and the nearest
// buildable input.
func addTopologyError(diags *diag.Diagnostics, err error) {
	te, ok := err.(*topogen.Error)
	if !ok {
		diags.AddError("Topology generator failed", err.Error())
		return
	}
	attr := te.Attribute
	detail := fmt.Sprintf("%s: %s.", attr, te.Reason)
	if te.Nearest != "" {
		detail += fmt.Sprintf("\n\nNearest buildable: %s.", te.Nearest)
	}
	diags.AddAttributeError(path.Root(attr), "Cannot build this topology", detail)
}

// topologyParams maps the arguments to topogen.Params; null means topogen's default (zero).
func topologyParams(ctx context.Context, m *topologyModel) (topogen.Params, diag.Diagnostics) {
	var diags diag.Diagnostics
	i := func(v types.Int64) int { return int(v.ValueInt64()) }
	p := topogen.Params{
		Kind:                  m.Kind.ValueString(),
		Nodes:                 i(m.NodeCount),
		PlannedNodes:          i(m.PlannedNodes),
		ScalableUnits:         i(m.ScalableUnits),
		PlannedScalableUnits:  i(m.PlannedScalableUnits),
		NodeModel:             m.NodeModel.ValueString(),
		SwitchModel:           m.SwitchModel.ValueString(),
		Oversubscription:      m.Oversubscription.ValueFloat64(),
		Tiers:                 i(m.Tiers),
		Spines:                i(m.Spines),
		ReservedNodeSlots:     i(m.ReservedNodeSlots),
		ApplianceLinksPerSlot: i(m.ApplianceLinksPerSlot),
		EndpointsPerSwitch:    i(m.EndpointsPerSwitch),
		Groups:                i(m.GroupCount),
		PlannedGroups:         i(m.PlannedGroups),
		LeavesPerGroup:        i(m.LeavesPerGroup),
		SpinesPerGroup:        i(m.SpinesPerGroup),
		RackPowerKW:           m.RackPowerKW.ValueFloat64(),
		RackUnits:             i(m.RackUnits),
		SwitchesPerRack:       i(m.SwitchesPerRack),
		CableKind:             m.CableKind.ValueString(),
	}
	if !m.Prefixes.IsNull() {
		var pr topologyPrefixes
		diags.Append(m.Prefixes.As(ctx, &pr, objectAsOptions)...)
		p.NodePrefix, p.LeafPrefix, p.SpinePrefix = pr.Node.ValueString(), pr.Leaf.ValueString(), pr.Spine.ValueString()
		p.CorePrefix, p.RackPrefix, p.AppliancePrefix = pr.Core.ValueString(), pr.Rack.ValueString(), pr.Appliance.ValueString()
		p.GroupPrefix, p.TorusPrefix = pr.Group.ValueString(), pr.Torus.ValueString()
	}
	if !m.TorusDims.IsNull() {
		var dims []int64
		diags.Append(m.TorusDims.ElementsAs(ctx, &dims, false)...)
		for k := 0; k < len(dims) && k < 3; k++ {
			p.TorusDims[k] = int(dims[k])
		}
	}
	guid := func(v types.String, attr string) uint64 {
		if v.IsNull() {
			return 0
		}
		g, err := topogen.ParseGUID(v.ValueString())
		if err != nil {
			diags.AddAttributeError(path.Root(attr), "Invalid GUID", err.Error())
		}
		return g
	}
	p.SwitchGUIDBase = guid(m.SwitchGUIDBase, "switch_guid_base")
	p.HCAGUIDBase = guid(m.HCAGUIDBase, "hca_guid_base")
	if !m.HCAGUIDs.IsNull() {
		p.HCAGUIDs = map[string]string{}
		diags.Append(m.HCAGUIDs.ElementsAs(ctx, &p.HCAGUIDs, false)...)
	}
	return p, diags
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

// topoValues are the design's objects as Terraform values, by key; groups share them.
type topoValues struct {
	racks, switches, nodes, hcas, cables, appliances map[string]tftypes.Value
}

func designValues(des *topogen.Design) topoValues {
	v := topoValues{
		racks:      make(map[string]tftypes.Value, len(des.RackList)),
		switches:   make(map[string]tftypes.Value, len(des.SwitchList)),
		nodes:      make(map[string]tftypes.Value, len(des.NodeList)),
		hcas:       make(map[string]tftypes.Value, len(des.HCAList)),
		cables:     make(map[string]tftypes.Value, len(des.CableList)),
		appliances: make(map[string]tftypes.Value, len(des.ApplianceList)),
	}
	for _, r := range des.RackList {
		v.racks[r.Name] = rackValue(r)
	}
	for _, s := range des.SwitchList {
		v.switches[s.Name] = switchValue(s)
	}
	for _, n := range des.NodeList {
		v.nodes[n.Name] = nodeValue(n)
	}
	for _, h := range des.HCAList {
		v.hcas[h.Name] = hcaValue(h)
	}
	for i, c := range des.CableList {
		v.cables[des.CableKeys[i]] = cableValue(c)
	}
	for _, a := range des.ApplianceList {
		v.appliances[a.Key] = applianceValue(a, des.Params.CableKind)
	}
	return v
}

// subset picks the values of the keys of m (a group's map) from all.
func subset[T any](m map[string]T, all map[string]tftypes.Value) map[string]tftypes.Value {
	out := make(map[string]tftypes.Value, len(m))
	for k := range m {
		out[k] = all[k]
	}
	return out
}

// topologyOutputs returns the computed attributes of the design by attribute name; the item maps
// are empty unless items, `groups` unless withGroups.
func topologyOutputs(des *topogen.Design, items, withGroups bool) map[string]tftypes.Value {
	v := topoValues{racks: map[string]tftypes.Value{}, switches: map[string]tftypes.Value{}, nodes: map[string]tftypes.Value{},
		hcas: map[string]tftypes.Value{}, cables: map[string]tftypes.Value{}, appliances: map[string]tftypes.Value{}}
	if items {
		v = designValues(des)
	}
	out := map[string]tftypes.Value{
		"racks":           tfMap(tfRack, v.racks),
		"switches":        tfMap(tfSwitch, v.switches),
		"nodes":           tfMap(tfNode, v.nodes),
		"hcas":            tfMap(tfHCA, v.hcas),
		"cables":          tfMap(tfCable, v.cables),
		"appliance_links": tfMap(tfExternal, v.appliances),
	}

	groups := make(map[string]tftypes.Value, len(des.Groups))
	for _, g := range des.Groups {
		if !withGroups {
			break
		}
		groups[g.Name] = tfObj(tfGroup, map[string]tftypes.Value{
			"kind":            tfStr(g.Kind),
			"racks":           tfMap(tfRack, subset(g.Racks, v.racks)),
			"switches":        tfMap(tfSwitch, subset(g.Switches, v.switches)),
			"nodes":           tfMap(tfNode, subset(g.Nodes, v.nodes)),
			"hcas":            tfMap(tfHCA, subset(g.HCAs, v.hcas)),
			"cables":          tfMap(tfCable, subset(g.Cables, v.cables)),
			"appliance_links": tfMap(tfExternal, subset(g.Appliances, v.appliances)),
		})
	}
	out["groups"] = tfMap(tfGroup, groups)
	out["design"] = designValue(des.Normalized())

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

// withOutputs returns the configuration object with the computed attributes filled in: the
// data source's new state.
func withOutputs(config tftypes.Value, outputs map[string]tftypes.Value) (tftypes.Value, error) {
	var cfg map[string]tftypes.Value
	if err := config.As(&cfg); err != nil {
		return tftypes.Value{}, err
	}
	// As hands out the configuration's own map: copy it, the framework still reads the config.
	attrs := make(map[string]tftypes.Value, len(cfg))
	for k, v := range cfg {
		attrs[k] = v
	}
	for k, v := range outputs {
		attrs[k] = v
	}
	if err := tftypes.ValidateValue(config.Type(), attrs); err != nil {
		return tftypes.Value{}, err
	}
	return tftypes.NewValue(config.Type(), attrs), nil
}
