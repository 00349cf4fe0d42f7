package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/float64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func optString(desc string) schema.StringAttribute {
	return schema.StringAttribute{Optional: true, MarkdownDescription: desc}
}

func optInt(desc string) schema.Int64Attribute {
	return schema.Int64Attribute{Optional: true, MarkdownDescription: desc}
}

func optFloat(desc string) schema.Float64Attribute {
	return schema.Float64Attribute{Optional: true, MarkdownDescription: desc}
}

func inventoryList(desc string, attrs map[string]schema.Attribute) schema.ListNestedAttribute {
	return schema.ListNestedAttribute{
		Optional:            true,
		MarkdownDescription: desc,
		NestedObject:        schema.NestedAttributeObject{Attributes: attrs},
	}
}

func cableEndSchema(desc string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Optional:            true,
		MarkdownDescription: desc,
		Attributes: map[string]schema.Attribute{
			"device": optString("Switch name or HCA name (`<node>/<device>`)."),
			"port":   optInt("1-based port number."),
		},
	}
}

// fabricInputAttributes are the lists the fabric is assembled from. They declare only what the
// fabric needs, so Terraform drops the other attributes of the resource objects on conversion.
func fabricInputAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"racks": inventoryList("Racks: `values(gpucluster_rack.all)` or objects of the same shape.", map[string]schema.Attribute{
			"name": optString("Rack name."), "row": optInt("Row."), "position": optInt("Slot in the row."),
			"units": optInt("Usable units (default 42)."), "power_kw": optFloat("Power budget in kW."),
		}),
		"switches": inventoryList("Switches: `values(gpucluster_switch.all)`, or the `switches` of `gpucluster_topology`.", map[string]schema.Attribute{
			"name": optString("Switch name."), "model": optString("Catalog model (default `QM9700`)."), "rack": optString("Rack name."),
			"position_u": optInt("Lowest rack unit."), "role": optString("`leaf`, `spine` or `core`; inferred when unset."),
			"guid": optString("Node GUID."), "group": optString("Dragonfly+ group."),
		}),
		"nodes": inventoryList("GPU nodes: `values(gpucluster_node.all)` or objects of the same shape.", map[string]schema.Attribute{
			"name": optString("Node name."), "model": optString("Catalog model (default `DGX-H100`)."), "rack": optString("Rack name."),
			"position_u": optInt("Lowest rack unit."), "compute_hcas": optInt("Compute HCAs (default from the catalog)."),
		}),
		"hcas": inventoryList("HCA ports: `values(gpucluster_hca.all)` or objects of the same shape.", map[string]schema.Attribute{
			"name": optString("HCA name (default `<node>/<device>`)."), "node": optString("Node name."), "device": optString("Device, e.g. `mlx5_0`."),
			"model": optString("Catalog HCA model (default: the node model's)."), "port_guid": optString("Port GUID."), "rail": optInt("Rail."),
		}),
		"cables": inventoryList("Cables: `values(gpucluster_cable.all)`, or the `cables` of `gpucluster_topology`.", map[string]schema.Attribute{
			"a": cableEndSchema("One end."), "b": cableEndSchema("The other end."),
			"kind": optString("Cable kind; chosen by the planner when unset."), "length_m": optFloat("Length; estimated from rack positions when unset."),
		}),
		"partitions": inventoryList("Partitions: `values(gpucluster_partition.all)`.", map[string]schema.Attribute{
			"name": optString("Partition name."), "pkey": optString("P_Key, `0x0001`-`0x7ffe`."),
			"members": schema.ListNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Members.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"hca": optString("HCA name."), "guid": optString("Port GUID or OpenSM keyword."), "membership": optString("`full` or `limited`."),
				}},
			},
			"ipoib": schema.BoolAttribute{Optional: true, MarkdownDescription: "IPoIB broadcast group."},
			"mtu":   optInt("MTU in bytes."), "rate": optInt("Rate in Gb/s."), "sl": optInt("Service level."),
		}),
	}
}

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
				Validators:          []validator.String{stringvalidator.OneOf("training-large", "training-small", "inference", "dragonfly-plus")},
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
		Optional: true, Computed: true, Default: stringdefault.StaticString("infiniband"),
		MarkdownDescription: "`infiniband` (default) or `roce`. RoCEv2 is accepted only up to 64 GPUs and only with `pfc = true`.",
		Validators:          []validator.String{stringvalidator.OneOf("infiniband", "roce")},
	}
}
