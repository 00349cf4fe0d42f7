# A 64-SU floor (2,048 DGX H100, 16,384 GPUs) read, fitted and grown to 96 SU: see ../../README.md.
terraform {
  required_providers {
    gpucluster = { source = "gpucluster/gpucluster" }
  }
}
provider "gpucluster" {}
data "gpucluster_discovered_fabric" "floor" {
  topology_file = "${path.module}/../floor/ibnetdiscover.out"
  simulated     = true
}
data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = 96
  planned_scalable_units = 96
  items                  = []
  as_built               = data.gpucluster_discovered_fabric.floor.floor
}
resource "gpucluster_fabric" "pod" {
  name   = "pod"
  design = data.gpucluster_topology.pod.design
  policy = { preset = "training-large" }
}
