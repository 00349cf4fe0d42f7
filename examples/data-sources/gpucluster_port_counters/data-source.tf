# Day 2: every cable of the fabric judged from its counters. Given the fabric's own inputs (the
# same design the gpucluster_fabric takes), both ends of every designed cable are read twice, 10 s
# apart: a cable with climbing symbol errors is `suspect`, one the fabric no longer shows is
# `down`, each with the reason and where a technician finds it.
data "gpucluster_topology" "pod" {
  kind       = "fat-tree"
  node_count = 64
  items      = []
}

data "gpucluster_port_counters" "fabric" {
  host             = "sm01.example.net"
  known_hosts_file = "${path.module}/known_hosts"
  design           = data.gpucluster_topology.pod.design
  sample_seconds   = 10
  # Each read kept on the SM host for the next: a cable that goes down keeps the rates read
  # while it was up.
  snapshot_file = "/var/lib/gpucluster/port-counters.json"
}

# A warning naming each bad cable by label, with its numbers and where it is (indented lines:
# Terraform prints them without wrapping). The labels are what gpucluster_fabric.failed_cables
# takes.
check "cables" {
  assert {
    condition = length(data.gpucluster_port_counters.fabric.suspect_cables) == 0
    error_message = join("\n", [for label in data.gpucluster_port_counters.fabric.suspect_cables :
    "  ${label}: ${data.gpucluster_port_counters.fabric.links[label].reason}\n    where: ${data.gpucluster_port_counters.fabric.links[label].where}"])
  }
  # No reading is no verdict: a cable an end of which did not answer is `unread`, never `ok`.
  assert {
    condition = length(data.gpucluster_port_counters.fabric.unread_cables) == 0
    error_message = join("\n", [for label in data.gpucluster_port_counters.fabric.unread_cables :
    "  ${label}: ${data.gpucluster_port_counters.fabric.links[label].reason}"])
  }
}

# Chosen ports: by switch node GUID or HCA port GUID (resolved by the SM), or by LID.
data "gpucluster_port_counters" "uplinks" {
  host             = "sm01.example.net"
  known_hosts_file = "${path.module}/known_hosts"
  sample_seconds   = 5
  ports = [
    { name = "leaf01 uplink 33", guid = "0x0002c90300a1b2c3", port = 33 },
    { name = "gpu001/mlx5_0", guid = "0x0002c90300c0ffe1", port = 1 },
  ]
}

output "uplink_xmit_wait_per_second" {
  value = { for c in data.gpucluster_port_counters.uplinks.counters : c.name => c.rates["PortXmitWait"] }
}
