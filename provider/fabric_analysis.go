package provider

import (
	"math"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// The computed `analysis` object has the fixed shape of the design guide (docs/guides/design.md), "Fixed shapes".

var allreduceAttrTypes = map[string]attr.Type{"ring": types.Float64Type, "hierarchical": types.Float64Type}

var analysisAttrTypes = map[string]attr.Type{
	"endpoints":            types.Int64Type,
	"switches":             types.Int64Type,
	"links":                types.Int64Type,
	"tiers":                types.Int64Type,
	"port_rate_gbps":       types.Float64Type,
	"full_bisection_gbps":  types.Float64Type,
	"bisection_lower_gbps": types.Float64Type,
	"bisection_upper_gbps": types.Float64Type,
	"bisection_ratio":      types.Float64Type,
	"oversubscription":     types.MapType{ElemType: types.Float64Type},
	"max_oversubscription": types.Float64Type,
	"max_switch_hops":      types.Int64Type,
	"allreduce_seconds":    types.ObjectType{AttrTypes: allreduceAttrTypes},
	"effective_bisection":  types.ObjectType{AttrTypes: effectiveAttrTypes},
	"degraded":             types.ObjectType{AttrTypes: degradedAttrTypes},
	"violations":           types.ListType{ElemType: types.StringType},
}

// degradedAttrTypes is analysis.degraded: the fabric as it runs with its failed cables.
var degradedAttrTypes = map[string]attr.Type{
	"failed_links":          types.Int64Type,
	"unreachable_endpoints": types.Int64Type,
	"bisection_lower_gbps":  types.Float64Type,
	"bisection_upper_gbps":  types.Float64Type,
	"bisection_ratio":       types.Float64Type,
	"max_oversubscription":  types.Float64Type,
	"effective_bisection":   types.ObjectType{AttrTypes: effectiveAttrTypes},
}

func analysisSchema() schema.SingleNestedAttribute {
	num := func(d string) schema.Float64Attribute {
		return schema.Float64Attribute{Computed: true, MarkdownDescription: d}
	}
	count := func(d string) schema.Int64Attribute {
		return schema.Int64Attribute{Computed: true, MarkdownDescription: d}
	}
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "What the plan proves about the fabric. Bandwidths are Gb/s in one direction. " +
			"`bisection_lower_gbps` is proved (no balanced cut of the endpoints is smaller: the best of the hose-model " +
			"throughput of Valiant load balancing, an enumeration of the spines' sides that is exact on two-tier fabrics, " +
			"damaged or half cabled, and the bisection of a completed tree less what is missing); `bisection_upper_gbps` " +
			"is the capacity of a balanced cut that exists. On standard fat trees, damaged two-tier fabrics and even-sided " +
			"tori the two meet; a gap means the truth lies between. Bandwidths are whole multiples of the links' common " +
			"rate; a ratio is exact when it ends within 6 decimals (31:32 is 0.96875) and otherwise has 4, rounded down where " +
			"it is a proved minimum (`bisection_ratio`) and up where it must not be understated (`oversubscription`).",
		Attributes: map[string]schema.Attribute{
			"endpoints":      count("HCA ports attached to the fabric."),
			"switches":       count("Switches with at least one link."),
			"links":          count("Links."),
			"tiers":          count("Switch tiers (2 for leaf-spine)."),
			"port_rate_gbps": num("Endpoint port rate."),
			"full_bisection_gbps": num("⌊endpoints / 2⌋ x port rate (with mixed rates, the ⌊endpoints / 2⌋ slowest ports): a balanced cut of an odd " +
				"count has the smaller half on one side, so a non-blocking fabric of 1,015 endpoints has a ratio of exactly 1."),
			"bisection_lower_gbps": num("Proved lower bound on the bisection bandwidth."),
			"bisection_upper_gbps": num("Capacity of a balanced cut that exists (the witness)."),
			"bisection_ratio":      num("`bisection_lower_gbps / full_bisection_gbps`: exact within 6 decimals, else rounded down to 4."),
			"oversubscription": schema.MapAttribute{
				Computed: true, ElementType: types.Float64Type,
				MarkdownDescription: "Worst down:up capacity ratio per tier: exact within 6 decimals, else rounded up to 4 (64:63 is 1.0159), e.g. `{ leaf = 1.0, spine = 1.0 }`.",
			},
			"max_oversubscription": num("Worst ratio over all tiers."),
			"max_switch_hops":      count("Switch-to-switch links on the worst shortest endpoint path (2-tier fat tree: 2)."),
			"effective_bisection":  effectiveSchema(),
			"degraded": schema.SingleNestedAttribute{
				Computed: true,
				MarkdownDescription: "The fabric as it runs: the same graph less its `failed_cables`, judged against " +
					"`policy.degraded` (the numbers above are the fabric as designed, which the policy gates). `null` when no " +
					"cable failed. Its `bisection_ratio` is of the full bisection of the endpoints it still reaches (the designed one " +
					"unless a node cable failed: a drained node asks nothing of the bisection), a proved minimum like `bisection_ratio`.",
				Attributes: map[string]schema.Attribute{
					"failed_links": count("Links of the design that are down (`failed_cables`)."),
					"unreachable_endpoints": count("Endpoints (HCAs) of the design the running fabric cannot reach. One cut off by its own " +
						"failed cable is a warning naming its node to drain (`gpucluster_scheduler_topology.drain_nodes`), an error only beyond " +
						"`policy.degraded.max_unreachable_endpoints`; one behind a switch that is cut off is always an error."),
					"bisection_lower_gbps": num("Proved lower bound on the running fabric's bisection bandwidth."),
					"bisection_upper_gbps": num("Capacity of a balanced cut of the running fabric that exists (the witness)."),
					"bisection_ratio": num("`bisection_lower_gbps` over the full bisection of the endpoints still reached (⌊endpoints/2⌋ x port rate; the " +
						"designed `full_bisection_gbps` unless an endpoint is cut off): exact within 6 decimals, else rounded down to 4."),
					"max_oversubscription": num("Worst down:up ratio over the running fabric's tiers; `null` where no tier has uplinks."),
					"effective_bisection":  effectiveSchema(),
				},
			},
			"allreduce_seconds": schema.SingleNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Estimated gradient all-reduce time, `null` without `workload`.",
				Attributes: map[string]schema.Attribute{
					"ring":         num("Flat ring over all GPUs."),
					"hierarchical": num("NVLink inside nodes, rail-aligned rings across them."),
				},
			},
			"violations": schema.ListAttribute{
				Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Policy violations and warnings, one line each (errors also fail the plan).",
			},
		},
	}
}

func analysisValue(r analysis.Result, degraded *analysis.Result, unreachable int, violations []string) types.Object {
	over := map[string]attr.Value{}
	for k, v := range r.Oversubscription {
		over[k] = types.Float64Value(v)
	}
	ar := types.ObjectNull(allreduceAttrTypes)
	if r.AllReduce != nil {
		ar = types.ObjectValueMust(allreduceAttrTypes, map[string]attr.Value{
			"ring": finite(r.AllReduce.RingSeconds), "hierarchical": finite(r.AllReduce.HierarchicalSeconds),
		})
	}
	vs := make([]attr.Value, len(violations))
	for i, v := range violations {
		vs[i] = types.StringValue(v)
	}
	return types.ObjectValueMust(analysisAttrTypes, map[string]attr.Value{
		"endpoints":            types.Int64Value(int64(r.Endpoints)),
		"switches":             types.Int64Value(int64(r.Switches)),
		"links":                types.Int64Value(int64(r.Links)),
		"tiers":                types.Int64Value(int64(r.Tiers)),
		"port_rate_gbps":       types.Float64Value(r.PortRateGbps),
		"full_bisection_gbps":  types.Float64Value(r.FullBisectionGbps),
		"bisection_lower_gbps": types.Float64Value(r.BisectionLowerGbps),
		"bisection_upper_gbps": types.Float64Value(r.BisectionUpperGbps),
		"bisection_ratio":      finite(r.BisectionRatio),
		"oversubscription":     types.MapValueMust(types.Float64Type, over),
		"max_oversubscription": maxOversubscription(r),
		"max_switch_hops":      types.Int64Value(int64(r.MaxSwitchHops)),
		"allreduce_seconds":    ar,
		"effective_bisection":  effectiveValue(r),
		"degraded":             degradedValue(r, degraded, unreachable),
		"violations":           types.ListValueMust(types.StringType, vs),
	})
}

// degradedValue is analysis.degraded: null when no cable failed.
func degradedValue(designed analysis.Result, d *analysis.Result, unreachable int) types.Object {
	if d == nil {
		return types.ObjectNull(degradedAttrTypes)
	}
	return types.ObjectValueMust(degradedAttrTypes, map[string]attr.Value{
		"failed_links":          types.Int64Value(int64(designed.Links - d.Links)),
		"unreachable_endpoints": types.Int64Value(int64(unreachable)),
		"bisection_lower_gbps":  types.Float64Value(d.BisectionLowerGbps),
		"bisection_upper_gbps":  types.Float64Value(d.BisectionUpperGbps),
		"bisection_ratio":       finite(policy.DegradedRatio(designed, *d)),
		"max_oversubscription":  maxOversubscription(*d),
		"effective_bisection":   effectiveValue(*d),
	})
}

// finite maps the infinities and NaNs of a fabric that proves no bandwidth to null: the plan's
// JSON and the state cannot hold them, and null reads as "no finite answer".
func finite(v float64) types.Float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return types.Float64Null()
	}
	return types.Float64Value(v)
}

// maxOversubscription is null where no tier has uplinks (analysis.Result.WorstOversubscription).
func maxOversubscription(r analysis.Result) types.Float64 {
	if v, ok := r.WorstOversubscription(); ok {
		return types.Float64Value(v)
	}
	return types.Float64Null()
}
