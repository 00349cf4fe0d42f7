# First light: after the technicians cable a wave, check the floor against the design, link by
# link, and print the punch list they walk.
data "gpucluster_topology" "pod" {
  kind           = "rail-optimized"
  scalable_units = 2
}

data "gpucluster_discovered_fabric" "live" {
  host = "sm01.example" # or topology_file = "floor/ibnetdiscover.out"
}

data "gpucluster_cable_validation" "wave" {
  design = data.gpucluster_topology.pod.design
  floor  = data.gpucluster_discovered_fabric.live.floor
  # scope    = data.gpucluster_bom.work.cabling_changes_csv   # judge only this work order's links
  # counters = data.gpucluster_port_counters.live.links      # noisy or down links are not ok
}

check "first_light" {
  assert {
    condition     = data.gpucluster_cable_validation.wave.passed
    error_message = data.gpucluster_cable_validation.wave.report
  }
}

# terraform output -raw punch_list > punch-list.csv
output "punch_list" {
  value = data.gpucluster_cable_validation.wave.punch_list_csv
}
