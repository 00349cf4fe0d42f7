# The scale path: a three-tier non-blocking fat tree of 2,048 DGX H100, 16,384 HCA ports (the
# endpoints), 2,560 QM9700 switches (1,024 leaves, 1,024 spines in 32 pods, 512 cores) and
# 49,152 cables, generated and fed straight into gpucluster_fabric with no per-item resources.
#
# Terraform's own cost grows faster than linearly with the size of one for_each map (DESIGN.md,
# "Scale"), so at this size the generator's maps go into the fabric's lists as plain objects:
# the fabric proves the bisection bandwidth and prints the bill of materials at plan time. Keep
# per-item resources for what has an apply-side life (nodes with a BMC, HCAs with firmware
# settings), best one module instance per pod over data.gpucluster_topology.x.groups.
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

  # The groups would repeat every object once more; nothing here iterates over them.
  with_groups = false
}

locals {
  t = data.gpucluster_topology.compute
}

resource "gpucluster_fabric" "compute" {
  name     = "compute"
  racks    = values(local.t.racks)
  switches = values(local.t.switches)
  nodes    = values(local.t.nodes)
  hcas     = values(local.t.hcas)
  cables   = values(local.t.cables)

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
