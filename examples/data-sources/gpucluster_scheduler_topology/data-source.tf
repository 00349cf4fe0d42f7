# Slurm and Kueue topology for a generated SuperPOD of two scalable units. The data source takes
# the fabric's own inputs: a `design` (as here), the inventory maps, or both.
data "gpucluster_topology" "pod" {
  kind                = "rail-optimized"
  scalable_units      = 2
  reserved_node_slots = 1
}

data "gpucluster_scheduler_topology" "pod" {
  design = data.gpucluster_topology.pod.design
  name   = "pod" # the Kueue Topology's metadata.name

  # Optional: label keys of the fabric tiers, tier 0 (here the scalable unit) first. Unset tiers
  # take NVIDIA Topograph's fabric.topograph.run/tier-N.
  # label_keys = ["example.com/scalable-unit", "example.com/spine-block"]
}

# terraform output -raw slurm_topology_conf > /etc/slurm/topology.conf   (TopologyPlugin=topology/tree)
output "slurm_topology_conf" {
  value = data.gpucluster_scheduler_topology.pod.slurm_topology_conf
  # SwitchName=su01 Nodes=gpu[001-031]
  # SwitchName=su02 Nodes=gpu[032-063]
  # SwitchName=spine01 Switches=su[01-02]
  # ...
}

# Slurm 23.11 and later: TopologyPlugin=topology/block.
output "slurm_block_topology_conf" {
  value = data.gpucluster_scheduler_topology.pod.slurm_block_topology_conf
}

# terraform output -raw kueue_topology | kubectl apply -f -
output "kueue_topology" {
  value = data.gpucluster_scheduler_topology.pod.kueue_topology
}

# gpu001 = { "fabric.topograph.run/tier-0" = "su01", "fabric.topograph.run/tier-1" = "spines" }
output "node_labels" {
  value = data.gpucluster_scheduler_topology.pod.node_labels
}
