# adopt.tfquery.hcl: every switch of the floor, named as gpucluster_discovered_fabric's as_built
# names them. `terraform query -generate-config-out=adopted.tf` writes a resource block and an
# import block with its identity for each; with the provider's floor set to the same record, the
# plan of adopted.tf imports them and changes nothing.
list "gpucluster_switch" "floor" {
  provider         = gpucluster
  include_resource = true
  limit            = 1000
}
