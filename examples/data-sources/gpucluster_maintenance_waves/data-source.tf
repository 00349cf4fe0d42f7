# A spine firmware update on a 2-SU SuperPOD: the fewest waves of spines that can go down together
# while the fabric keeps three quarters of its bisection. Each wave comes with the analysis that
# proves it; a spine that could not go down even alone would fail the plan, named.
data "gpucluster_topology" "pod" {
  kind           = "rail-optimized"
  scalable_units = 2
}

data "gpucluster_maintenance_waves" "spines" {
  design   = data.gpucluster_topology.pod.design
  select   = { role = "spine" }             # or devices = ["spine01", "spine02", ...]
  degraded = { min_bisection_ratio = 0.75 } # the same values as the fabric's policy.degraded
}

# wave 1: spine01, spine02 down; drain none; proves 76800 of 102400 Gb/s (0.75, at least 0.75 required)
# ...
output "spine_waves" {
  value = data.gpucluster_maintenance_waves.spines.summary
}
