# Adopting a fabric cabled by hand years ago, and growing it with the fewest moves.
#
# floor/ibnetdiscover.out is the as-built record: what `ibnetdiscover` printed on the SM host,
# committed like any other source file (here taken from ibsim running the hand-built floor, so
# `simulated = true` reads its 4xHDR stand-in as NDR). It has its own names (ib-leaf-07,
# hgx-a001), GUIDs and port conventions: a leaf's uplinks blocked by spine, nodes on ports 33-64,
# one rail swapped, one uplink dead. floor/node-name-map names the spines, whose switch OS host
# names were never set.
#
# The design is a rail-optimized SuperPOD of `scalable_units` (2 on the floor; 4 to grow) fitted
# to the floor: the floor's names, GUIDs and ports wherever the design has that link, the
# generator's own only for what is new. See README.md for the plan, and the adoption guide
# (docs/guides/adoption.md) for the workflow.
#
# Plan it with the provider built from this repository: `make plan EXAMPLE=examples/clusters/brownfield`.

terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

provider "gpucluster" {}

variable "scalable_units" {
  description = "Scalable units to build: 2 is the floor as it is; 4 grows it, re-planning the spines for 4."
  type        = number
  default     = 2
}

data "gpucluster_discovered_fabric" "floor" {
  topology_file = "${path.module}/floor/ibnetdiscover.out"
  node_name_map = "${path.module}/floor/node-name-map"
  simulated     = true
}

data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = var.scalable_units
  planned_scalable_units = var.scalable_units
  reserved_node_slots    = 0
  items                  = []
  as_built               = data.gpucluster_discovered_fabric.floor.floor
}

resource "gpucluster_fabric" "pod" {
  name   = "pod"
  design = data.gpucluster_topology.pod.design
  policy = { preset = "training-large" }
}

# The work order from the floor: every cable to unplug, to move from the ports it is really on,
# and to add.
data "gpucluster_bom" "work" {
  design   = data.gpucluster_topology.pod.design
  as_built = data.gpucluster_discovered_fabric.floor.floor
}

output "fit" {
  description = "How the design fits the floor: kept, moved, added, removed, and the most any fit could keep."
  value       = { for k, v in data.gpucluster_topology.pod.as_built_fit : k => v if k != "deviations" }
}

output "deviations" {
  description = "One line per cable to move, add or remove, by the floor's labels."
  value       = data.gpucluster_topology.pod.as_built_fit.deviations
}

output "work_order_csv" {
  description = "The technicians' work order, from what is on the floor."
  value       = data.gpucluster_bom.work.cabling_changes_csv
}
