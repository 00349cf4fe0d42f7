# The bill of materials and cabling plan of the same inputs the fabric takes: here a generated
# SuperPOD scalable unit by its design, with the UFM appliance links it cannot see as devices.
data "gpucluster_topology" "pod" {
  kind                = "rail-optimized"
  scalable_units      = 1
  reserved_node_slots = 1
}

data "gpucluster_bom" "pod" {
  design         = data.gpucluster_topology.pod.design
  external_links = values(data.gpucluster_topology.pod.appliance_links)
}

# Or of declared resources, maps keyed by name as the fabric takes them:
#   racks = gpucluster_rack.all, switches = gpucluster_switch.all, nodes = gpucluster_node.all,
#   hcas = gpucluster_hca.all, cables = gpucluster_cable.all

output "bom" {
  value = data.gpucluster_bom.pod.markdown # | Category | SKU | Description | Quantity | Unit price | Cost |
}

output "unpriced" {
  value = data.gpucluster_bom.pod.unpriced # SKUs the catalog has no sourced price for
}

# One row per cable for the cabling crew:
# label,a_device,a_port,a_rack,a_u,b_device,b_port,b_rack,b_u,kind,length_m,sku,bundle
output "cabling_csv" {
  value = data.gpucluster_bom.pod.cabling_csv
}
