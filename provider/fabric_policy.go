package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/ufm"
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
	Degraded              types.Object  `tfsdk:"degraded"`
	Partitions            types.Object  `tfsdk:"partitions"`
}

// partitionPolicyModel is `policy.partitions` (partition.Tenants).
type partitionPolicyModel struct {
	SharedFullMembers types.Bool `tfsdk:"shared_full_members"`
	StorageHCAs       types.List `tfsdk:"storage_hcas"`
}

type degradedPolicyModel struct {
	MinBisectionRatio   types.Float64 `tfsdk:"min_bisection_ratio"`
	MaxOversubscription types.Float64 `tfsdk:"max_oversubscription"`
	MaxUnreachable      types.Int64   `tfsdk:"max_unreachable_endpoints"`
}

type failedCableModel struct {
	Cable  types.String `tfsdk:"cable"`
	Reason types.String `tfsdk:"reason"`
	Since  types.String `tfsdk:"since"`
}

// failedCables reads `failed_cables`; known is false while an entry is unknown.
func failedCables(ctx context.Context, l types.List) ([]plan.Failed, bool, diag.Diagnostics) {
	if l.IsNull() || l.IsUnknown() {
		return nil, !l.IsUnknown(), nil
	}
	var ms []failedCableModel
	diags := l.ElementsAs(ctx, &ms, true)
	out := make([]plan.Failed, 0, len(ms))
	for _, m := range ms {
		if m.Cable.IsUnknown() || m.Reason.IsUnknown() || m.Since.IsUnknown() {
			return nil, false, diags
		}
		out = append(out, plan.Failed{Cable: m.Cable.ValueString(), Reason: m.Reason.ValueString(), Since: m.Since.ValueString()})
	}
	return out, true, diags
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

// fabricRequest decodes how the fabric is judged and rendered: the policy with the transport,
// the custom rule files, the workload and the subnet manager's render settings (nil while they
// are not known). With subnet_manager, the hosts must be reachable as configured.
func fabricRequest(ctx context.Context, data *Data, m *fabricModel) (plan.Request, diag.Diagnostics) {
	var diags diag.Diagnostics
	req := plan.Request{Policy: policy.Policy{Transport: m.Transport.ValueString(), PFC: m.PFC.ValueBool()}}
	if !m.Workload.IsNull() && !m.Workload.IsUnknown() {
		var wm workloadModel
		diags.Append(m.Workload.As(ctx, &wm, objectAsOptions)...)
		req.Workload = &analysis.Workload{Parameters: wm.Parameters.ValueFloat64(), GradientBytesPerParam: 2, GPUs: int(wm.GPUs.ValueInt64())}
		if b := floatPtr(wm.GradientBytesPerParam); b != nil {
			req.Workload.GradientBytesPerParam = *b
		}
	}
	if !m.Policy.IsNull() && !m.Policy.IsUnknown() {
		var pm policyModel
		diags.Append(m.Policy.As(ctx, &pm, objectAsOptions)...)
		p := &req.Policy
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
		if !pm.Partitions.IsNull() && !pm.Partitions.IsUnknown() {
			var tm partitionPolicyModel
			diags.Append(pm.Partitions.As(ctx, &tm, objectAsOptions)...)
			req.Tenants.SharedFullMembers = tm.SharedFullMembers.ValueBool()
			// A list not known at plan leaves the storage rule unchecked then.
			if hcas, ok := listStrings(tm.StorageHCAs); ok {
				req.Tenants.StorageHCAs = hcas
			}
		}
		if !pm.Degraded.IsNull() && !pm.Degraded.IsUnknown() {
			var dm degradedPolicyModel
			diags.Append(pm.Degraded.As(ctx, &dm, objectAsOptions)...)
			p.Degraded = policy.Degraded{MinBisectionRatio: floatPtr(dm.MinBisectionRatio), MaxOversubscription: floatPtr(dm.MaxOversubscription)}
			if !dm.MaxUnreachable.IsNull() && !dm.MaxUnreachable.IsUnknown() {
				n := int(dm.MaxUnreachable.ValueInt64())
				p.Degraded.MaxUnreachableEndpoints = &n
			}
		}
	}
	if !m.PolicyFiles.IsNull() {
		diags.Append(m.PolicyFiles.ElementsAs(ctx, &req.RuleFiles, false)...)
	}
	if m.SubnetManager.IsUnknown() {
		return req, diags
	}
	req.Managed = !m.SubnetManager.IsNull()
	if !req.Managed {
		req.OpenSM = &plan.OpenSMSettings{}
		return req, diags
	}
	sm, known := readSubnetManager(ctx, m.SubnetManager, &diags)
	if !known {
		return req, diags
	}
	if checkSubnetManagerKind(data, m.SubnetManager, sm, &diags) == ufm.Kind {
		// UFM owns the partitions: the files are rendered for reference, never pushed.
		req.Managed = false
		req.OpenSM = &sm.render
		return req, diags
	}
	checkSSH(data, &sm, &diags)
	req.OpenSM = &sm.render
	return req, diags
}
