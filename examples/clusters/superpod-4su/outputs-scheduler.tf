# What the scheduler, the technicians and the reviewers read, written to files with
# `terraform output -raw`:
#
#   terraform output -raw slurm_topology_conf       > topology.conf     # Slurm topology/tree
#   terraform output -raw slurm_block_topology_conf > topology-block.conf # Slurm 23.11+ topology/block
#   terraform output -raw kueue_topology            > kueue-topology.yaml
#   terraform output -json node_labels              > node-labels.json
#   terraform output -raw diagram_svg               > superpod-4su.svg
#   terraform output -raw diagram_dot | dot -Tpng   > superpod-4su.png

data "gpucluster_scheduler_topology" "superpod" {
  design = data.gpucluster_topology.pod.design
  name   = "superpod"
}

data "gpucluster_diagram" "superpod" {
  design = data.gpucluster_topology.pod.design
  title  = "DGX SuperPOD, 4 scalable units (RA-11333-001)"
}

output "slurm_topology_conf" {
  description = "Slurm topology.conf for topology/tree: the four scalable units as leaf-level switches, each spine over them."
  value       = data.gpucluster_scheduler_topology.superpod.slurm_topology_conf
}

output "slurm_block_topology_conf" {
  description = "Slurm topology.conf for topology/block (Slurm 23.11+): one block per scalable unit, BlockSizes=31,62,124."
  value       = data.gpucluster_scheduler_topology.superpod.slurm_block_topology_conf
}

output "kueue_topology" {
  description = "The Kueue Topology object (kueue.x-k8s.io/v1beta2): spine tier, scalable unit, hostname."
  value       = data.gpucluster_scheduler_topology.superpod.kueue_topology
}

output "node_labels" {
  description = "The Topograph-style labels each node carries for the Kueue Topology."
  value       = data.gpucluster_scheduler_topology.superpod.node_labels
}

output "diagram_svg" {
  description = "The fabric as SVG, laid out by the provider."
  value       = data.gpucluster_diagram.superpod.svg
}

output "diagram_dot" {
  description = "The fabric as Graphviz DOT."
  value       = data.gpucluster_diagram.superpod.dot
}
