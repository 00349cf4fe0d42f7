# A DGX SuperPOD of four scalable units as NVIDIA's reference architecture (RA-11333-001) builds
# it: 127 DGX H100 (SU 1 gives one node slot to the UFM fabric manager), 32 rail leaves (one per
# rail per SU) and 16 spines, all QM9700, every link 400G NDR on multimode fiber. Table 4 of the
# RA: 1,020 compute + UFM links to the leaves, 1,024 leaf-spine links.
#
# The generator lays the design out, and the fabric takes the design itself
# (`design = data.gpucluster_topology.pod.design`): it builds the same graph, and the plan shows
# the design's few lines rather than 2,000 cables. The nodes and HCAs, which have an apply-side
# life (BMC, firmware settings), are resources keyed by the generator's names; they need not be
# handed to the fabric.
#
# Plan it with the provider built from this repository: `make plan EXAMPLE=examples/clusters/superpod-4su`.

terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

provider "gpucluster" {}

data "gpucluster_topology" "pod" {
  kind                = "rail-optimized"
  scalable_units      = 4
  reserved_node_slots = 1                                    # SU 1's last slot holds the UFM appliances (4 links to rail leaves 0-3)
  cable_kind          = "fiber-mm"                           # RA-11333-001: "All networking components are multi-mode fiber"
  items               = ["nodes", "hcas", "appliance_links"] # the maps the resources and the BOM below read
}

locals {
  t = data.gpucluster_topology.pod
}

resource "gpucluster_node" "all" {
  for_each   = local.t.nodes
  name       = each.value.name
  model      = each.value.model
  rack       = each.value.rack
  position_u = each.value.position_u
  # bmc = { endpoint = "...", ... } and ssh_host go here for the apply-side bring-up.
}

resource "gpucluster_hca" "all" {
  for_each  = local.t.hcas
  node      = gpucluster_node.all[each.value.node].name
  device    = each.value.device
  port_guid = each.value.port_guid
  rail      = each.value.rail
  # firmware_settings = { ... } for mlxconfig at apply.
}

resource "gpucluster_fabric" "superpod" {
  name   = "superpod"
  design = local.t.design

  policy = {
    preset = "training-large" # 1:1 at every tier, full bisection
    # The RA fills every spine port at 4 SU; growing past it is a new (3-tier) design, not a
    # spine-port reserve, so the growth headroom rule is off here.
    spine_headroom = 0
  }
}

# The bill of materials and the cabling plan, UFM links included (they are not fabric devices,
# so only the BOM sees them: 4 single-port transceivers and 4 fibers, RA-11333-001 Table 8).
data "gpucluster_bom" "superpod" {
  design         = local.t.design
  external_links = values(local.t.appliance_links)
}

output "summary" {
  description = "Counts by role and by link tier (RA-11333-001 Table 4)."
  value       = local.t.summary
}

output "analysis" {
  description = "What the plan proves about the fabric."
  value       = gpucluster_fabric.superpod.analysis
}

output "bom_markdown" {
  description = "The bill of materials as a Markdown table."
  value       = data.gpucluster_bom.superpod.markdown
}

output "cabling_csv" {
  description = "One row per cable: label, both ends with rack, unit and port, kind, length and SKU."
  value       = data.gpucluster_bom.superpod.cabling_csv
}

output "fabric_bom_total_cost" {
  description = "The priced total of the fabric's own BOM of the graph (no UFM links); its items are keyed by SKU."
  value       = gpucluster_fabric.superpod.bom.total_cost
}
