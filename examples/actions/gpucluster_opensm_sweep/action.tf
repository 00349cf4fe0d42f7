locals {
  sm = {
    hosts      = ["sm01.mgmt.example", "sm02.mgmt.example"]
    config_dir = "/etc/opensm"
  }
}

# A partition change reaches OpenSM through the fabric's push; the sweep after it makes every SM
# host sweep again and checks each one, primary first. On demand too, after a cable or switch
# was replaced:
#   terraform apply -invoke=action.gpucluster_opensm_sweep.pod
resource "gpucluster_fabric" "pod" {
  name           = "pod"
  design         = data.gpucluster_topology.pod.design
  partitions     = gpucluster_partition.all
  subnet_manager = local.sm

  lifecycle {
    action_trigger {
      events  = [after_update]
      actions = [action.gpucluster_opensm_sweep.pod]
    }
  }
}

action "gpucluster_opensm_sweep" "pod" {
  config {
    subnet_manager = local.sm # the SSH user and key come from the provider's ssh block
  }
}
