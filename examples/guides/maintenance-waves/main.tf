# A maintenance window on a 2-SU DGX SuperPOD (docs/guides/firmware.md): the spines go down in
# waves for a firmware update, each wave proved to keep the fabric's degraded policy before
# anything goes down, and the pull request that schedules the window fails if one cannot.

terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

data "gpucluster_topology" "pod" {
  kind           = "rail-optimized"
  scalable_units = 2
  items          = [] # the design alone: the waves need no item maps
}

locals {
  # The fabric's policy.degraded, one value for the fabric and the waves.
  degraded = {
    min_bisection_ratio       = 0.75 # of the full bisection of what still runs
    max_unreachable_endpoints = 0    # no HCA cut off: no node drained
  }
}

data "gpucluster_maintenance_waves" "spines" {
  design   = data.gpucluster_topology.pod.design
  select   = { role = "spine" }
  degraded = local.degraded
}

# The gate: the window is planned in the fewest waves, none larger than the change ticket allows.
check "spine_window" {
  assert {
    condition     = data.gpucluster_maintenance_waves.spines.fewest
    error_message = "The wave count is first-fit, not proved the fewest: split the devices into groups of at most 16."
  }
  assert {
    condition     = alltrue([for w in data.gpucluster_maintenance_waves.spines.waves : length(w.devices) <= 2])
    error_message = "A wave takes down more than the two spines the change ticket allows:\n${data.gpucluster_maintenance_waves.spines.summary}"
  }
}

output "spine_waves" {
  value = data.gpucluster_maintenance_waves.spines.summary
}

output "drain" {
  description = "The nodes to drain before each wave, by wave number."
  value       = { for i, w in data.gpucluster_maintenance_waves.spines.waves : i + 1 => w.drained_nodes }
}
