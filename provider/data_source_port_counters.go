package provider

import (
	"context"
	"fmt"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

var (
	_ datasource.DataSource              = (*portCountersDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*portCountersDataSource)(nil)
)

func newPortCountersDataSource() datasource.DataSource { return &portCountersDataSource{} }

type portCountersDataSource struct {
	data *Data
}

type portCountersModel struct {
	fabricHostModel
	PerfQueryCommand     types.String `tfsdk:"perfquery_command"`
	IBNetDiscoverCommand types.String `tfsdk:"ibnetdiscover_command"`
	Extended             types.Bool   `tfsdk:"extended"`
	Ports                types.List   `tfsdk:"ports"`

	Counters types.List `tfsdk:"counters"`
	Totals   types.Map  `tfsdk:"totals"`
}

type portSelector struct {
	Name types.String `tfsdk:"name"`
	GUID types.String `tfsdk:"guid"`
	LID  types.Int64  `tfsdk:"lid"`
	Port types.Int64  `tfsdk:"port"`
}

var portCounterAttrTypes = map[string]attr.Type{
	"name": types.StringType, "guid": types.StringType, "lid": types.Int64Type, "port": types.Int64Type,
	"values": types.MapType{ElemType: types.NumberType},
}

func (d *portCountersDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_port_counters"
}

func (d *portCountersDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (d *portCountersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	attrs := fabricHostAttributes(true)
	attrs["perfquery_command"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "perfquery as it is run on the host (default `perfquery`); its arguments are appended, e.g. `sudo perfquery -C mlx5_0`.",
	}
	attrs["ibnetdiscover_command"] = schema.StringAttribute{
		Optional:            true,
		MarkdownDescription: "ibnetdiscover as it is run on the host (default `ibnetdiscover`); used only without `ports`, to find the switches.",
	}
	attrs["extended"] = schema.BoolAttribute{
		Optional:            true,
		MarkdownDescription: "Read the 64-bit PortCountersExtended (`perfquery -x`: data and packet counters) instead of PortCounters.",
	}
	attrs["ports"] = schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Ports to read. Without it, every cabled switch port of the fabric (found with ibnetdiscover): " +
			"every link has a switch end, so that covers every cable.",
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
	attrs["counters"] = schema.ListNestedAttribute{
		Computed:            true,
		MarkdownDescription: "One element per port read, in the order asked.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"name": schema.StringAttribute{Computed: true, MarkdownDescription: "The port's label: `name`, or the switch's description without `ports`."},
			"guid": schema.StringAttribute{Computed: true, MarkdownDescription: "GUID asked for (or the switch's node GUID); empty when asked by LID."},
			"lid":  schema.Int64Attribute{Computed: true, MarkdownDescription: "LID perfquery reports."},
			"port": schema.Int64Attribute{Computed: true, MarkdownDescription: "Port number."},
			"values": schema.MapAttribute{
				Computed: true, ElementType: types.NumberType,
				MarkdownDescription: "Every counter perfquery printed, by its name: `SymbolErrorCounter`, `LinkDownedCounter`, " +
					"`PortRcvErrors`, `PortXmitDiscards`, `PortXmitWait`, ...",
			},
		}},
	}
	attrs["totals"] = schema.MapAttribute{
		Computed: true, ElementType: types.NumberType,
		MarkdownDescription: "Each counter summed over the ports read, for `check` blocks: `data.gpucluster_port_counters.x.totals[\"SymbolErrorCounter\"] == 0`.",
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "InfiniBand port counters read with `perfquery` over SSH on a host of the fabric: error " +
			"counters (SymbolErrorCounter, LinkDownedCounter, PortRcvErrors, PortXmitDiscards...) and congestion " +
			"(PortXmitWait) per port, for Terraform `check` blocks. Reading never resets a counter.",
		Attributes: attrs,
	}
}

// perfQuery is one perfquery run and where its diagnostics go.
type perfQuery struct {
	opensm.PerfQuery
	attrIdx int // index in `ports`, -1 for discovered switches
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

	var queries []perfQuery
	if !m.Ports.IsNull() {
		var sel []portSelector
		resp.Diagnostics.Append(m.Ports.ElementsAs(ctx, &sel, false)...)
		if resp.Diagnostics.HasError() {
			return
		}
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
		if resp.Diagnostics.HasError() {
			return
		}
	}

	c, err := dialFabricHost(ctx, d.data, m.fabricHostModel)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("host"), "Cannot reach "+m.Host.ValueString(), err.Error())
		return
	}
	defer func() { _ = c.Close() }()

	if m.Ports.IsNull() {
		cmd := m.IBNetDiscoverCommand.ValueString()
		if cmd == "" {
			cmd = "ibnetdiscover"
		}
		text, err := runDiag(ctx, c, cmd)
		if err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("ibnetdiscover_command"), "ibnetdiscover failed", err.Error())
			return
		}
		disc, err := opensm.ParseTopology(text)
		if err != nil {
			resp.Diagnostics.AddWarning("Part of the ibnetdiscover output was not understood", err.Error())
		}
		switches, skipped := opensm.LinkedSwitchQueries(disc, extended)
		for _, n := range skipped {
			resp.Diagnostics.AddWarning("Switch without a LID skipped", fmt.Sprintf("ibnetdiscover shows no LID for %s (%s): is an SM running?", n.Desc, n.GUID))
		}
		for _, q := range switches {
			queries = append(queries, perfQuery{PerfQuery: q, attrIdx: -1})
		}
	}

	perf := m.PerfQueryCommand.ValueString()
	if perf == "" {
		perf = "perfquery"
	}
	runs := make([]opensm.PerfQuery, len(queries))
	for i, q := range queries {
		runs[i] = q.PerfQuery
	}
	outs, err := opensm.RunPerfQueries(ctx, c, perf, runs)
	if err != nil {
		resp.Diagnostics.AddAttributeError(path.Root("perfquery_command"), "perfquery failed", err.Error())
		return
	}
	var elems []attr.Value
	totals := map[string]*big.Float{}
	for qi, q := range queries {
		blocks, perr := opensm.ParsePerfQuery(outs[qi])
		if perr != nil {
			resp.Diagnostics.AddWarning("Part of the perfquery output was not understood", fmt.Sprintf("%s: %v", q.Name, perr))
		}
		if len(blocks) == 0 {
			p := path.Root("perfquery_command")
			if q.attrIdx >= 0 {
				p = path.Root("ports").AtListIndex(q.attrIdx)
			}
			resp.Diagnostics.AddAttributeError(p, "No counters for "+q.Name, "perfquery printed no counter block:\n"+truncateText(outs[qi], 2000))
			return
		}
		for _, b := range blocks {
			counts, ok := q.Counts(b)
			if !ok {
				continue
			}
			vals := map[string]attr.Value{}
			for k, v := range counts {
				f := new(big.Float).SetUint64(v)
				vals[k] = types.NumberValue(f)
				if totals[k] == nil {
					totals[k] = new(big.Float)
				}
				totals[k].Add(totals[k], f)
			}
			elems = append(elems, types.ObjectValueMust(portCounterAttrTypes, map[string]attr.Value{
				"name": types.StringValue(q.Name), "guid": types.StringValue(q.GUID),
				"lid": types.Int64Value(int64(b.LID)), "port": types.Int64Value(int64(b.Port)),
				"values": types.MapValueMust(types.NumberType, vals),
			}))
		}
	}
	m.Counters = types.ListValueMust(types.ObjectType{AttrTypes: portCounterAttrTypes}, elems)
	tv := map[string]attr.Value{}
	for k, v := range totals {
		tv[k] = types.NumberValue(v)
	}
	m.Totals = types.MapValueMust(types.NumberType, tv)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
