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

  # Firmware parameters set with mlxconfig over SSH on the node (user, key and known_hosts from
  # the provider's ssh block), checked at plan against the mlxconfig parameter database.
  ssh_host = gpucluster_node.gpu002.ssh_host
  firmware_settings = {
    LINK_TYPE_P1 = "IB"
    SRIOV_EN     = "True"
    NUM_OF_VFS   = "16"
  }
  # Load the new values with a firmware reset instead of waiting for a reboot.
  reset = 3
}

resource "gpucluster_node" "gpu002" {
  name       = "gpu002"
  rack       = "r01"
  position_u = 10
  ssh_host   = "gpu002.mgmt.example"
}

# mstflint's mstconfig instead of NVIDIA MFT, and a parameter of newer firmware than the
# provider's database knows, left to the card to judge.
resource "gpucluster_hca" "gpu003_mlx5_0" {
  node      = "gpu003"
  device    = "mlx5_0"
  port_guid = "0x0002c90300030000"
  ssh_host  = "gpu003.mgmt.example"
  tool      = "mstconfig"
  firmware_settings = {
    LINK_TYPE_P1        = "IB"
    NEW_FIRMWARE_OPTION = "1"
  }
  unchecked_parameters = ["NEW_FIRMWARE_OPTION"]
}

# The site's firmware baseline: every refresh reads the card's version and PSID with flint; the
# plan reads the image too, shows the version it brings and refuses an image built for another
# PSID; apply burns it and warns that it runs after a firmware reset (gpucluster_hca_reset).
resource "gpucluster_hca" "gpu004_mlx5_0" {
  node       = "gpu004"
  device     = "mlx5_0"
  port_guid  = "0x0002c90300040000"
  mst_device = "/dev/mst/mt4129_pciconf0"
  ssh_host   = "gpu004.mgmt.example"
  firmware = {
    version = "28.43.1014"
    image   = "/srv/fw/fw-ConnectX7-rel-28_43_1014-MCX75310AAS-NEA_Ax.bin"
  }
}
