# Every node of the floor: one per host that the HCAs' node descriptions name, with the devices
# of its HCAs. The floor is the provider's `floor` unless the config names one.
list "gpucluster_node" "floor" {
  provider         = gpucluster
  include_resource = true
  limit            = 10000

  config {
    topology_file = "floor/ibnetdiscover.out"
    node_name_map = "floor/node-name-map"
  }
}
