# The configuration the gate of examples/ci checks in its test: one leaf and one spine (QM9700)
# with `nodes` DGX H100 on the leaf and `uplinks` leaf-spine cables. nodes = 2, uplinks = 16 is
# non-blocking; nodes = 3, uplinks = 24 grows it and still passes; nodes = 3 with 16 uplinks is
# 1.5:1 at the leaf, which the training-large policy refuses: the plan fails and so does the job.

terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

provider "gpucluster" {}

variable "nodes" {
  type    = number
  default = 2
}

variable "uplinks" {
  type    = number
  default = 16
}

locals {
  node_names = [for n in range(var.nodes) : format("gpu%03d", n + 1)]
  nodes      = { for n in local.node_names : n => { name = n } }
  hcas = merge([for i, n in local.node_names : {
    for r in range(8) : "${n}/mlx5_${r}" => {
      node = n, device = "mlx5_${r}", rail = r, port_guid = format("0x0002c9030010%04x", i * 8 + r)
    }
  }]...)
  switches = {
    leaf01  = { name = "leaf01", guid = "0x0002c903000a0001" }
    spine01 = { name = "spine01", guid = "0x0002c903000b0001" }
  }
  # HCA h of node i on leaf port 8i+h+1; uplinks from leaf port 33 to spine ports 1...
  node_cables = merge([for i, n in local.node_names : {
    for r in range(8) : "${n}/mlx5_${r}:1" => {
      a = { device = "${n}/mlx5_${r}", port = 1 }
      b = { device = "leaf01", port = 8 * i + r + 1 }
    }
  }]...)
  uplinks = { for u in range(var.uplinks) : "leaf01:${33 + u}" => {
    a = { device = "leaf01", port = 33 + u }
    b = { device = "spine01", port = u + 1 }
  } }
}

resource "gpucluster_fabric" "gate" {
  name     = "gate"
  switches = local.switches
  nodes    = local.nodes
  hcas     = local.hcas
  cables   = merge(local.node_cables, local.uplinks)
  policy   = { preset = "training-large" }
}
