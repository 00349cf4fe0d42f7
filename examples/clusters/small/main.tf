# A small compute fabric: 8 DGX H100 nodes in two racks, and two leaves and a spine (QM9700) in a
# network rack. Each node's eight HCAs are split over the leaves as in NVIDIA's reference
# architecture (rails 0-3 on leaf01, rails 4-7 on leaf02), and each leaf has as many uplinks to
# the spine as node links (32 and 32: 1:1, full bisection).
#
# Plan it with the provider built from this repository: `make plan` (see README.md).

terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

provider "gpucluster" {}

locals {
  # gpu001 ... gpu008, four per node rack, stacked from U2 (a DGX H100 is 8U: U2, U10, U18, U26).
  nodes = {
    for i in range(8) : format("gpu%03d", i + 1) => {
      index      = i
      rack       = i < 4 ? "r01" : "r02"
      position_u = 2 + 8 * (i % 4)
    }
  }

  # The eight compute HCAs of every node, keyed by their fabric name ("gpu001/mlx5_0"), with the
  # leaf port each one is cabled to: node i takes ports 4i+1 ... 4i+4 of its rail's leaf, so the
  # 8 nodes fill ports 1-32 of both leaves. The GUIDs are made up; use the burned-in ones.
  hcas = merge([
    for name, node in local.nodes : {
      for rail in range(8) : "${name}/mlx5_${rail}" => {
        node      = name
        device    = "mlx5_${rail}"
        rail      = rail
        port_guid = format("0x0002c90300%02x%04x", node.index + 1, rail)
        leaf      = rail < 4 ? "leaf01" : "leaf02"
        leaf_port = 4 * node.index + rail % 4 + 1
      }
    }
  ]...)

  leaves = {
    leaf01 = { index = 0, position_u = 20 }
    leaf02 = { index = 1, position_u = 21 }
  }

  # Ports 33-64 of each leaf go up to the spine: leaf01 to spine ports 1-32, leaf02 to 33-64.
  uplinks = merge([
    for name, leaf in local.leaves : {
      for i in range(32) : "${name}:${33 + i}" => {
        leaf       = name
        leaf_port  = 33 + i
        spine_port = 32 * leaf.index + i + 1
      }
    }
  ]...)
}

# Two node racks and the network rack, side by side in one row. Four DGX H100 draw 40.8 kW at
# most.
resource "gpucluster_rack" "all" {
  for_each = { r01 = 1, r02 = 2, r03 = 3 }
  name     = each.key
  row      = 1
  position = each.value
  power_kw = each.key == "r03" ? 10 : 45
}

resource "gpucluster_node" "all" {
  for_each   = local.nodes
  name       = each.key
  rack       = gpucluster_rack.all[each.value.rack].name
  position_u = each.value.position_u
}

resource "gpucluster_hca" "all" {
  for_each  = local.hcas
  node      = gpucluster_node.all[each.value.node].name
  device    = each.value.device
  rail      = each.value.rail
  port_guid = each.value.port_guid
}

# Roles are left to the fabric: the leaves are one hop from the HCAs, the spine above them.
resource "gpucluster_switch" "leaf" {
  for_each   = local.leaves
  name       = each.key
  rack       = gpucluster_rack.all["r03"].name
  position_u = each.value.position_u
  guid       = format("0x0002c903000a%04x", each.value.index + 1)
}

resource "gpucluster_switch" "spine01" {
  name       = "spine01"
  rack       = gpucluster_rack.all["r03"].name
  position_u = 23
  guid       = "0x0002c903000b0001"
}

# Kinds and lengths are left to the fabric, which estimates each run from the rack positions.
resource "gpucluster_cable" "node" {
  for_each = local.hcas
  a        = { device = gpucluster_switch.leaf[each.value.leaf].name, port = each.value.leaf_port }
  b        = { device = gpucluster_hca.all[each.key].name, port = 1 }
}

resource "gpucluster_cable" "uplink" {
  for_each = local.uplinks
  a        = { device = gpucluster_switch.leaf[each.value.leaf].name, port = each.value.leaf_port }
  b        = { device = gpucluster_switch.spine01.name, port = each.value.spine_port }
}

# Every HCA port and the subnet manager in one partition, with IPoIB at 4096 bytes and 400 Gb/s.
resource "gpucluster_partition" "compute" {
  name  = "compute"
  pkey  = "0x0001"
  ipoib = true
  mtu   = 4096
  rate  = 400
  members = [
    { guid = "ALL_CAS" },
    { guid = "SELF" },
  ]
}

# The whole fabric, judged at plan time: the same objects as above, assembled into one graph. The
# inputs are maps keyed by name (a for_each'd resource fits as it is), so a plan diffs them by key:
# rewiring two cables shows those two cables, nothing else.
resource "gpucluster_fabric" "compute" {
  name       = "compute"
  racks      = gpucluster_rack.all
  switches   = merge(gpucluster_switch.leaf, { spine01 = gpucluster_switch.spine01 })
  nodes      = gpucluster_node.all
  hcas       = gpucluster_hca.all
  cables     = merge(gpucluster_cable.node, gpucluster_cable.uplink) # keys "gpu001/mlx5_0", "leaf01:33"
  partitions = { compute = gpucluster_partition.compute }

  policy = {
    preset = "training-large"
  }

  # A 70B-parameter model with BF16 gradients: how long one all-reduce takes on this fabric.
  workload = {
    parameters               = 70e9
    gradient_bytes_per_param = 2
  }
}

output "analysis" {
  value = gpucluster_fabric.compute.analysis
}
