# Port error counters in a check block: every cabled switch port of the fabric.
check "no_symbol_errors" {
  data "gpucluster_port_counters" "all" {
    host             = "sm01.example.net"
    ssh_user         = "opensm-admin"
    known_hosts_file = "${path.module}/known_hosts"
  }

  assert {
    condition     = data.gpucluster_port_counters.all.totals["SymbolErrorCounter"] == 0
    error_message = "Symbol errors on the fabric: ${jsonencode([for c in data.gpucluster_port_counters.all.counters : "${c.name}[${c.port}]" if c.values["SymbolErrorCounter"] > 0])}"
  }
}

# Chosen ports: by switch node GUID or HCA port GUID (resolved by the SM), or by LID.
data "gpucluster_port_counters" "uplinks" {
  host             = "sm01.example.net"
  known_hosts_file = "${path.module}/known_hosts"
  ports = [
    { name = "leaf01 uplink 33", guid = "0x0002c90300a1b2c3", port = 33 },
    { name = "gpu001/mlx5_0", guid = "0x0002c90300c0ffe1", port = 1 },
  ]
}

output "uplink_xmit_wait" {
  value = { for c in data.gpucluster_port_counters.uplinks.counters : c.name => c.values["PortXmitWait"] }
}
