# The scale path: a three-tier non-blocking fat tree of 2,048 DGX H100, 16,384 HCA ports (the
# endpoints), 2,560 QM9700 switches (1,024 leaves, 1,024 spines in 32 pods, 512 cores) and
# 49,152 cables, generated and handed to gpucluster_fabric as its design, with no per-item
# resources.
#
# Terraform's own cost grows faster than linearly with the size of one for_each map (the
# provider's design guide, "Scale"), and a plan that prints every cable is not read. So the fabric takes the generator's
# normalized design (`design`, about 30 lines in the plan) and builds the same graph itself: it
# proves the bisection bandwidth and prints the bill of materials at plan time. The data source
# is told to fill none of its item maps (`items = []`), which nothing here iterates over. Keep
# per-item resources for what has an apply-side life (nodes with a BMC, HCAs with firmware
# settings): `items = ["nodes", "hcas"]` fills only those two maps, and with
# `items_by_group = true` they come per pod in data.gpucluster_topology.x.groups, for one module
# instance per pod.
#
# Plan it with the provider built from this repository (dev_overrides): see README.md.

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
