# A picture of a generated fat tree: DOT for Graphviz and an SVG the provider lays out itself.
data "gpucluster_topology" "ft" {
  kind       = "fat-tree"
  node_count = 16
}

data "gpucluster_diagram" "ft" {
  design = data.gpucluster_topology.ft.design
  title  = "16 DGX H100, 2-tier fat tree"
  # fold_above           = 32   # nodes get a box each up to this many
  # max_oversubscription = 1    # switches above this down:up ratio are drawn orange
}

# terraform output -raw fabric_svg > fabric.svg
output "fabric_svg" {
  value = data.gpucluster_diagram.ft.svg
}

# terraform output -raw fabric_dot | dot -Tpng > fabric.png
output "fabric_dot" {
  value = data.gpucluster_diagram.ft.dot
}
