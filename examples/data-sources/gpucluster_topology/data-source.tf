# One DGX SuperPOD scalable unit (RA-11333-001): 31 DGX H100, the UFM fabric manager in the last
# slot, 8 rail leaves and 4 spines, with the spine layer built for 4 SUs so that growing
# scalable_units up to 4 only adds.
data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = 1
  planned_scalable_units = 4
  reserved_node_slots    = 1
  cable_kind             = "fiber-mm"
}

# The maps are keyed by name and hold exactly the resources' arguments.
resource "gpucluster_node" "all" {
  for_each   = data.gpucluster_topology.pod.nodes
  name       = each.value.name
  rack       = each.value.rack
  position_u = each.value.position_u
}

resource "gpucluster_hca" "all" {
  for_each  = data.gpucluster_topology.pod.hcas
  node      = gpucluster_node.all[each.value.node].name
  device    = each.value.device
  port_guid = each.value.port_guid
  rail      = each.value.rail
}

# The fabric builds the same graph from the normalized design; the per-item resources above
# (BMC, firmware) need not be handed to it. Its maps take the data source's maps as they are too
# (`switches = data.gpucluster_topology.pod.switches`), merged with the design by name.
resource "gpucluster_fabric" "compute" {
  name   = "compute"
  design = data.gpucluster_topology.pod.design
  policy = { preset = "training-large" }
}

# A non-blocking fat tree of 256 DGX H100 (2,048 endpoints, the most 2 tiers of QM9700 hold),
# with the burned-in GUIDs of the HCAs already delivered.
data "gpucluster_topology" "tree" {
  kind       = "fat-tree"
  node_count = 128
  # The spine layer is sized for 256 nodes: adding nodes later only adds leaves and cables.
  planned_nodes = 256
  hca_guids = {
    "gpu001/mlx5_0" = "0x946dae0300a1b2c3"
  }
}

output "tree_summary" {
  value = data.gpucluster_topology.tree.summary # counts by role and by link tier
}
