# Load new firmware settings as soon as the HCA's apply has set them: mlxfwreset at the level
# the card allows, or a warning to reboot the node when only a reboot would do.
resource "gpucluster_hca" "gpu001_mlx5_0" {
  node              = "gpu001"
  device            = "mlx5_0"
  port_guid         = "0x0002c90300010000"
  ssh_host          = gpucluster_node.gpu001.ssh_host
  firmware_settings = { LINK_TYPE_P1 = "IB", SRIOV_EN = "True", NUM_OF_VFS = "16" }

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.gpucluster_hca_reset.gpu001_mlx5_0]
    }
  }
}

action "gpucluster_hca_reset" "gpu001_mlx5_0" {
  config {
    node     = "gpu001"
    device   = "mlx5_0"
    ssh_host = gpucluster_node.gpu001.ssh_host
  }
}
