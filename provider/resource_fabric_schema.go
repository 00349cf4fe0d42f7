package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// The fabric's inputs (design, absent_cables and the inventory maps) are in fabric_inputs.go,
// their shapes in fabric_inventory.go and fabric_design.go.

func policySchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The fabric policy. A preset gives the field's rules of thumb; every number set here overrides it. " +
			"Presets: `training-large` (1:1 at every tier, full bisection), `training-small` (leaf 2:1, above 1:1), " +
			"`inference` (10:1), `dragonfly-plus` (2:1 at the group level, at most 3 switch-to-switch hops). " +
			"Without a policy only the always-on rules apply.",
		Attributes: map[string]schema.Attribute{
			"preset": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "`training-large`, `training-small`, `inference` or `dragonfly-plus`.",
				Validators:          []validator.String{stringvalidator.OneOf(policy.PresetTrainingLarge, policy.PresetTrainingSmall, policy.PresetInference, policy.PresetDragonflyPlus)},
			},
			"max_oversubscription": schema.Float64Attribute{
				Optional: true, MarkdownDescription: "Largest down:up ratio allowed at any tier, as a number (`2` means 2:1).",
				Validators: []validator.Float64{float64validator.AtLeast(1)},
			},
			"tier_limits": schema.MapAttribute{
				Optional: true, ElementType: types.Float64Type,
				MarkdownDescription: "Per-tier limits, keyed `leaf`, `spine`, `core` or `group`; override `max_oversubscription` for that tier.",
			},
			"min_bisection_ratio": schema.Float64Attribute{
				Optional: true, MarkdownDescription: "Proved bisection bandwidth as a fraction of full bisection (endpoints/2 x port rate).",
				Validators: []validator.Float64{float64validator.Between(0, 1)},
			},
			"min_effective_bisection_ratio": schema.Float64Attribute{
				Optional: true,
				MarkdownDescription: "Least `analysis.effective_bisection.ratio_mean`: the mean share of full bisection that random bisection " +
					"patterns get under the subnet manager's static routes (a non-blocking fat tree gets well below 1: about 0.68 under ftree " +
					"and 0.31 under minhop for 512 GPUs). A fabric whose routes are not modelled fails the rule.",
				Validators: []validator.Float64{float64validator.Between(0, 1)},
			},
			"max_switch_hops": schema.Int64Attribute{
				Optional: true, MarkdownDescription: "Most switch-to-switch links on a shortest endpoint-to-endpoint path.",
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"spine_headroom": schema.Float64Attribute{
				Optional: true, MarkdownDescription: "Share of free ports each top-tier switch keeps for growth (default 0.3).",
				Validators: []validator.Float64{float64validator.Between(0, 1)},
			},
			"spine_headroom_is_error": schema.BoolAttribute{
				Optional: true, MarkdownDescription: "Fail the plan on missing headroom instead of warning.",
			},
			"max_allreduce_seconds": schema.Float64Attribute{
				Optional: true, MarkdownDescription: "Cap on the estimated ring all-reduce time of `workload`.",
				Validators: []validator.Float64{float64validator.AtLeast(0)},
			},
		},
	}
}

func workloadSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional:            true,
		MarkdownDescription: "A data-parallel training job; gives `analysis.allreduce_seconds`.",
		Attributes: map[string]schema.Attribute{
			"parameters": schema.Float64Attribute{
				Optional: true, MarkdownDescription: "Model parameters, e.g. `70e9`.",
				Validators: []validator.Float64{float64validator.AtLeast(1)},
			},
			"gradient_bytes_per_param": schema.Float64Attribute{
				Optional: true, MarkdownDescription: "Bytes per gradient value: 2 for BF16 (default), 1 for FP8, 4 for FP32.",
				Validators: []validator.Float64{float64validator.Between(0.125, 8)},
			},
			"gpus": schema.Int64Attribute{
				Optional: true, MarkdownDescription: "GPUs in the job (default: every endpoint).",
				Validators: []validator.Int64{int64validator.AtLeast(2)},
			},
		},
	}
}

func transportSchema() schema.StringAttribute {
	return schema.StringAttribute{
		Optional: true, Computed: true, Default: stringdefault.StaticString(policy.TransportInfiniBand),
		MarkdownDescription: "`infiniband` (default) or `roce`. RoCEv2 is accepted only up to 64 GPUs and only with `pfc = true`.",
		Validators:          []validator.String{stringvalidator.OneOf(policy.Transports()...)},
	}
}
