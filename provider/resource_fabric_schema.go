package provider

import (
	"regexp"

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
				Optional: true, MarkdownDescription: "Proved bisection bandwidth as a fraction of full bisection (⌊endpoints/2⌋ x port rate: an odd count is judged by its smaller half).",
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
			"partitions": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "How the fabric's partitions keep tenants apart, checked at plan for every `subnet_manager.kind` alike. " +
					"Always, whatever this says: a member given by `guid` must be the port GUID of an HCA of this fabric (or an OpenSM " +
					"keyword such as `ALL_CAS`), as a member given by `hca` must name one. Two ports talk when they share a P_Key " +
					"and one of them is a full member, so a port that is a full member of two partitions joins their tenants: " +
					"that is refused unless `shared_full_members = true`. Members are compared as HCAs (by name or by port GUID " +
					"alike); keyword members such as `ALL_CAS` (a fabric-wide partition) are not compared.",
				Attributes: map[string]schema.Attribute{
					"shared_full_members": schema.BoolAttribute{
						Optional: true,
						MarkdownDescription: "Allow an HCA to be a full member of more than one partition. Default `false`: the plan fails " +
							"once per pair of partitions that share full members, naming them.",
					},
					"storage_hcas": schema.ListAttribute{
						Optional: true, ElementType: types.StringType,
						MarkdownDescription: "HCAs that serve storage, by name (`\"nas01/mlx5_0\"`) or port GUID: each must be an HCA of " +
							"this fabric and a `limited` member of every partition it is in, so that tenants reach it but not each " +
							"other through it. Default: none.",
					},
				},
			},
			"degraded": schema.SingleNestedAttribute{
				Optional: true,
				MarkdownDescription: "Thresholds for the fabric as it runs with its `failed_cables` (`analysis.degraded`). The rules " +
					"above gate the fabric as designed, failed cables included; these judge the running fabric: within them each " +
					"failed cable is a warning and applies go on, beyond them the plan fails. Always, whatever they say: no switch " +
					"cut off from the fabric (nor the endpoints behind it). An endpoint cut off by its own cable warns with the node to " +
					"drain, within `max_unreachable_endpoints`.",
				Attributes: map[string]schema.Attribute{
					"min_bisection_ratio": schema.Float64Attribute{
						Optional: true,
						MarkdownDescription: "Least proved bisection of the running fabric, as a share of the full bisection of the endpoints it still reaches " +
							"(default: 0.9 x the designed `bisection_ratio`).",
						Validators: []validator.Float64{float64validator.Between(0, 1)},
					},
					"max_oversubscription": schema.Float64Attribute{
						Optional:            true,
						MarkdownDescription: "Largest down:up ratio allowed on any switch of the running fabric (default: no limit).",
						Validators:          []validator.Float64{float64validator.AtLeast(1)},
					},
					"max_unreachable_endpoints": schema.Int64Attribute{
						Optional: true,
						MarkdownDescription: "Most endpoints (HCAs) the running fabric may leave unreachable (`analysis.degraded.unreachable_endpoints`). " +
							"An endpoint cut off by its own failed cable is a warning that names its node to drain, and the rest of the fabric " +
							"runs on; beyond this many, the plan fails. Default: no limit; `0` fails on any. Endpoints behind a switch " +
							"that is cut off fail the plan whatever this says.",
						Validators: []validator.Int64{int64validator.AtLeast(0)},
					},
				},
			},
		},
	}
}

// failedCablesSchema is `failed_cables`: cables designed and cabled that are down.
func failedCablesSchema() schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional: true,
		MarkdownDescription: "Cables of the fabric that are cabled and down (a failed link, a cable out for replacement), by a " +
			"cable end label (`leaf01:40`) or a full label (`leaf01:40 <-> spine01:8`, either order). Unlike `absent_cables` " +
			"(not cabled yet: part of the design's state), a failed cable stays in the fabric as designed, which the policy " +
			"gates as before; the fabric as it runs without it is `analysis.degraded`, judged against `policy.degraded`. " +
			"Within those thresholds each failed cable is one warning that names it, its age and where to go (both ends' rack, " +
			"unit, cage and split, the part, and any link that shares its transceiver or twin-port cable), and applies go on; " +
			"beyond them, an error. A failed node cable that cuts an HCA off warns with the node to drain " +
			"(`analysis.degraded.unreachable_endpoints`, `policy.degraded.max_unreachable_endpoints`). " +
			"`gpucluster_port_counters.suspect_cables` lists labels ready to paste here (cabled links only).",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"cable": schema.StringAttribute{
				Required: true, MarkdownDescription: "The cable: an end label or a full label.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"reason": schema.StringAttribute{Optional: true, MarkdownDescription: "Why it is down, for the warning (`symbol errors`, `ticket 4711`)."},
			"since": schema.StringAttribute{
				Optional: true, MarkdownDescription: "Since when, `YYYY-MM-DD`: the warning gives the cable's age.",
				Validators: []validator.String{stringvalidator.RegexMatches(sinceRe, "must be a date YYYY-MM-DD, e.g. \"2026-11-30\"")},
			},
		}},
	}
}

// sinceRe is the form of a failed cable's date; plan.Build also parses it as a date.
var sinceRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

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
