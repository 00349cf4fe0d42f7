# The site's BMC, BIOS and HCA baseline rolled out over a scalable unit's nodes, in waves that keep the
# fabric within policy while their nodes are down: at most 16 endpoints (two DGX of 8 HCAs)
# out of service at a time.
data "gpucluster_topology" "pod" {
  kind           = "rail-optimized"
  scalable_units = 1
}

# The nodes read their versions (firmware = {}); the rollout, not the nodes, installs images.
resource "gpucluster_node" "all" {
  for_each   = data.gpucluster_topology.pod.nodes
  name       = each.value.name
  rack       = each.value.rack
  position_u = each.value.position_u
  bmc        = { endpoint = "${each.key}-bmc.mgmt.example" }
  ssh_host   = "${each.key}.mgmt.example"
  firmware   = {}
}

# The cards: flint runs over SSH on their node (the provider's ssh block gives the login).
resource "gpucluster_hca" "all" {
  for_each  = data.gpucluster_topology.pod.hcas
  node      = gpucluster_node.all[each.value.node].name
  device    = each.value.device
  port_guid = each.value.port_guid
  rail      = each.value.rail
  ssh_host  = gpucluster_node.all[each.value.node].ssh_host
}

data "gpucluster_maintenance_waves" "nodes" {
  design   = data.gpucluster_topology.pod.design
  devices  = sort(keys(data.gpucluster_topology.pod.nodes))
  degraded = { max_unreachable_endpoints = 16 } # the fabric's policy.degraded
}

resource "gpucluster_firmware_rollout" "su1" {
  waves = data.gpucluster_maintenance_waves.nodes.waves
  nodes = gpucluster_node.all
  hcas  = gpucluster_hca.all
  firmware = {
    bmc  = "25.01.03"
    bios = "1.7.0"
    images = {
      bmc  = "https://images.mgmt.example/fw/bmc-25.01.03.bin"
      bios = "https://images.mgmt.example/fw/bios-1.7.0.bin"
    }
    # Each card's image on its node: the plan refuses a card whose PSID is not the image's.
    hca = {
      version = "28.43.1014"
      psid    = "MT_0000001244"
      image   = "/srv/fw/fw-ConnectX7-rel-28_43_1014-MCX75310AAS-NEA_Ax.bin"
    }
  }
}

# The plan's summary, one line per wave (the 32 nodes go two by two in 16 waves), e.g.:
# wave 1 of 16 (proved: bisection 48000 of 48000 Gb/s, ratio 1 >= 0.9 required, 16 endpoints out of service, worst oversubscription 0.9375; drain gpu001, gpu002): gpu001 BIOS 1.6.7 -> 1.7.0, gpu001 BMC 24.09.17 -> 25.01.03, gpu001 HCA mlx5_0 28.42.1000 -> 28.43.1014, ..., gpu002 HCA mlx5_7 28.42.1000 -> 28.43.1014
output "rollout" {
  value = gpucluster_firmware_rollout.su1.summary
}
