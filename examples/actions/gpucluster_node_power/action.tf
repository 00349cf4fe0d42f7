# Power-cycle one node, on demand:
#   terraform apply -invoke=action.gpucluster_node_power.gpu001_cycle
# The BMC is the node's own (`bmc = gpucluster_node.gpu001.bmc`); its credentials come from the
# provider's bmc block.
action "gpucluster_node_power" "gpu001_cycle" {
  config {
    node  = gpucluster_node.gpu001.name
    bmc   = gpucluster_node.gpu001.bmc
    power = "power_cycle"
  }
}

# A BMC that stopped answering its web interface: restart the BMC itself, not the host.
action "gpucluster_node_power" "gpu001_bmc" {
  config {
    node  = gpucluster_node.gpu001.name
    bmc   = gpucluster_node.gpu001.bmc
    power = "bmc_reset"
    timeouts {
      invoke = "15m"
    }
  }
}
