# One DGX SuperPOD scalable unit (RA-11333-001): 31 DGX H100, the UFM fabric manager in the last
# slot, 8 rail leaves and 4 spines, with the spine layer built for 4 SUs so that growing
# scalable_units up to 4 only adds.
data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = 1
  planned_scalable_units = 4
  reserved_node_slots    = 1
  cable_kind             = "fiber-mm"

  # Only the maps something iterates over: the nodes and HCAs below. The other maps stay empty,
  # and Terraform neither stores nor compares their objects (the fabric takes `design`).
  items = ["nodes", "hcas"]
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
# (`switches = data.gpucluster_topology.pod.switches`, with `switches` in `items`), merged with
# the design by name.
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
  items = [] # nothing iterates over the maps here
}

output "tree_summary" {
  value = data.gpucluster_topology.tree.summary # counts by role and by link tier
}

output "tree_notes" {
  # How the spines were sized, and the top tier's free ports against the spine-headroom rule.
  value = data.gpucluster_topology.tree.notes
}

# The origin document's dragonfly+: 2 groups of 32 DGX H100, 2:1 at the group level. Each group
# gets the leaves its 32 nodes need (8) and 8 spines, 32 switches in all; 128 global links join
# the groups (51,200 Gb/s of bisection; 256 links and full bisection at the default 1:1).
data "gpucluster_topology" "dragonfly" {
  kind                   = "dragonfly-plus"
  group_count            = 2
  node_count             = 64
  group_oversubscription = 2
  items                  = []
}

resource "gpucluster_fabric" "dragonfly" {
  name   = "dragonfly"
  design = data.gpucluster_topology.dragonfly.design
  policy = { preset = "dragonfly-plus" } # checks the group level: 2:1 at most
}

# A large fabric, per block: the nodes and HCAs of each scalable unit in its group, for one
# module instance per SU (several small for_each maps plan far faster than one big one). The
# top-level maps stay empty: nothing is output twice.
data "gpucluster_topology" "superpod" {
  kind           = "rail-optimized"
  scalable_units = 16
  items          = ["nodes", "hcas"]
  items_by_group = true
}

# module "su" {
#   source   = "./su" # gpucluster_node and gpucluster_hca over var.nodes and var.hcas
#   for_each = { for name, g in data.gpucluster_topology.superpod.groups : name => g if g.kind == "scalable-unit" }
#   nodes    = each.value.nodes
#   hcas     = each.value.hcas
# }
