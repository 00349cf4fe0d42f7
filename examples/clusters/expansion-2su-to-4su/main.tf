# A SuperPOD built in two stages: 2 scalable units now, 4 at the end. The generator builds the
# spine layer for planned_scalable_units from the start (RA-11333-001: the spines and leaf-spine
# cables of the final size), so raising scalable_units from 2 to 4 only adds leaves, nodes, HCAs
# and cables; no existing name, GUID, rack position, port or cable moves. See README.md.
#
# Plan it with the provider built from this repository: `make plan EXAMPLE=examples/clusters/expansion-2su-to-4su`.

terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

provider "gpucluster" {}

variable "scalable_units" {
  description = "Scalable units built now: 2 at first, then 3 or 4. The spine layer is built for 4; more is refused at plan time."
  type        = number
  default     = 2
}

data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = var.scalable_units
  planned_scalable_units = 4
  reserved_node_slots    = 1                 # UFM in SU 1's last slot
  items                  = ["nodes", "hcas"] # the maps the resources below iterate over
}

locals {
  t = data.gpucluster_topology.pod
}

# What has an apply-side life (a BMC, firmware settings) is a resource, keyed by the generator's
# names: a plan for more SUs adds instances and changes none. The fabric does not need them: it
# builds the same graph from the design.
resource "gpucluster_node" "all" {
  for_each   = local.t.nodes
  name       = each.value.name
  model      = each.value.model
  rack       = each.value.rack
  position_u = each.value.position_u
}

resource "gpucluster_hca" "all" {
  for_each  = local.t.hcas
  node      = gpucluster_node.all[each.value.node].name
  device    = each.value.device
  port_guid = each.value.port_guid
  rail      = each.value.rail
}

# The fabric takes the design: growing scalable_units shows in its diff as that one argument of
# `design`, and the diff of its `bom` (items keyed by SKU) is the purchase order of the expansion.
resource "gpucluster_fabric" "superpod" {
  name   = "superpod"
  design = local.t.design

  policy = {
    preset = "training-large"
    # At 2 SU the spines built for 4 are half used: the headroom rule is met. At 4 SU they are
    # full, by design (RA-11333-001); growing past 4 SU is a new, 3-tier design.
    spine_headroom = 0
  }
}

# The technicians' work order: from the scalable units cabled on the floor today to
# scalable_units, one CSV row per cable to add (an expansion within the planned size only adds),
# each end named by cage, split and part. `terraform output -raw cabling_work_order_csv > order.csv`
variable "cabled_scalable_units" {
  description = "Scalable units cabled on the floor today."
  type        = number
  default     = 2
}

data "gpucluster_topology" "cabled" {
  kind                   = "rail-optimized"
  scalable_units         = var.cabled_scalable_units
  planned_scalable_units = 4
  reserved_node_slots    = 1
  items                  = []
}

data "gpucluster_bom" "work_order" {
  design       = local.t.design
  prior_design = data.gpucluster_topology.cabled.design
}

output "cabling_work_order_csv" {
  description = "Cables to add, remove or move to go from cabled_scalable_units to scalable_units."
  value       = data.gpucluster_bom.work_order.cabling_changes_csv
}

output "summary" {
  description = "Counts by role and by link tier, and the planned size."
  value       = local.t.summary
}

output "bom" {
  description = "The whole fabric's bill of materials."
  value       = gpucluster_fabric.superpod.bom
}
