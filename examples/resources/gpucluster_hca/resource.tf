# One compute HCA; its name defaults to "gpu001/mlx5_0", which cables and partitions use.
resource "gpucluster_hca" "gpu001_mlx5_0" {
  node       = "gpu001"
  device     = "mlx5_0"
  port_guid  = "0x0002c90300010000"
  rail       = 0
  mst_device = "/dev/mst/mt4129_pciconf0"
}

# All compute HCAs of a node, one per rail, from the node's device list.
resource "gpucluster_hca" "gpu002" {
  for_each  = { for rail, device in gpucluster_node.gpu002.hca_devices : device => rail }
  node      = gpucluster_node.gpu002.name
  device    = each.key
  rail      = each.value
  port_guid = format("0x0002c90300020%03x", each.value)
}

resource "gpucluster_node" "gpu002" {
  name       = "gpu002"
  rack       = "r01"
  position_u = 10
}
