package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
)

// analysis.effective_bisection: the bandwidth random bisection patterns get under the routes the
// subnet manager will install (internal/analysis/effective.go has the model and its sources; internal/plan computes it).

var effectiveAttrTypes = map[string]attr.Type{
	"routing_engine": types.StringType,
	"ratio_mean":     types.Float64Type,
	"ratio_p05":      types.Float64Type,
	"samples":        types.Int64Type,
}

func effectiveSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "Effective bisection under the static routes OpenSM 3.3 will install with the fabric's routing engine " +
			"(`subnet_manager.routing_engine`, or the one the provider picks: ftree for fat trees and rail-optimized fabrics, updn for " +
			"dragonfly+): every flow of a random bisection pattern follows its one LFT path and a link shared by k flows gives each 1/k " +
			"(Hoefler, Schneider, Lumsdaine, IEEE Cluster 2008). `null` where the routes are not modelled (torus-2QoS, dfsssp, lash, " +
			"`lmc` > 0, options that change the routes). Switch GUIDs order the routes; undeclared ones are modelled with stand-ins.",
		Attributes: map[string]schema.Attribute{
			"routing_engine": schema.StringAttribute{Computed: true, MarkdownDescription: "The engine modelled: the first of the list that routes this fabric, else minhop (OpenSM's fallback)."},
			"ratio_mean":     schema.Float64Attribute{Computed: true, MarkdownDescription: "Mean over the sampled patterns of delivered / offered bandwidth, to 4 decimals."},
			"ratio_p05":      schema.Float64Attribute{Computed: true, MarkdownDescription: "5th percentile of the same, to 4 decimals."},
			"samples":        schema.Int64Attribute{Computed: true, MarkdownDescription: "Patterns sampled (fixed seed: the same fabric gives the same numbers)."},
		},
	}
}

// effectiveValue is the output: unknown while the routing settings are (checked again at
// apply), null where the routes are not modelled.
func effectiveValue(r analysis.Result) types.Object {
	e := r.Effective
	if r.EffectivePending {
		return types.ObjectUnknown(effectiveAttrTypes)
	}
	if e == nil {
		return types.ObjectNull(effectiveAttrTypes)
	}
	return types.ObjectValueMust(effectiveAttrTypes, map[string]attr.Value{
		"routing_engine": types.StringValue(e.RoutingEngine),
		"ratio_mean":     types.Float64Value(e.RatioMean),
		"ratio_p05":      types.Float64Value(e.RatioP05),
		"samples":        types.Int64Value(int64(e.Samples)),
	})
}
