# The cluster `make demo` applies: 8 DGX H100 on two leaves and a spine (a generated 2-tier fat
# tree), brought up through their BMCs, their 64 ConnectX-7 ports set to InfiniBand with
# mlxconfig, two partitions, and OpenSM configured on the subnet manager host over SSH. Each
# node's firmware is read (HCAs with flint, BMC and BIOS from Redfish), and a BMC baseline in
# bmc_firmware is applied through Redfish.
#
# Every host here is simulated on loopback by cmd/gpucluster-sim (`make demo`, or `make demo-up`
# to keep it running): it writes terraform.tfvars.json (where the hosts are) and
# secrets.auto.tfvars.json (the fleet's BMC password, mode 0600) next to a copy of this file.
# Against real hosts, the same configuration takes their addresses instead.
#
# First light (docs/guides/bring-up.md): after a wave is cabled, a punch list of what to fix.
# Day 2 (docs/guides/day-2.md): every cable is judged from its port counters; a bad one is
# recorded in failed_cables and the fabric keeps taking changes while it is down.

terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

variable "sim" {
  description = "Where the cluster's hosts answer: the SM host, and per node its BMC, SSH and mlxconfig."
  type = object({
    ssh_user             = string
    ssh_private_key_file = string
    known_hosts_file     = string
    bmc_username         = string # the fleet's automation account, on every BMC
    simulated_fabric     = bool   # ibsim stands in for the fabric (400G links show as 4xHDR)
    sm = object({
      host       = string
      port       = number
      config_dir = string # where OpenSM reads its files
      log_file   = string
      control    = string # `control start|stop|reload|status` runs OpenSM as a service would
      diag       = string # prefix that runs an infiniband-diag on the fabric, e.g. `sudo`
      # where the port counters' last read is kept between plans, so a cable that goes down
      # keeps the rates read while it was up
      counters_file = string
    })
    nodes = map(object({
      bmc_protocol = string # "ipmi" or "redfish"
      bmc_endpoint = string
      bmc_port     = number
      tls_ca_pem   = string # the Redfish BMC's CA; null for IPMI
      ssh_host     = string # host:port of the node's sshd
      mlxconfig    = string # absolute path of mlxconfig on the node
    }))
  })
}

variable "bmc_password" {
  description = "The password of the fleet's automation account (sim.bmc_username) on every BMC."
  type        = string
  sensitive   = true
}

variable "failed_cables" {
  description = "Cables that are designed and cabled but down (day 2), by label, with why and since when."
  type = list(object({
    cable  = string
    reason = optional(string)
    since  = optional(string) # YYYY-MM-DD
  }))
  default = []
}

variable "bmc_firmware" {
  description = "The BMC firmware baseline of Redfish nodes, by node: the version and the image the BMC fetches to reach it. A node not listed keeps the version it runs, read only."
  type = map(object({
    version = string
    image   = string
  }))
  default = {}
}

variable "tenant_a_nodes" {
  description = "The nodes of tenant A's partition."
  type        = list(string)
  default     = ["gpu001", "gpu002", "gpu003", "gpu004"]
}

# Credentials Read needs live in the provider (docs: "Credentials and state"): the fleet's BMC
# account here, never in each node, so the state holds no BMC password.
provider "gpucluster" {
  ssh = {
    user             = var.sim.ssh_user
    private_key      = file(var.sim.ssh_private_key_file)
    known_hosts_file = var.sim.known_hosts_file
  }
  bmc = {
    username = var.sim.bmc_username
    password = var.bmc_password
  }
}

data "gpucluster_topology" "demo" {
  kind       = "fat-tree"
  node_count = 8
  tiers      = 2
}

locals {
  design = data.gpucluster_topology.demo.design
}

# Nodes and HCAs have a life of their own (BMC, firmware), so they are resources, keyed by the
# generator's names; the fabric takes the design and needs neither.
resource "gpucluster_node" "all" {
  for_each   = data.gpucluster_topology.demo.nodes
  name       = each.value.name
  model      = each.value.model
  rack       = each.value.rack
  position_u = each.value.position_u
  ssh_host   = var.sim.nodes[each.key].ssh_host

  # Where the BMC is and how to trust it; the credentials are the provider's.
  bmc = {
    endpoint   = var.sim.nodes[each.key].bmc_endpoint
    port       = var.sim.nodes[each.key].bmc_port
    protocols  = [var.sim.nodes[each.key].bmc_protocol]
    tls_ca_pem = var.sim.nodes[each.key].tls_ca_pem
  }
  power_state = "on"
  boot_device = { device = "pxe" }

  # BMC and BIOS firmware through Redfish's UpdateService: read from its FirmwareInventory at
  # every refresh, updated with SimpleUpdate where bmc_firmware sets a baseline. An IPMI-only BMC
  # has no inventory to read (the provider refuses firmware on one), so those nodes leave it out.
  firmware = var.sim.nodes[each.key].bmc_protocol == "redfish" ? {
    bmc    = try(var.bmc_firmware[each.key].version, null)
    images = { bmc = try(var.bmc_firmware[each.key].image, null) }
  } : null
}

resource "gpucluster_hca" "all" {
  for_each  = data.gpucluster_topology.demo.hcas
  node      = gpucluster_node.all[each.value.node].name
  device    = each.value.device
  port_guid = each.value.port_guid
  rail      = each.value.rail

  ssh_host = gpucluster_node.all[each.value.node].ssh_host
  tool     = var.sim.nodes[each.value.node].mlxconfig
  firmware_settings = {
    LINK_TYPE_P1 = "IB"
    SRIOV_EN     = "True"
    NUM_OF_VFS   = "8"
  }
}

# Every port in the compute partition; tenant A's nodes also in a partition of their own.
resource "gpucluster_partition" "compute" {
  name    = "compute"
  pkey    = "0x0001"
  ipoib   = true
  mtu     = 4096
  rate    = 400
  members = [{ guid = "ALL_CAS" }, { guid = "SELF" }]
}

resource "gpucluster_partition" "tenant_a" {
  name    = "tenant_a"
  pkey    = "0x0010"
  members = [for k, h in data.gpucluster_topology.demo.hcas : { hca = k } if contains(var.tenant_a_nodes, h.node)]
}

locals {
  partitions = {
    compute  = gpucluster_partition.compute
    tenant_a = gpucluster_partition.tenant_a
  }
}

locals {
  subnet_manager = {
    hosts          = [var.sim.sm.host]
    port           = var.sim.sm.port
    config_dir     = var.sim.sm.config_dir
    log_file       = var.sim.sm.log_file
    start_command  = "${var.sim.sm.control} start"
    stop_command   = "${var.sim.sm.control} stop"
    reload_command = "${var.sim.sm.control} reload"
    status_command = "${var.sim.sm.control} status"
    verify_timeout = "60s"
  }
}

resource "gpucluster_fabric" "demo" {
  name           = "demo"
  design         = local.design
  partitions     = local.partitions
  policy         = { preset = "training-large" }
  subnet_manager = local.subnet_manager
  failed_cables  = var.failed_cables # day 2: judged as degraded, not as a design change
}

# The exact files the fabric pushes (the same subnet_manager renders the same bytes), and the
# declared fabric in ibnetdiscover format, which the simulator loads.
data "gpucluster_opensm_files" "demo" {
  design         = local.design
  partitions     = local.partitions
  subnet_manager = local.subnet_manager
}

# The fabric as it is, against the declaration (ibnetdiscover on the SM host), and a check that
# warns when a cable is missing, miswired or degraded. The data source sits outside the check
# block: Terraform re-reads a check's own data source at every apply and so never plans "No
# changes" with one (hashicorp/terraform#35226).
data "gpucluster_discovered_fabric" "live" {
  host                  = var.sim.sm.host
  port                  = var.sim.sm.port
  ibnetdiscover_command = "${var.sim.sm.diag} ibnetdiscover"
  simulated             = var.sim.simulated_fabric
  design                = local.design
  absent_cables         = [for f in var.failed_cables : f.cable] # recorded as failed: not expected up
}

check "fabric_as_declared" {
  assert {
    condition     = data.gpucluster_discovered_fabric.live.clean
    error_message = join("\n", data.gpucluster_discovered_fabric.live.report)
  }
}

# First light (docs/guides/bring-up.md): the floor the discovered fabric read, checked link by
# link against the design. A wrong cable is one row of a punch list a technician can walk (two
# cables with exchanged ends are one swap), with where both ends are. Cables recorded in
# failed_cables are not expected up.
data "gpucluster_cable_validation" "floor" {
  design        = local.design
  absent_cables = [for f in var.failed_cables : f.cable]
  floor         = data.gpucluster_discovered_fabric.live.floor
}

check "first_light" {
  assert {
    condition     = data.gpucluster_cable_validation.floor.passed
    error_message = data.gpucluster_cable_validation.floor.report
  }
}

# Day 2: every designed cable judged from its port counters, read twice a few seconds apart:
# climbing symbol errors make a cable suspect, one the fabric no longer shows is down. The check
# names each one not yet recorded in failed_cables, with its numbers and where it is.
data "gpucluster_port_counters" "live" {
  host                  = var.sim.sm.host
  port                  = var.sim.sm.port
  perfquery_command     = "${var.sim.sm.diag} perfquery"
  ibnetdiscover_command = "${var.sim.sm.diag} ibnetdiscover"
  design                = local.design
  sample_seconds        = 3
  snapshot_file         = var.sim.sm.counters_file # each read kept on the SM host for the next
}

locals {
  counters   = data.gpucluster_port_counters.live
  unrecorded = setsubtract(local.counters.suspect_cables, [for f in var.failed_cables : f.cable])
  # Indented lines: Terraform prints them as they are, without wrapping.
  cable_report = [for c in sort(tolist(local.unrecorded)) : "  ${c}: ${local.counters.links[c].reason}\n    where: ${local.counters.links[c].where}"]
}

check "cables_healthy" {
  assert {
    condition     = length(local.unrecorded) == 0
    error_message = "Record these in failed_cables (or replace them):\n${join("\n", local.cable_report)}"
  }
  # No reading is no verdict: a cable not measured at both ends is `unread`, never `ok`.
  assert {
    condition     = length(local.counters.unread_cables) == 0
    error_message = "No verdict for these cables:\n${join("\n", [for c in local.counters.unread_cables : "  ${c}: ${local.counters.links[c].reason}"])}"
  }
}

output "analysis" {
  value = gpucluster_fabric.demo.analysis
}

output "bad_cables" {
  description = "Every suspect or down cable with its verdict's reason."
  value       = { for c in local.counters.suspect_cables : c => local.counters.links[c].reason }
}

# Each node's firmware: the BMC and BIOS (an output of the nodes alone, so that an apply of the
# nodes alone updates it) and the HCAs.
output "node_firmware" {
  description = "Each node's BMC and BIOS firmware as its Redfish FirmwareInventory lists them (null on an IPMI-only BMC)."
  value       = { for k, n in gpucluster_node.all : k => { bmc = try(n.firmware.bmc, null), bios = try(n.firmware.bios, null) } }
}

output "hca_firmware" {
  description = "Each node's HCA firmware as flint reads it, by device."
  value       = { for k, n in gpucluster_node.all : k => { for h in gpucluster_hca.all : h.device => h.firmware_version if h.node == k } }
}
