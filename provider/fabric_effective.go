package provider

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// analysis.effective_bisection: the bandwidth random bisection patterns get under the routes the
// subnet manager will install (internal/analysis/effective.go has the model and its sources).

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

// effectiveBisection fills r.Effective from the fabric's subnet_manager settings, the way the
// OpenSM files are rendered from them. A subnet_manager with unknown values leaves it pending
// for apply; an engine the model does not reproduce leaves it nil with the reason.
func effectiveBisection(g *fabric.Graph, sm types.Object, r *analysis.Result) {
	if sm.IsUnknown() {
		r.EffectivePending, r.EffectiveWhyNot = true, "subnet_manager is not known until apply"
		return
	}
	var attrs map[string]attr.Value
	if !sm.IsNull() {
		attrs = sm.Attributes()
	}
	rs, known := readRenderSettings(attrs)
	if !known {
		r.EffectivePending, r.EffectiveWhyNot = true, "the subnet_manager's routing settings are not known until apply"
		return
	}
	// Problems of the configuration (missing GUIDs, bad roots) are reported by the OpenSM
	// rendering; FromGraph still returns what it could derive.
	cfg, _ := opensm.FromGraph(g, rs.graph)
	routing, err := opensm.ModelRouting(g, cfg, len(rs.graph.Roots) == 0)
	if err != nil {
		r.EffectiveWhyNot = err.Error()
		return
	}
	e, err := analysis.EffectiveBisection(g, routing)
	switch {
	case err != nil:
		r.EffectiveWhyNot = err.Error()
	case e == nil && r.Endpoints < 2:
		r.EffectiveWhyNot = "the fabric has fewer than two endpoints"
	case e == nil:
		r.EffectiveWhyNot = fmt.Sprintf("the routes of routing_engine %q are not modelled (ftree, updn and minhop are)", cfg.RoutingEngine)
	}
	r.Effective = e
}
