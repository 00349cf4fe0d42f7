# Every HCA of the floor, identified by node and device, with its port GUID as discovered.
list "gpucluster_hca" "floor" {
  provider         = gpucluster
  include_resource = true
  limit            = 100000
}
