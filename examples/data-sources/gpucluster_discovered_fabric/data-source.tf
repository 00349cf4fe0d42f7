# The fabric as it is, compared with the declaration, in a check block: a plan or apply warns
# when a cable is missing, miswired or running degraded, or an unknown GUID appears.
check "fabric_as_declared" {
  data "gpucluster_discovered_fabric" "live" {
    host             = "sm01.example.net"
    ssh_user         = "opensm-admin"
    known_hosts_file = "${path.module}/known_hosts"
    # ibnetdiscover_command = "sudo ibnetdiscover -C mlx5_0 -P 1"

    # The declaration: maps keyed by name (or `design = data.gpucluster_topology.x.design`).
    switches = gpucluster_switch.all
    nodes    = gpucluster_node.all
    hcas     = gpucluster_hca.all
    cables   = gpucluster_cable.all
  }

  assert {
    condition     = data.gpucluster_discovered_fabric.live.clean
    error_message = join("\n", data.gpucluster_discovered_fabric.live.report)
  }
}

# Or from a saved ibnetdiscover output, without SSH.
data "gpucluster_discovered_fabric" "saved" {
  topology_file = "${path.module}/ibnetdiscover.out"
  cables        = gpucluster_cable.all
  switches      = gpucluster_switch.all
  nodes         = gpucluster_node.all
  hcas          = gpucluster_hca.all
}

output "fabric_counts" {
  value = data.gpucluster_discovered_fabric.saved.counts # { switches, cas, links, missing, ... }
}
