package provider

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/counters"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

var (
	_ datasource.DataSource              = (*portCountersDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*portCountersDataSource)(nil)
)

func newPortCountersDataSource() datasource.DataSource { return &portCountersDataSource{} }

// portCountersDataSource is glue over internal/opensm (where the ports are, perfquery) and
// internal/counters (rates, BER, verdicts, the snapshot and its file on the host);
// port_counters_links.go maps the verdicts.
type portCountersDataSource struct {
	data *Data
}

type portCountersModel struct {
	fabricHostModel
	PerfQueryCommand     types.String  `tfsdk:"perfquery_command"`
	IBNetDiscoverCommand types.String  `tfsdk:"ibnetdiscover_command"`
	Extended             types.Bool    `tfsdk:"extended"`
	Ports                types.List    `tfsdk:"ports"`
	SampleSeconds        types.Int64   `tfsdk:"sample_seconds"`
	Previous             types.String  `tfsdk:"previous"`
	SnapshotFile         types.String  `tfsdk:"snapshot_file"`
	MaxSymbolBER         types.Float64 `tfsdk:"max_symbol_ber"`
	MinSymbolErrors      types.Int64   `tfsdk:"min_symbol_errors"`

	fabricInputsModel // the declared fabric: design, absent_cables and the inventory maps

	ReadAt        types.String `tfsdk:"read_at"`
	Counters      types.List   `tfsdk:"counters"`
	Totals        types.Map    `tfsdk:"totals"`
	Links         types.Map    `tfsdk:"links"`
	SuspectCables types.List   `tfsdk:"suspect_cables"`
	UnreadCables  types.List   `tfsdk:"unread_cables"`
	Snapshot      types.String `tfsdk:"snapshot"`
}

type portSelector struct {
	Name types.String `tfsdk:"name"`
	GUID types.String `tfsdk:"guid"`
	LID  types.Int64  `tfsdk:"lid"`
	Port types.Int64  `tfsdk:"port"`
}

// defaultSampleSeconds is the gap between the starts of the two reads when sample_seconds is not set: long
// enough for a climbing counter to show, short enough for every plan.
const defaultSampleSeconds = 5

var portCounterAttrTypes = map[string]attr.Type{
	"name": types.StringType, "guid": types.StringType, "lid": types.Int64Type, "port": types.Int64Type,
	"values": types.MapType{ElemType: types.NumberType}, "rates": types.MapType{ElemType: types.Float64Type},
}

func (d *portCountersDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_port_counters"
}

func (d *portCountersDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (d *portCountersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := fabricHostAttributes(true)
	for k, v := range fabricInputAttributes() {
		attrs[k] = v
	}
	attrs["perfquery_command"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "perfquery as it is run on the host (default `perfquery`); its arguments are appended, e.g. `sudo perfquery -C mlx5_0`.",
	}
	attrs["ibnetdiscover_command"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "ibnetdiscover as it is run on the host (default `ibnetdiscover`); used without `ports`, to find the switches, the cables and their LIDs.",
	}
	attrs["extended"] = schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "Read the 64-bit PortCountersExtended (`perfquery -x`: data and packet counters) instead of PortCounters. " +
			"The error counters (`SymbolErrorCounter`, `LinkDownedCounter`) are PortCounters: leave it unset for verdicts.",
	}
	attrs["ports"] = schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Ports to read. Without it, every cable: the declared fabric's when `design` or the maps are given " +
			"(both ends of each, down ones included), otherwise every link ibnetdiscover finds. Not with a declared fabric.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Optional: true, MarkdownDescription: "Label of the port in `counters` (default: the GUID or LID)."},
			"guid": schema.StringAttribute{
				Optional: true, MarkdownDescription: "Switch node GUID or HCA port GUID (perfquery `-G`, resolved by the SM). Exactly one of `guid` and `lid`.",
				Validators: []validator.String{guidValidator()},
			},
			"lid": schema.Int64Attribute{
				Optional: true, MarkdownDescription: "LID of the device.",
				Validators: []validator.Int64{int64validator.Between(1, 0xbfff)},
			},
			"port": schema.Int64Attribute{
				Optional: true, MarkdownDescription: "Port number; without it, every port of the device (`perfquery -l ... 255`).",
				Validators: []validator.Int64{int64validator.Between(1, 254)},
			},
		}},
	}
	attrs["sample_seconds"] = schema.Int64Attribute{
		Optional: true,
		MarkdownDescription: fmt.Sprintf("Seconds from the start of the first read to the start of the second, the window the rates come "+
			"from (default %d); the sample takes this and one more read (more when a read takes longer). `0` reads once: rates then come "+
			"from `previous` only.", defaultSampleSeconds),
		Validators: []validator.Int64{int64validator.Between(0, 600)},
	}
	attrs["previous"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "The `snapshot` of an earlier read, as it was. With it, a single read still gives rates (over the time " +
			"since), a cable that went down keeps the rates last read while it was up, and a link that went down between " +
			"the two reads is counted. Where Terraform keeps one (an output of another workspace, read with " +
			"`terraform_remote_state`); `snapshot_file` keeps it on the host instead.",
	}
	attrs["snapshot_file"] = schema.StringAttribute{
		Optional: true,
		MarkdownDescription: "A file on `host` (absolute path) that keeps the last read between plans: read as `previous` when " +
			"`previous` is not given, then replaced (atomically, mode 0600) with this read's `snapshot`. The history then lives " +
			"with the fabric, whichever machine plans, and no Terraform output changes on every read.",
		Validators: []validator.String{stringvalidator.RegexMatches(regexp.MustCompile(`^/[^\x00]*[^/]$`), "must be an absolute path to a file")},
	}
	attrs["max_symbol_ber"] = schema.Float64Attribute{
		Optional: true,
		MarkdownDescription: "Highest acceptable symbol error rate per bit (default `1e-14`, NVIDIA's limit for NDR links in UFM's " +
			"link validation; the InfiniBand specification requires better than `1e-12`).",
		Validators: []validator.Float64{float64validator.Between(1e-20, 1e-3)},
	}
	attrs["min_symbol_errors"] = schema.Int64Attribute{
		Optional: true,
		MarkdownDescription: "Fewest symbol errors in the window that can make a cable end suspect (default 3: NVIDIA's " +
			"12-minute threshold at 400 Gb/s is 2.88), so one stray error in a short read does not condemn a cable.",
		Validators: []validator.Int64{int64validator.AtLeast(1)},
	}
	attrs["read_at"] = schema.StringAttribute{Computed: true, MarkdownDescription: "When the last read began (RFC 3339, UTC)."}
	attrs["counters"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "One element per port read (the last read), in the order asked.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Computed: true, MarkdownDescription: "The port's label: `name`; a cable end's label (`leaf01:40`); the switch's description otherwise."},
			"guid": schema.StringAttribute{Computed: true, MarkdownDescription: "GUID asked for (or the switch's node GUID); empty when asked by LID."},
			"lid":  schema.Int64Attribute{Computed: true, MarkdownDescription: "LID perfquery reports."},
			"port": schema.Int64Attribute{Computed: true, MarkdownDescription: "Port number."},
			"values": schema.MapAttribute{
				Computed: true, ElementType: types.NumberType,
				MarkdownDescription: "Every counter perfquery printed, by its name: `SymbolErrorCounter`, `LinkDownedCounter`, " +
					"`PortRcvErrors`, `PortXmitDiscards`, `PortXmitWait`, ...",
			},
			"rates": schema.MapAttribute{
				Computed: true, ElementType: types.Float64Type,
				MarkdownDescription: "Each counter's change per second between the two reads (or since `previous`); null after a single read without one.",
			},
		}},
	}
	attrs["totals"] = schema.MapAttribute{
		Computed: true, ElementType: types.NumberType,
		MarkdownDescription: "Each counter summed over the ports read, for `check` blocks: `data.gpucluster_port_counters.x.totals[\"SymbolErrorCounter\"] == 0`.",
	}
	attrs["links"] = portCounterLinksSchema()
	attrs["suspect_cables"] = schema.ListAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "Labels of the cables judged `suspect` or `down`, sorted: cabled links only, ready to paste into " +
			"`gpucluster_fabric.failed_cables`. A link never cabled (verdict `absent`) is not listed: it belongs in `absent_cables`.",
	}
	attrs["unread_cables"] = schema.ListAttribute{
		Computed: true, ElementType: types.StringType,
		MarkdownDescription: "Labels of the cables judged `unread`, sorted: no verdict could be given (an end did not answer, was read " +
			"once without `previous`, or no subnet manager gave the ports LIDs). Not failed cables, but not healthy ones either: " +
			"a `check` asserts this list is empty beside `suspect_cables`.",
	}
	attrs["snapshot"] = schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "What this read saw (every end's counters, every cable's verdict and last rates), for `previous` of the next one.",
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "InfiniBand port counters read with `perfquery` over SSH on a host of the fabric, read twice " +
			"`sample_seconds` apart: every counter per port with its rate per second, and, per cable (`links`), both ends " +
			"joined, the symbol error rate per bit against the link's rate and a verdict (`ok`, `suspect`, `down`, `unread`, `absent`) with the " +
			"reason and, for the bad ones, where a technician finds both ends. Given the fabric's inputs, every designed cable " +
			"is judged, down ones included, and `suspect_cables` lists what to record in `failed_cables`. Reading never " +
			"resets a counter.",
		Attributes: attrs,
	}
}

func (d *portCountersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m portCountersModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, fabricDiagTimeout)
	defer cancel()
	extended := m.Extended.ValueBool()
	sample := int64(defaultSampleSeconds)
	if !m.SampleSeconds.IsNull() {
		sample = m.SampleSeconds.ValueInt64()
	}
	prev, err := counters.DecodeSnapshot(m.Previous.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("previous"), "Not a snapshot", err.Error())
		return
	}
	// A snapshot with a wrong clock would give rates over a window that did not happen.
	if err := prev.CheckClock(time.Now()); err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("previous"), "The snapshot's clock is wrong", err.Error())
		return
	}
	declared := hasFabricInputs(ctx, tfwire.FromConfig, &m.fabricInputsModel)
	if declared && !m.Ports.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("ports"), "ports with a declared fabric",
			"With design or the inventory maps every designed cable is read; leave out ports, or the fabric.")
		return
	}

	var queries []opensm.PerfQuery
	if !m.Ports.IsNull() {
		if queries = selectedPorts(ctx, &m, extended, resp); resp.Diagnostics.HasError() {
			return
		}
	}
	var fc fabricCables
	if declared {
		// The declared fabric first: a declaration error is reported without touching the host.
		var unknown bool
		var diags diag.Diagnostics
		fc, unknown, diags = declaredCables(ctx, inventoryCatalog(d.data), &m.fabricInputsModel)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		if unknown || fc.graph == nil {
			resp.Diagnostics.AddError("Unknown values", "gpucluster_port_counters needs every value of the declared fabric known; Terraform reads it once they are.")
			return
		}
	}

	c, err := dialFabricHost(ctx, d.data, m.fabricHostModel)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("host"), "Cannot reach "+m.Host.ValueString(), err.Error())
		return
	}
	defer func() { _ = c.Close() }()
	keep := m.SnapshotFile.ValueString()
	prevPath := path.Root("previous")
	if keep != "" && prev == nil {
		prevPath = path.Root("snapshot_file")
		var notSnapshot string
		if prev, notSnapshot, err = counters.ReadSnapshotFile(ctx, c, keep); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("snapshot_file"), "Cannot read the snapshot file", err.Error())
			return
		}
		if notSnapshot != "" {
			resp.Diagnostics.AddAttributeWarning(path.Root("snapshot_file"), "The snapshot file is not a snapshot", notSnapshot)
		}
	}

	if m.Ports.IsNull() {
		text, ok := runIBNetDiscover(ctx, c, m.IBNetDiscoverCommand, path.Empty(), &resp.Diagnostics)
		if !ok {
			return
		}
		disc, err := opensm.ParseTopology(text)
		unparsed, refusal := opensm.TopologyProblems(err)
		warnUnparsed(unparsed, &resp.Diagnostics)
		if refusal != nil {
			// No verdict on cables of a fabric that cannot be: a port on two cables would be
			// judged as one of them.
			resp.Diagnostics.AddAttributeError(path.Root("ibnetdiscover_command"), "The topology is not one fabric", refusal.Error())
			return
		}
		if fc.graph != nil {
			fc.cables = opensm.LocateCables(fc.graph, disc)
		} else {
			fc.cables = opensm.DiscoveredCables(disc)
		}
		queries = append(queries, opensm.CableQueries(fc.cables, extended)...)
		if len(queries) == 0 {
			resp.Diagnostics.AddWarning("No port to read", "ibnetdiscover shows no cable with a LID: is a subnet manager running on the fabric? Every cable is `unread`.")
		}
		if prev.Foreign(fc.cables) {
			resp.Diagnostics.AddAttributeWarning(prevPath, "The previous snapshot is another fabric's",
				fmt.Sprintf("Not one of its %d ports and %d cables is a cable or a cable end of this fabric (%d cables): it was read on another fabric, or under other names. This read goes without it.",
					len(prev.Ports), len(prev.Links), len(fc.cables)))
			prev = nil
		}
	}

	perf := m.PerfQueryCommand.ValueString()
	if perf == "" {
		perf = "perfquery"
	}
	sampled, problems, err := counters.Take(ctx, c, perf, queries, m.Ports.IsNull(), time.Duration(sample)*time.Second)
	resp.Diagnostics.Append(counterDiagnostics(problems, !m.Ports.IsNull())...)
	if err != nil {
		resp.Diagnostics.AddError("Port counters", err.Error())
		return
	}
	if resp.Diagnostics.HasError() {
		return
	}
	first, last, lastAt := sampled.First, sampled.Last, sampled.At
	m.ReadAt = types.StringValue(lastAt.UTC().Format(time.RFC3339))
	m.Counters, m.Totals = countersList(first, last, prev)

	lim := counters.DefaultLimits()
	if !m.MaxSymbolBER.IsNull() {
		lim.MaxSymbolBER = m.MaxSymbolBER.ValueFloat64()
	}
	if !m.MinSymbolErrors.IsNull() {
		lim.MinSymbolErrors = uint64(m.MinSymbolErrors.ValueInt64())
	}
	reports := counters.JudgeCables(fc.cables, first, last, lastAt, prev, lim)
	counters.MarkAbsent(reports, fc.absent)
	links, suspect := fc.values(ctx, inventoryCatalog(d.data), reports, &resp.Diagnostics)
	m.Links, m.SuspectCables = links, suspect
	m.UnreadCables = textList(counters.Unreads(reports))
	snap, err := counters.NewSnapshot(lastAt, reports).Encode()
	if err != nil {
		resp.Diagnostics.AddError("Port counters", "encoding the snapshot: "+err.Error())
		return
	}
	m.Snapshot = types.StringValue(snap)
	if keep != "" {
		if err := counters.WriteSnapshotFile(ctx, c, keep, snap); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("snapshot_file"), "Cannot keep the snapshot", err.Error())
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// selectedPorts turns `ports` into perfquery runs.
func selectedPorts(ctx context.Context, m *portCountersModel, extended bool, resp *datasource.ReadResponse) []opensm.PerfQuery {
	var sel []portSelector
	resp.Diagnostics.Append(m.Ports.ElementsAs(ctx, &sel, false)...)
	if resp.Diagnostics.HasError() {
		return nil
	}
	var queries []opensm.PerfQuery
	var bad diag.Diagnostics
	defer func() { resp.Diagnostics.Append(capDiagnostics(bad)...) }() // one per selector, and the list has no bound
	for i, s := range sel {
		if s.GUID.IsNull() == s.LID.IsNull() {
			bad.AddAttributeError(path.Root("ports").AtListIndex(i), "Port selector needs a GUID or a LID",
				"Give exactly one of guid (a switch node GUID or an HCA port GUID) and lid.")
			continue
		}
		q := opensm.PortQuery(opensm.PortSelector{
			Name: s.Name.ValueString(), GUID: s.GUID.ValueString(),
			LID: int(s.LID.ValueInt64()), Port: int(s.Port.ValueInt64()),
		}, extended)
		queries = append(queries, q)
	}
	return queries
}

// countersList maps the last read's ports, with their rates, to `counters`, and their totals to
// `totals`.
func countersList(first, last []counters.PortRead, prev *counters.Snapshot) (types.List, types.Map) {
	var elems []attr.Value
	for _, p := range counters.List(first, last, prev) {
		vals := map[string]attr.Value{}
		for k, v := range p.Read.Values {
			vals[k] = types.NumberValue(newBigUint(v))
		}
		rates := types.MapNull(types.Float64Type)
		if p.Rates != nil {
			rates = float64Map(p.Rates)
		}
		elems = append(elems, types.ObjectValueMust(portCounterAttrTypes, map[string]attr.Value{
			"name": types.StringValue(p.Name), "guid": types.StringValue(p.GUID),
			"lid": types.Int64Value(int64(p.LID)), "port": types.Int64Value(int64(p.Port)),
			"values": types.MapValueMust(types.NumberType, vals), "rates": rates,
		}))
	}
	tv := map[string]attr.Value{}
	for k, v := range counters.Totals(last) {
		tv[k] = types.NumberValue(v)
	}
	return types.ListValueMust(types.ObjectType{AttrTypes: portCounterAttrTypes}, elems), types.MapValueMust(types.NumberType, tv)
}

func float64Map(rs map[string]counters.Rate) types.Map {
	vals := make(map[string]attr.Value, len(rs))
	for k, r := range rs {
		vals[k] = types.Float64Value(r.PerSecond)
	}
	return types.MapValueMust(types.Float64Type, vals)
}

// counterDiagnostics turns a sample's problems into diagnostics, capped per cause as the plan's
// problems are (capDiagnostics): a read of every cable of a large fabric gives one "not
// understood" warning per port and per read, which would otherwise be thousands (issue 32,
// point 5). With `ports`, query i reads ports[i], so its error sits on that element.
func counterDiagnostics(problems []counters.Problem, ports bool) diag.Diagnostics {
	var d diag.Diagnostics
	for _, p := range problems {
		switch {
		case !p.Error:
			d.AddWarning(p.Summary, p.Detail)
		case p.Query >= 0 && ports:
			d.AddAttributeError(path.Root("ports").AtListIndex(p.Query), p.Summary, p.Detail)
		default:
			d.AddAttributeError(path.Root("perfquery_command"), p.Summary, p.Detail)
		}
	}
	return capDiagnostics(d)
}
