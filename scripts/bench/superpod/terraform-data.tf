# The same items as the example's gpucluster_node.all and gpucluster_hca.all, as terraform_data
# with the same attributes: the baseline the per-item resources are held to (issue 28 item 3).
# superpod.sh puts this in place of those two resources.
resource "terraform_data" "node" {
  for_each = local.t.nodes
  input = {
    name       = each.value.name
    model      = each.value.model
    rack       = each.value.rack
    position_u = each.value.position_u
  }
}

resource "terraform_data" "hca" {
  for_each = local.t.hcas
  input = {
    node      = terraform_data.node[each.value.node].output.name
    device    = each.value.device
    port_guid = each.value.port_guid
    rail      = each.value.rail
  }
}
