# Load new firmware settings as soon as the HCA's apply has set them: mlxfwreset at the level
# the card allows, or a warning to reboot the node when only a reboot would do.
# `hca` is the HCA itself: the action resets its card on the HCA's own ssh_host (with its
# mst_device, ssh and tool) and names it on every line
# (`hca gpu001/mlx5_0 (node gpu001, gpu001.mgmt.example:22): ...`).
resource "gpucluster_hca" "gpu001_mlx5_0" {
  node              = "gpu001"
  device            = "mlx5_0"
  port_guid         = "0x0002c90300010000"
  ssh_host          = "gpu001.mgmt.example"
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
    hca = gpucluster_hca.gpu001_mlx5_0
  }
}

# The HCAs of a for_each: one action per HCA, over the same keys (an action's for_each cannot be
# the resource that triggers it, whose instances are not known before its apply).
locals {
  rail_hcas = {
    "gpu002/mlx5_0" = { node = "gpu002", device = "mlx5_0", guid = "0x0002c90300020000" }
    "gpu002/mlx5_1" = { node = "gpu002", device = "mlx5_1", guid = "0x0002c90300020010" }
  }
}

resource "gpucluster_hca" "rail" {
  for_each          = local.rail_hcas
  node              = each.value.node
  device            = each.value.device
  port_guid         = each.value.guid
  ssh_host          = "${each.value.node}.mgmt.example"
  firmware_settings = { LINK_TYPE_P1 = "IB" }

  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.gpucluster_hca_reset.rail[each.key]]
    }
  }
}

action "gpucluster_hca_reset" "rail" {
  for_each = local.rail_hcas
  config {
    hca = gpucluster_hca.rail[each.key]
  }
}
