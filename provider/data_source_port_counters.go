package provider

import (
	"context"
	"fmt"
	"math/big"
	pathpkg "path"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/counters"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

var (
	_ datasource.DataSource              = (*portCountersDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*portCountersDataSource)(nil)
)

func newPortCountersDataSource() datasource.DataSource { return &portCountersDataSource{} }

// portCountersDataSource is glue over internal/opensm (where the ports are, perfquery) and
// internal/counters (rates, BER, verdicts); port_counters_links.go maps the verdicts.
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
	Snapshot      types.String `tfsdk:"snapshot"`
}

type portSelector struct {
	Name types.String `tfsdk:"name"`
	GUID types.String `tfsdk:"guid"`
	LID  types.Int64  `tfsdk:"lid"`
	Port types.Int64  `tfsdk:"port"`
}

// defaultSampleSeconds is the gap between the two reads when sample_seconds is not set: long
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
		MarkdownDescription: fmt.Sprintf("Seconds between the two reads the rates come from (default %d). `0` reads once: rates then come "+
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
		MarkdownDescription: "Labels of the cables judged `suspect` or `down`, sorted: ready to paste into `gpucluster_fabric.failed_cables`.",
	}
	attrs["snapshot"] = schema.StringAttribute{
		Computed:            true,
		MarkdownDescription: "What this read saw (every end's counters, every cable's verdict and last rates), for `previous` of the next one.",
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "InfiniBand port counters read with `perfquery` over SSH on a host of the fabric, read twice " +
			"`sample_seconds` apart: every counter per port with its rate per second, and, per cable (`links`), both ends " +
			"joined, the symbol error rate per bit against the link's rate and a verdict (`ok`, `suspect`, `down`) with the " +
			"reason and, for the bad ones, where a technician finds both ends. Given the fabric's inputs, every designed cable " +
			"is judged, down ones included, and `suspect_cables` lists what to record in `failed_cables`. Reading never " +
			"resets a counter.",
		Attributes: attrs,
	}
}

// perfQuery is one perfquery run and where its diagnostics go.
type perfQuery struct {
	opensm.PerfQuery
	attrIdx int // index in `ports`, -1 for ports the data source found itself
}

// portRead is one port's counters in one read, with what identifies it.
type portRead struct {
	q     perfQuery
	block opensm.PortCounters
	read  counters.Read
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
	declared := hasFabricInputs(ctx, fromConfig, &m.fabricInputsModel)
	if declared && !m.Ports.IsNull() {
		resp.Diagnostics.AddAttributeError(path.Root("ports"), "ports with a declared fabric",
			"With design or the inventory maps every designed cable is read; leave out ports, or the fabric.")
		return
	}

	var queries []perfQuery
	if !m.Ports.IsNull() {
		if queries = selectedPorts(ctx, &m, extended, resp); resp.Diagnostics.HasError() {
			return
		}
	}
	var fc fabricCables
	if declared {
		// The declared fabric first: a declaration error is reported without touching the host.
		g, unknown, diags := readFabricGraph(ctx, inventoryCatalog(d.data), &m.fabricInputsModel)
		resp.Diagnostics.Append(diags...)
		if resp.Diagnostics.HasError() {
			return
		}
		if unknown || g == nil {
			resp.Diagnostics.AddError("Unknown values", "gpucluster_port_counters needs every value of the declared fabric known; Terraform reads it once they are.")
			return
		}
		fc.graph = g
	}

	c, err := dialFabricHost(ctx, d.data, m.fabricHostModel)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("host"), "Cannot reach "+m.Host.ValueString(), err.Error())
		return
	}
	defer func() { _ = c.Close() }()
	keep := m.SnapshotFile.ValueString()
	if keep != "" && prev == nil {
		text, exists, err := c.ReadFile(ctx, keep)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("snapshot_file"), "Cannot read the snapshot file", err.Error())
			return
		}
		if exists {
			if prev, err = counters.DecodeSnapshot(strings.TrimSpace(text)); err != nil {
				resp.Diagnostics.AddAttributeWarning(path.Root("snapshot_file"), "The snapshot file is not a snapshot",
					fmt.Sprintf("%s on %s: %v. This read goes without a previous one and replaces the file.", keep, c.Addr(), err))
				prev = nil
			}
		}
	}

	if m.Ports.IsNull() {
		text, ok := runIBNetDiscover(ctx, c, m.IBNetDiscoverCommand, path.Empty(), &resp.Diagnostics)
		if !ok {
			return
		}
		disc, err := opensm.ParseTopology(text)
		warnUnparsed(err, &resp.Diagnostics)
		if fc.graph != nil {
			fc.cables = opensm.LocateCables(fc.graph, disc)
		} else {
			fc.cables = opensm.DiscoveredCables(disc)
		}
		for _, q := range opensm.CableQueries(fc.cables, extended) {
			queries = append(queries, perfQuery{PerfQuery: q, attrIdx: -1})
		}
		if len(queries) == 0 {
			resp.Diagnostics.AddWarning("No port to read", "ibnetdiscover shows no cable with a LID: is a subnet manager running on the fabric?")
		}
	}

	perf := m.PerfQueryCommand.ValueString()
	if perf == "" {
		perf = "perfquery"
	}
	first, firstAt := d.readOnce(ctx, c, perf, queries, m.Ports.IsNull(), resp)
	if resp.Diagnostics.HasError() {
		return
	}
	last, lastAt := first, firstAt
	if sample > 0 {
		select {
		case <-ctx.Done():
			resp.Diagnostics.AddError("Port counters", "cancelled while waiting between the two reads: "+ctx.Err().Error())
			return
		case <-time.After(time.Duration(sample) * time.Second):
		}
		if last, lastAt = d.readOnce(ctx, c, perf, queries, m.Ports.IsNull(), resp); resp.Diagnostics.HasError() {
			return
		}
	} else {
		first = nil
	}
	m.ReadAt = types.StringValue(lastAt.UTC().Format(time.RFC3339))
	m.Counters, m.Totals = countersList(first, last, prev)

	lim := counters.DefaultLimits()
	if !m.MaxSymbolBER.IsNull() {
		lim.MaxSymbolBER = m.MaxSymbolBER.ValueFloat64()
	}
	if !m.MinSymbolErrors.IsNull() {
		lim.MinSymbolErrors = uint64(m.MinSymbolErrors.ValueInt64())
	}
	reports := fc.judge(first, last, lastAt, prev, lim)
	links, suspect := fc.values(ctx, inventoryCatalog(d.data), reports, &resp.Diagnostics)
	m.Links, m.SuspectCables = links, suspect
	snap, err := counters.NewSnapshot(lastAt, reports).Encode()
	if err != nil {
		resp.Diagnostics.AddError("Port counters", "encoding the snapshot: "+err.Error())
		return
	}
	m.Snapshot = types.StringValue(snap)
	if keep != "" {
		if _, err := c.WriteFiles(ctx, pathpkg.Dir(keep), map[string]string{pathpkg.Base(keep): snap + "\n"}, 0o600); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("snapshot_file"), "Cannot keep the snapshot", err.Error())
			return
		}
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// selectedPorts turns `ports` into perfquery runs.
func selectedPorts(ctx context.Context, m *portCountersModel, extended bool, resp *datasource.ReadResponse) []perfQuery {
	var sel []portSelector
	resp.Diagnostics.Append(m.Ports.ElementsAs(ctx, &sel, false)...)
	if resp.Diagnostics.HasError() {
		return nil
	}
	var queries []perfQuery
	for i, s := range sel {
		if s.GUID.IsNull() == s.LID.IsNull() {
			resp.Diagnostics.AddAttributeError(path.Root("ports").AtListIndex(i), "Port selector needs a GUID or a LID",
				"Give exactly one of guid (a switch node GUID or an HCA port GUID) and lid.")
			continue
		}
		q := opensm.PortQuery(opensm.PortSelector{
			Name: s.Name.ValueString(), GUID: s.GUID.ValueString(),
			LID: int(s.LID.ValueInt64()), Port: int(s.Port.ValueInt64()),
		}, extended)
		queries = append(queries, perfQuery{PerfQuery: q, attrIdx: i})
	}
	return queries
}

// readOnce runs every query once and returns the ports read, in query order, with the time the
// read began. With tolerant, a query that fails (a device behind a failed cable) leaves its
// ports out; otherwise it fails the read on its attribute.
func (d *portCountersDataSource) readOnce(ctx context.Context, c opensm.Runner, perf string, queries []perfQuery, tolerant bool, resp *datasource.ReadResponse) ([]portRead, time.Time) {
	runs := make([]opensm.PerfQuery, len(queries))
	for i, q := range queries {
		runs[i] = q.PerfQuery
	}
	at := time.Now()
	results, err := opensm.RunEachPerfQuery(ctx, c, perf, runs)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("perfquery_command"), "perfquery failed", err.Error())
		return nil, at
	}
	var out []portRead
	for qi, q := range queries {
		p := path.Root("perfquery_command")
		if q.attrIdx >= 0 {
			p = path.Root("ports").AtListIndex(q.attrIdx)
		}
		if results[qi].Err != nil {
			if !tolerant {
				resp.Diagnostics.AddAttributeError(p, "perfquery failed", results[qi].Err.Error())
				return nil, at
			}
			continue // the cable's verdict says the end does not answer
		}
		blocks, perr := opensm.ParsePerfQuery(results[qi].Out)
		if perr != nil {
			resp.Diagnostics.AddWarning("Part of the perfquery output was not understood", fmt.Sprintf("%s: %v", q.Name, perr))
		}
		if len(blocks) == 0 {
			resp.Diagnostics.AddAttributeError(p, "No counters for "+q.Name, "perfquery printed no counter block:\n"+truncateText(results[qi].Out, 2000))
			return nil, at
		}
		for _, b := range blocks {
			vals, ok := q.Counts(b)
			if !ok {
				continue
			}
			out = append(out, portRead{q: q, block: b, read: counters.Read{At: at, Values: vals, Extended: b.Extended}})
		}
	}
	return out, at
}

// end is the port's label as a cable end: "leaf01:40" for a port of a switch read whole, the
// query's own label otherwise (an HCA port, a port asked for by `ports`).
func (p portRead) end() string {
	if p.q.Linked != nil {
		return fmt.Sprintf("%s:%d", p.q.Name, p.block.Port)
	}
	return p.q.Name
}

// countersList is the `counters` and `totals` of the last read, with rates against the first
// read (or the previous snapshot, for ports it names).
func countersList(first, last []portRead, prev *counters.Snapshot) (types.List, types.Map) {
	before := map[[2]int]counters.Read{}
	for _, p := range first {
		before[opensm.EndKey(p.block.LID, p.block.Port)] = p.read
	}
	var elems []attr.Value
	totals := map[string]*big.Float{}
	for _, p := range last {
		vals := map[string]attr.Value{}
		for k, v := range p.read.Values {
			f := new(big.Float).SetUint64(v)
			vals[k] = types.NumberValue(f)
			if totals[k] == nil {
				totals[k] = new(big.Float)
			}
			totals[k].Add(totals[k], f)
		}
		rates := types.MapNull(types.Float64Type)
		b, ok := before[opensm.EndKey(p.block.LID, p.block.Port)]
		if !ok && prev != nil {
			if rec, has := prev.Ports[p.end()]; has && rec.At.Before(p.read.At) {
				b, ok = counters.Read{At: rec.At, Values: rec.Values, Extended: rec.Extended}, true
			}
		}
		if ok {
			if _, rs := counters.Rates(b, p.read); rs != nil {
				rates = float64Map(rs)
			}
		}
		elems = append(elems, types.ObjectValueMust(portCounterAttrTypes, map[string]attr.Value{
			"name": types.StringValue(p.q.Name), "guid": types.StringValue(p.q.GUID),
			"lid": types.Int64Value(int64(p.block.LID)), "port": types.Int64Value(int64(p.block.Port)),
			"values": types.MapValueMust(types.NumberType, vals), "rates": rates,
		}))
	}
	tv := map[string]attr.Value{}
	for k, v := range totals {
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
