package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

type policyModel struct {
	Preset                types.String  `tfsdk:"preset"`
	MaxOversubscription   types.Float64 `tfsdk:"max_oversubscription"`
	TierLimits            types.Map     `tfsdk:"tier_limits"`
	MinBisectionRatio     types.Float64 `tfsdk:"min_bisection_ratio"`
	MinEffectiveBisection types.Float64 `tfsdk:"min_effective_bisection_ratio"`
	MaxSwitchHops         types.Int64   `tfsdk:"max_switch_hops"`
	SpineHeadroom         types.Float64 `tfsdk:"spine_headroom"`
	SpineHeadroomIsError  types.Bool    `tfsdk:"spine_headroom_is_error"`
	MaxAllReduceSeconds   types.Float64 `tfsdk:"max_allreduce_seconds"`
}

type workloadModel struct {
	Parameters            types.Float64 `tfsdk:"parameters"`
	GradientBytesPerParam types.Float64 `tfsdk:"gradient_bytes_per_param"`
	GPUs                  types.Int64   `tfsdk:"gpus"`
}

func floatPtr(v types.Float64) *float64 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	f := v.ValueFloat64()
	return &f
}

// judgeFabric analyses the graph and holds it against the policy and the custom rules. Errors
// fail the plan on the `policy` attribute; warnings are shown; every line also goes into
// analysis.violations so a pipeline can read them from the plan JSON.
func judgeFabric(ctx context.Context, g *fabric.Graph, m *fabricModel, cat *catalog.Catalog) (analysis.Result, []string, diag.Diagnostics) {
	var diags diag.Diagnostics
	var w *analysis.Workload
	if !m.Workload.IsNull() && !m.Workload.IsUnknown() {
		var wm workloadModel
		diags.Append(m.Workload.As(ctx, &wm, objectAsOptions)...)
		w = &analysis.Workload{Parameters: wm.Parameters.ValueFloat64(), GradientBytesPerParam: 2, GPUs: int(wm.GPUs.ValueInt64())}
		if b := floatPtr(wm.GradientBytesPerParam); b != nil {
			w.GradientBytesPerParam = *b
		}
		if w.Parameters == 0 {
			diags.AddAttributeError(path.Root("workload").AtName("parameters"), "Missing workload parameters",
				"workload.parameters is required to estimate the all-reduce time, e.g. parameters = 70e9.")
			return analysis.Result{}, nil, diags
		}
		w.NodeGPUs = analysis.NodeGPUs(g.Spec, cat)
		var we *analysis.WorkloadError
		if err := analysis.CheckWorkload(g, w); errors.As(err, &we) {
			diags.AddAttributeError(path.Root("workload").AtName(we.Attribute), "Workload larger than the fabric", we.Reason)
			return analysis.Result{}, nil, diags
		}
	}
	result := analysis.Analyze(g, w)
	effectiveBisection(g, m.SubnetManager, &result)

	// GPUs from the node models, not one per endpoint: nodes that share an HCA between GPUs
	// would otherwise pass RoCEv2's GPU limit with twice the GPUs.
	p := policy.Policy{Transport: m.Transport.ValueString(), PFC: m.PFC.ValueBool(),
		GPUs: analysis.FabricGPUs(g, analysis.NodeGPUs(g.Spec, cat))}
	if !m.Policy.IsNull() && !m.Policy.IsUnknown() {
		var pm policyModel
		diags.Append(m.Policy.As(ctx, &pm, objectAsOptions)...)
		p.Preset = pm.Preset.ValueString()
		p.MaxOversubscription = floatPtr(pm.MaxOversubscription)
		p.MinBisectionRatio = floatPtr(pm.MinBisectionRatio)
		p.MinEffectiveBisectionRatio = floatPtr(pm.MinEffectiveBisection)
		p.SpineHeadroom = floatPtr(pm.SpineHeadroom)
		p.SpineHeadroomIsError = pm.SpineHeadroomIsError.ValueBool()
		p.MaxAllReduceSeconds = floatPtr(pm.MaxAllReduceSeconds)
		if !pm.MaxSwitchHops.IsNull() {
			h := int(pm.MaxSwitchHops.ValueInt64())
			p.MaxSwitchHops = &h
		}
		if !pm.TierLimits.IsNull() {
			diags.Append(pm.TierLimits.ElementsAs(ctx, &p.TierLimits, false)...)
		}
	}

	var files []string
	if !m.PolicyFiles.IsNull() {
		diags.Append(m.PolicyFiles.ElementsAs(ctx, &files, false)...)
	}
	rules, ferrs := policy.LoadRules(files)
	for _, fe := range ferrs {
		diags.AddAttributeError(path.Root("policy_files").AtListIndex(fe.Index), "Invalid policy file", fe.Err.Error())
	}
	if diags.HasError() {
		return result, nil, diags
	}

	var lines []string
	for _, v := range policy.Evaluate(g, result, p, rules) {
		switch v.Severity {
		case policy.Error:
			if v.Rule == policy.RuleEmptyFabric { // the whole fabric is missing, not a policy value
				diags.AddError("Empty fabric", v.Message)
				break
			}
			diags.AddAttributeError(path.Root("policy"), "Policy violation: "+v.Rule, v.Message)
		case policy.Warning:
			diags.AddAttributeWarning(path.Root("policy"), "Policy advice: "+v.Rule, v.Message)
		default:
			diags.AddAttributeWarning(path.Root("policy_files"), "Policy rule deferred to apply: "+v.Rule, v.Message)
		}
		lines = append(lines, string(v.Severity)+": "+v.Message)
	}
	return result, lines, diags
}
