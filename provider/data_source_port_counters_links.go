package provider

// gpucluster_port_counters' cables: the reads joined into cables (internal/counters judges them)
// and mapped to `links` and `suspect_cables`, with the technician's line of each bad cable
// (internal/bom's cage mates).

import (
	"context"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/counters"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

// fabricCables are the cables a read covers: the declared fabric's (graph set) or those
// ibnetdiscover found; none when `ports` chose the ports.
type fabricCables struct {
	graph  *fabric.Graph
	cables []opensm.FabricCable
	// absent holds the full labels of absent_cables: the graph is the whole design, so that they
	// are reported too (counters.MarkAbsent).
	absent map[string]bool
}

// declaredCables builds the declared fabric for the counters: absent_cables are checked as the
// fabric checks them, and the graph is the whole design with them included, their labels kept
// in absent, so that a link not cabled yet is reported `absent` rather than left out. The
// graph is nil while a value is unknown or when the inputs hold errors.
func declaredCables(ctx context.Context, cat *catalog.Catalog, in *fabricInputsModel) (fabricCables, bool, diag.Diagnostics) {
	var fc fabricCables
	inputs, unknown, diags := decodeInputs(ctx, in)
	diags = capDiagnostics(diags)
	if unknown || diags.HasError() {
		return fc, unknown, diags
	}
	f, ps := plan.Build(cat, inputs)
	addPlanProblems(&diags, ps)
	if f == nil || diags.HasError() {
		return fc, false, diags
	}
	fc.graph = f.Graph
	if len(inputs.Absent) == 0 {
		return fc, false, diags
	}
	whole := inputs
	whole.Absent = nil
	if w, _ := plan.Build(cat, whole); w != nil {
		fc.graph, fc.absent = w.Graph, map[string]bool{}
		for _, a := range inputs.Absent {
			if c, ok := w.Spec.FindCable(a); ok {
				fc.absent[w.Spec.Cables[c].Label()] = true
			}
		}
	}
	return fc, false, diags
}

var linkEndAttrTypes = map[string]attr.Type{
	"port": types.StringType, "lid": types.Int64Type, "answered": types.BoolType,
	"counters": types.MapType{ElemType: types.NumberType}, "rates": types.MapType{ElemType: types.Float64Type},
	"symbol_ber": types.Float64Type,
}

var linkAttrTypes = map[string]attr.Type{
	"a": types.ObjectType{AttrTypes: linkEndAttrTypes}, "b": types.ObjectType{AttrTypes: linkEndAttrTypes},
	"rate_gbps": types.Float64Type, "up": types.BoolType, "window_seconds": types.Float64Type, "symbol_ber": types.Float64Type,
	"verdict": types.StringType, "reason": types.StringType, "where": types.StringType,
	"shares_with": types.ListType{ElemType: types.StringType},
}

func portCounterLinksSchema() schema.MapNestedAttribute {
	end := func(which string) schema.SingleNestedAttribute {
		return schema.SingleNestedAttribute{
			Computed:            true,
			MarkdownDescription: "The cable's " + which + " end.",
			Attributes: map[string]schema.Attribute{
				"port":     schema.StringAttribute{Computed: true, MarkdownDescription: "The end's label, `leaf01:40` or `gpu001/mlx5_0:1`."},
				"lid":      schema.Int64Attribute{Computed: true, MarkdownDescription: "Its device's LID; 0 when the fabric does not show the device."},
				"answered": schema.BoolAttribute{Computed: true, MarkdownDescription: "Its port answered the last read."},
				"counters": schema.MapAttribute{Computed: true, ElementType: types.NumberType, MarkdownDescription: "Its counters at the last read; null when it did not answer."},
				"rates": schema.MapAttribute{Computed: true, ElementType: types.Float64Type,
					MarkdownDescription: "Each counter's change per second over `window_seconds`; null without a window."},
				"symbol_ber": schema.Float64Attribute{Computed: true,
					MarkdownDescription: "Symbol errors per bit over the window at `rate_gbps`; null without a window."},
			},
		}
	}
	return schema.MapNestedAttribute{
		Computed: true,
		MarkdownDescription: "Every cable, keyed by its label (`leaf01:40 <-> spine01:8`, as `gpucluster_cable` and `failed_cables` " +
			"write it): both ends joined, with a verdict. Empty with `ports`.",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"a":         end("first (lower-tier)"),
			"b":         end("second"),
			"rate_gbps": schema.Float64Attribute{Computed: true, MarkdownDescription: "The link's rate, one direction: the designed one, or the discovered speed's."},
			"up":        schema.BoolAttribute{Computed: true, MarkdownDescription: "The fabric shows the cable (ibnetdiscover joins its two ends)."},
			"window_seconds": schema.Float64Attribute{Computed: true,
				MarkdownDescription: "Seconds the rates cover: `sample_seconds`, or the time since `previous`; 0 without rates."},
			"symbol_ber": schema.Float64Attribute{Computed: true, MarkdownDescription: "The worse end's symbol error rate per bit; null without a window."},
			"verdict": schema.StringAttribute{Computed: true,
				MarkdownDescription: "`ok` (a symbol error rate measured at both ends, within the limits); `suspect` (symbol BER above " +
					"`max_symbol_ber` with at least `min_symbol_errors` errors at an end, a saturated SymbolErrorCounter, or the link went " +
					"down at both ends); `down` (designed and cabled, but the fabric does not show it); `absent` (designed, not shown, " +
					"and nothing says it was ever cabled: no earlier read saw it up and every counter of the ends that answer is 0, as " +
					"for an absent node's cables or an uplink never plugged in; it belongs in `absent_cables`); `unread` (up, nothing " +
					"wrong seen, but not measured at both ends: no data is never `ok`)."},
			"reason": schema.StringAttribute{Computed: true,
				MarkdownDescription: "Why, with the numbers: errors, window, rate per second and BER for a suspect end; for a down cable " +
					"the LinkDownedCounter of each end that still answers and the rates last read while it was up (with `previous`)."},
			"where": schema.StringAttribute{Computed: true,
				MarkdownDescription: "For a suspect, down or absent cable of a declared fabric, the technician's line: both ends' rack, unit, " +
					"box, cage and split, the cable and transceiver parts, and the links that go down with it during the swap. " +
					"Null otherwise."},
			"shares_with": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "For a suspect, down or absent cable of a declared fabric, the cables that share its twin-port cable or a " +
					"transceiver (they go down too while it is worked on). Null otherwise."},
		}},
	}
}

// values maps the reports to `links` and `suspect_cables`.
func (f *fabricCables) values(_ context.Context, cat *catalog.Catalog, reports []counters.Report, _ *diag.Diagnostics) (types.Map, types.List) {
	var mates *bom.CageMates
	lidOf := opensm.EndLIDs(f.cables)
	links := make(map[string]attr.Value, len(reports))
	for _, r := range reports {
		where, shares := types.StringNull(), types.ListNull(types.StringType)
		if r.Verdict == counters.Suspect || r.Verdict == counters.Down || r.Verdict == counters.Absent {
			if f.graph != nil {
				if mates == nil {
					mates = bom.NewCageMates(bom.Cabling(f.graph, cat, bom.Options{}))
				}
				if line, ms, ok := mates.Locate(r.Label); ok {
					where = types.StringValue(line)
					labels := make([]string, len(ms))
					for i, mt := range ms {
						labels[i] = mt.Cable
					}
					shares = textList(labels)
				}
			}
		}
		links[r.Label] = types.ObjectValueMust(linkAttrTypes, map[string]attr.Value{
			"a": endValue(r.A, lidOf[r.A.Name]), "b": endValue(r.B, lidOf[r.B.Name]),
			"rate_gbps": types.Float64Value(r.RateGbps), "up": types.BoolValue(r.Up), "window_seconds": types.Float64Value(r.Window()),
			"symbol_ber": float64Ptr(r.SymbolBER), "verdict": types.StringValue(string(r.Verdict)), "reason": types.StringValue(r.Reason),
			"where": where, "shares_with": shares,
		})
	}
	return types.MapValueMust(types.ObjectType{AttrTypes: linkAttrTypes}, links), textList(counters.Suspects(reports))
}

func endValue(e counters.EndReport, lid int) attr.Value {
	vals := types.MapNull(types.NumberType)
	if e.Answered {
		m := make(map[string]attr.Value, len(e.Counters))
		for k, v := range e.Counters {
			m[k] = types.NumberValue(newBigUint(v))
		}
		vals = types.MapValueMust(types.NumberType, m)
	}
	rates := types.MapNull(types.Float64Type)
	if e.Rates != nil {
		rates = float64Map(e.Rates)
	}
	return types.ObjectValueMust(linkEndAttrTypes, map[string]attr.Value{
		"port": types.StringValue(e.Name), "lid": types.Int64Value(int64(lid)), "answered": types.BoolValue(e.Answered),
		"counters": vals, "rates": rates, "symbol_ber": float64Ptr(e.SymbolBER),
	})
}

func float64Ptr(v *float64) types.Float64 {
	if v == nil {
		return types.Float64Null()
	}
	return types.Float64Value(*v)
}

func newBigUint(v uint64) *big.Float { return new(big.Float).SetUint64(v) }
