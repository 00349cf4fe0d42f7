# Every PKey of the provider's UFM but the management 0x7fff, as gpucluster_partition: with
# `terraform query -generate-config-out=partitions.tf`, a resource block and an import block by
# identity for each, which plan with no change.
list "gpucluster_partition" "ufm" {
  provider         = gpucluster
  include_resource = true
}
