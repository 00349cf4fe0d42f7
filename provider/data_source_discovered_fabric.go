package provider

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

var (
	_ datasource.DataSource              = (*discoveredFabricDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*discoveredFabricDataSource)(nil)
)

func newDiscoveredFabricDataSource() datasource.DataSource { return &discoveredFabricDataSource{} }

type discoveredFabricDataSource struct {
	data *Data
}

type discoveredFabricModel struct {
	fabricHostModel
	IBNetDiscoverCommand types.String `tfsdk:"ibnetdiscover_command"`
	TopologyFile         types.String `tfsdk:"topology_file"`
	NodeNameMap          types.String `tfsdk:"node_name_map"`
	Simulated            types.Bool   `tfsdk:"simulated"`
	EmptyOK              types.Bool   `tfsdk:"empty_ok"`

	fabricInputsModel // the declared fabric: design, absent_cables and the inventory maps

	Topology        types.String `tfsdk:"topology"`
	DiscoveredNodes types.List   `tfsdk:"discovered_nodes"`
	Clean           types.Bool   `tfsdk:"clean"`
	Missing         types.List   `tfsdk:"missing"`
	Miswired        types.List   `tfsdk:"miswired"`
	Unexpected      types.List   `tfsdk:"unexpected"`
	Degraded        types.List   `tfsdk:"degraded"`
	UnknownGUIDs    types.List   `tfsdk:"unknown_guids"`
	MissingDevices  types.List   `tfsdk:"missing_devices"`
	Report          types.List   `tfsdk:"report"`
	Counts          types.Map    `tfsdk:"counts"`
	Items           types.List   `tfsdk:"items"`
	Floor           types.Object `tfsdk:"floor"`
	AsBuilt         types.Object `tfsdk:"as_built"`
	AsBuiltNotes    types.List   `tfsdk:"as_built_notes"`
}

var discoveredNodeAttrTypes = map[string]attr.Type{
	"kind": types.StringType, "guid": types.StringType, "description": types.StringType,
	"ports": types.Int64Type, "lid": types.Int64Type,
}

func (d *discoveredFabricDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_discovered_fabric"
}

func (d *discoveredFabricDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (d *discoveredFabricDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := fabricHostAttributes(false)
	for k, v := range fabricInputAttributes() {
		attrs[k] = v
	}
	attrs["ibnetdiscover_command"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Command that prints the fabric in ibnetdiscover format (default `ibnetdiscover`); e.g. " +
			"`sudo ibnetdiscover -C mlx5_0 -P 1` to choose the HCA port.",
	}
	attrs["topology_file"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "Read the fabric from this local file (ibnetdiscover output, or an ibsim net file such as " +
			"`expected_topology` of `gpucluster_opensm_files`) instead of running ibnetdiscover.",
		Validators: []validator.String{filePathValidator("a file of ibnetdiscover output", "leave topology_file unset to run ibnetdiscover over SSH on host")},
	}
	attrs["simulated"] = schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "The fabric is ibsim running the declared fabric (`expected_topology` of `gpucluster_opensm_files`): " +
			"400G links are expected as " +
			"`4xHDR`, the stand-in ibsim can parse, instead of `4xNDR`; in `as_built` they read as `4xNDR`.",
	}
	attrs["empty_ok"] = schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "The floor is empty on purpose (no fabric cabled yet): a topology that holds nothing (0 bytes, " +
			"blank lines, comments) is read as a floor with no device. Without it (the default) a topology with no switch is " +
			"an error on `topology_file` (or `ibnetdiscover_command`): a failed `ibnetdiscover > file` leaves 0 bytes, and a " +
			"design fitted to that floor would buy everything. A text with lines that cannot be read, or with CAs but no " +
			"switch, is an error either way.",
	}
	attrs["node_name_map"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "An OpenSM node name map file (`0x<guid> \"name\"` lines, `#` comments), read as OpenSM reads it. " +
			"Where it names a switch's node GUID, or a CA's node or port GUID, its name wins over the node description in `as_built`.",
		Validators: []validator.String{nodeNameMapValidator()},
	}

	strs := func(desc string) schema.ListAttribute {
		return schema.ListAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: desc}
	}
	attrs["floor"] = discoveredFloorAttribute()
	attrs["items"] = asBuiltItemsAttribute()
	attrs["as_built"] = asBuiltAttribute()
	attrs["as_built_notes"] = strs("What `as_built` could not know and what it assumed, each said once: unknown locations (so cable " +
		"reach and rack power are not checked), models taken by default or not in the catalog, simulated speeds, links below 4xNDR.")
	attrs["topology"] = schema.StringAttribute{Computed: true, MarkdownDescription: "The ibnetdiscover output (or file) as read."}
	attrs["discovered_nodes"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "Every node found: switches, then CAs and routers, in the order ibnetdiscover printed them.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"kind":        schema.StringAttribute{Computed: true, MarkdownDescription: "`Switch`, `Ca` or `Rt`."},
			"guid":        schema.StringAttribute{Computed: true, MarkdownDescription: "Node GUID."},
			"description": schema.StringAttribute{Computed: true, MarkdownDescription: "NodeDescription, e.g. `gpu001 mlx5_0` or the switch name."},
			"ports":       schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of ports."},
			"lid":         schema.Int64Attribute{Computed: true, MarkdownDescription: "LID of the switch (port 0) or of the CA's first listed port; 0 if unknown."},
		}},
	}
	drift := " Null unless `cables` is given."
	attrs["clean"] = schema.BoolAttribute{Computed: true, MarkdownDescription: "The fabric is exactly as declared: every report list is empty." + drift}
	attrs["missing"] = strs("Declared links with neither end cabled anywhere, e.g. `leaf01[17] <-> spine01[1]`." + drift)
	attrs["miswired"] = strs("Declared links with an end cabled to another port, saying where each end really goes." + drift)
	attrs["unexpected"] = strs("Discovered links between ports that carry no declared cable." + drift)
	attrs["degraded"] = strs("Links as declared but at another width or speed, e.g. `runs at 4xHDR, declared 4xNDR`." + drift)
	attrs["unknown_guids"] = strs("GUIDs on the fabric that are not declared: replaced hardware (named by its description) or unknown nodes." + drift)
	attrs["missing_devices"] = strs("Declared devices with cables that were not found at all." + drift)
	attrs["report"] = strs("Every finding, one line each, in a stable order (missing devices, missing, miswired, unexpected, degraded, GUIDs)." + drift)
	attrs["counts"] = schema.MapAttribute{
		Computed: true, ElementType: types.Int64Type,
		MarkdownDescription: "`switches`, `cas`, `routers` and `links` found; with `cables`, also the length of each report list " +
			"(`missing`, `miswired`, `unexpected`, `degraded`, `unknown_guids`, `missing_devices`).",
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The fabric as it is: `ibnetdiscover` run over SSH on a host of the fabric (or a topology " +
			"file), parsed, and, given the declared lists (the same shape `gpucluster_fabric` takes), compared with the " +
			"declaration: missing, miswired, unexpected and degraded links and unknown GUIDs. Ports are matched by GUID " +
			"(switch node GUIDs, HCA port GUIDs), then by description for devices declared without a GUID. Meant for " +
			"Terraform `check` blocks: `assert { condition = data.gpucluster_discovered_fabric.live.clean }`.",
		Attributes: attrs,
	}
}

func (d *discoveredFabricDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m discoveredFabricModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, fabricDiagTimeout)
	defer cancel()

	// The declared fabric first: a declaration error is reported without touching the host.
	var declared *fabric.Graph
	// Through Wrap the model's inputs are null; whether a fabric was declared is in the stash.
	if hasFabricInputs(ctx, tfwire.FromConfig, &m.fabricInputsModel) {
		declared = declaredGraph(ctx, d.data, &m, &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
	}

	src := floorSource{topologyFile: m.TopologyFile, nodeNameMap: m.NodeNameMap, command: m.IBNetDiscoverCommand, host: m.fabricHostModel,
		emptyOK: m.EmptyOK.ValueBool(), offersEmptyOK: true}
	l := src.load(ctx, d.data, m.Simulated.ValueBool(), path.Empty(), func(fromFile bool) (path.Path, string) {
		if fromFile {
			return path.Root("topology_file"), "The discovered fabric cannot be adopted"
		}
		return path.Root("ibnetdiscover_command"), "The discovered fabric cannot be adopted"
	}, &resp.Diagnostics)
	if l == nil {
		return
	}
	disc, floor := l.Discovered, l.Floor
	textBytes := len(l.Text)
	var err error
	// topology is written raw with the floor's outputs (below), the file's bytes themselves:
	// through the state it was one more copy of the text at the response's peak (issue 32 point 5).
	m.Topology = types.StringValue("")
	counts := disc.Counts()
	// discovered_nodes and as_built are written by Wrap (below).
	m.DiscoveredNodes = types.ListNull(types.ObjectType{AttrTypes: discoveredNodeAttrTypes})

	nullList := types.ListNull(types.StringType)
	m.Clean, m.Missing, m.Miswired, m.Unexpected, m.Degraded = types.BoolNull(), nullList, nullList, nullList, nullList
	m.UnknownGUIDs, m.MissingDevices, m.Report = nullList, nullList, nullList
	if declared != nil {
		rep := opensm.DriftWith(declared, disc, opensm.DriftOptions{Simulated: m.Simulated.ValueBool()})
		m.Clean = types.BoolValue(rep.Clean())
		m.Missing = stringsOf(rep.Missing)
		m.Miswired = stringsOf(rep.Miswired)
		m.Unexpected = stringsOf(rep.Unexpected)
		m.Degraded = stringsOf(rep.Degraded)
		m.UnknownGUIDs = stringsOf(rep.UnknownGUIDs)
		m.MissingDevices = textList(rep.MissingDevices)
		m.Report = textList(rep.Lines())
		rep.AddCounts(counts)
	}
	cv := map[string]attr.Value{}
	for k, v := range counts {
		cv[k] = types.Int64Value(int64(v))
	}
	m.Counts = types.MapValueMust(types.Int64Type, cv)
	m.AsBuilt = types.ObjectNull(asBuiltType.AttrTypes)
	m.AsBuiltNotes = textList(floor.Notes)
	if m.Floor, err = discoveredFloorValue(floor.Spec); err != nil {
		resp.Diagnostics.AddError("Internal error", "recording the floor: "+err.Error()+"; this is a bug in the provider")
		return
	}
	items := map[string]bool{}
	for _, e := range m.Items.Elements() {
		if s, ok := e.(types.String); ok {
			items[s.ValueString()] = true
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The floor's outputs (a floor of 2,048 HCAs: 62,000 values in as_built, 13,000 in
	// discovered_nodes) go into the response as MessagePack written straight from the parsed
	// floor: through the framework each value was built, checked and encoded one at a time, three
	// quarters of the read (BenchmarkDiscoveredFabricAsBuilt).
	state, err := tfwire.WithRawOutputs(ctx, resp.State.Raw, map[string][]byte{
		"as_built":         appendAsBuilt(nil, floor, items),
		"discovered_nodes": appendDiscoveredNodes(nil, disc.Nodes),
		"topology":         topologyValue(l),
	})
	if err != nil {
		resp.Diagnostics.AddError("Internal error", "building as_built: "+err.Error()+"; this is a bug in the provider")
		return
	}
	resp.State.Raw = state
	collectAfterLargeFloor(textBytes)
}

// largeFloorText is the size of ibnetdiscover text from which a read collects its garbage before
// the response is encoded: 8 MiB, about 120 scalable units of ibsim's net file (the 64-SU floor
// of scripts/bench is 4.3 MB).
const largeFloorText = 8 << 20

// collectAfterLargeFloor collects and returns to the system what a large floor's read left once
// its outputs are encoded: the text, its parse and the floor (the record keeps its own copy of
// the names) are garbage by then, and the response copies the outputs twice more (the state's
// MessagePack, then gRPC's). Under the provider's GOGC=300 (main.go) the collector would wait for
// the heap to reach four times what was live at its last run, in the middle of the read, and the
// copies were made beside the garbage, in fresh memory: a 65,536-endpoint floor's 34 MB of
// ibnetdiscover text peaked at 304 MiB of resident memory, 218 MiB with this collection, for
// about as much CPU (scripts/bench/README.md, floormem.sh; issue 32 point 5).
func collectAfterLargeFloor(textBytes int) {
	if textBytes >= largeFloorText {
		debug.FreeOSMemory()
	}
}

// declaredGraph builds the declared fabric from the data source's lists, reporting problems on
// their attributes.
func declaredGraph(ctx context.Context, data *Data, m *discoveredFabricModel, diags *diag.Diagnostics) *fabric.Graph {
	// The inputs come from Wrap's stash when the request went through it (see provider/tfwire); m
	// keeps the null inputs for State.Set and Wrap puts the config's back in the response.
	f, unknown, d := readFabric(ctx, inventoryCatalog(data), &m.fabricInputsModel, false)
	diags.Append(d...)
	if unknown && !diags.HasError() {
		diags.AddError("Unknown values", "The declared fabric holds values that are not known yet; Terraform reads this data source once they are.")
	}
	if diags.HasError() || f == nil {
		return nil
	}
	return f.Graph
}

func stringsOf[T fmt.Stringer](items []T) types.List {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.String()
	}
	return textList(out)
}
