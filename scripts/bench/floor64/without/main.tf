# The same 96-SU design as ../with-floor, planned without the floor: see ../../README.md.
terraform {
  required_providers {
    gpucluster = { source = "gpucluster/gpucluster" }
  }
}
provider "gpucluster" {}
data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = 96
  planned_scalable_units = 96
  items                  = []
}
resource "gpucluster_fabric" "pod" {
  name   = "pod"
  design = data.gpucluster_topology.pod.design
  policy = { preset = "training-large" }
}
