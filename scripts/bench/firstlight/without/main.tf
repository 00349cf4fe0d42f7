# The same 2,048-node design as ../with-validation, planned without the floor: see ../../README.md.
terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

provider "gpucluster" {}

data "gpucluster_topology" "compute" {
  kind       = "fat-tree"
  node_count = 2048
  tiers      = 3

  # Only the design is wanted: no item map.
  items = []
}

locals {
  t = data.gpucluster_topology.compute
}

resource "gpucluster_fabric" "compute" {
  name   = "compute"
  design = local.t.design

  policy = {
    preset = "training-large" # 1:1 at every tier, full bisection
  }
}

output "summary" {
  description = "Counts of the generated design: switches by role, links by tier."
  value       = local.t.summary
}

output "analysis" {
  description = "What the plan proves: bisection bounds, oversubscription per tier, hops."
  value       = gpucluster_fabric.compute.analysis
}

output "bom_total_cost" {
  description = "Sum of the priced items in USD (unpriced items are listed in the bill of materials)."
  value       = gpucluster_fabric.compute.bom.total_cost
}
