# A floor read by gpucluster_discovered_fabric and recorded (floor.record), nothing else: the
# provider's peak memory for the read is what floormem.sh measures. See ../README.md.
terraform {
  required_providers {
    gpucluster = { source = "gpucluster/gpucluster" }
  }
}
variable "topology_file" { type = string }
variable "simulated" { type = bool }
provider "gpucluster" {}
data "gpucluster_discovered_fabric" "floor" {
  topology_file = var.topology_file
  simulated     = var.simulated
}
output "summary" { value = data.gpucluster_discovered_fabric.floor.floor.summary }
