# Power-cycle one node, on demand:
#   terraform apply -invoke=action.gpucluster_node_power.gpu001_cycle
# `node` is the node itself: the action powers its own BMC (`gpucluster_node.gpu001.bmc`) and
# names it on every line (`node gpu001 (BMC 10.0.0.11:443): ...`); the BMC's credentials come from
# the provider's bmc block.
action "gpucluster_node_power" "gpu001_cycle" {
  config {
    node  = gpucluster_node.gpu001
    power = "power_cycle"
  }
}

# A BMC that stopped answering its web interface: restart the BMC itself, not the host. One node
# of a for_each is its instance: gpucluster_node.all["gpu001"].
action "gpucluster_node_power" "gpu001_bmc" {
  config {
    node  = gpucluster_node.gpu001
    power = "bmc_reset"
    timeouts {
      invoke = "15m"
    }
  }
}
