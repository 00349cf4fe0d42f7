# A fabric whose subnet manager is NVIDIA UFM (a DGX SuperPOD's usual set-up): 8 DGX H100 on a
# generated 2-tier fat tree, two tenant partitions and a storage partition, applied through UFM's
# PKey REST API instead of an OpenSM partitions.conf pushed over SSH (docs/guides/design.md,
# "Choosing the partition target: OpenSM files or UFM").
#
# `terraform plan` works without a UFM: nothing reads UFM until there is state to refresh or
# something to apply. `terraform apply` needs ufm_url and the password (TF_VAR_ufm_password; the
# provider's ufm also takes a token instead), and ufm_ca_file when UFM's certificate is not signed by a CA the system trusts.
#
# An existing PKey is brought under management with an import block (same section):
#   import { to = gpucluster_partition.legacy, id = "legacy,ufm=0x0300" }
# or listed with `terraform query` (list "gpucluster_partition").

terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

variable "ufm_url" {
  description = "UFM's address; https only."
  type        = string
  default     = "https://ufm.example.com"
}

variable "ufm_username" {
  description = "The UFM user the provider acts as."
  type        = string
  default     = "admin"
}

variable "ufm_password" {
  description = "The UFM user's password (set TF_VAR_ufm_password; the default only lets plan run)."
  type        = string
  sensitive   = true
  default     = "set-TF_VAR_ufm_password"
}

variable "ufm_ca_file" {
  description = "PEM file of the CA that signed UFM's certificate; null trusts the system's roots."
  type        = string
  default     = null
}

variable "tenant_a_nodes" {
  description = "The nodes of tenant A's partition."
  type        = list(string)
  default     = ["gpu001", "gpu002", "gpu003", "gpu004"]
}

variable "tenant_b_nodes" {
  description = "The nodes of tenant B's partition."
  type        = list(string)
  default     = ["gpu005", "gpu006", "gpu007", "gpu008"]
}

# UFM's credentials live in the provider: Read needs them to find drift, so they are never in a
# resource's state.
provider "gpucluster" {
  ufm = {
    url      = var.ufm_url
    username = var.ufm_username
    password = var.ufm_password
    ca_file  = var.ufm_ca_file
  }
}

data "gpucluster_topology" "pod" {
  kind       = "fat-tree"
  node_count = 8
  tiers      = 2
}

locals {
  hcas = data.gpucluster_topology.pod.hcas
}

# Each tenant's nodes, every rail, full members; UFM takes port GUIDs, which the fabric resolves
# from the HCA names.
resource "gpucluster_partition" "tenant_a" {
  name    = "tenant_a"
  pkey    = "0x0010"
  ipoib   = true
  mtu     = 4096
  rate    = 200
  members = [for k, h in local.hcas : { hca = k } if contains(var.tenant_a_nodes, h.node)]
}

resource "gpucluster_partition" "tenant_b" {
  name    = "tenant_b"
  pkey    = "0x0011"
  ipoib   = true
  mtu     = 4096
  rate    = 200
  members = [for k, h in local.hcas : { hca = k } if contains(var.tenant_b_nodes, h.node)]
}

# mlx5_0 of every node reaches storage as a limited member: nodes of different tenants share the
# partition without talking to each other.
resource "gpucluster_partition" "storage" {
  name    = "storage"
  pkey    = "0x0020"
  members = [for k, h in local.hcas : { hca = k, membership = "limited" } if h.device == "mlx5_0"]
}

resource "gpucluster_fabric" "pod" {
  name   = "pod"
  design = data.gpucluster_topology.pod.design
  partitions = {
    tenant_a = gpucluster_partition.tenant_a
    tenant_b = gpucluster_partition.tenant_b
    storage  = gpucluster_partition.storage
  }
  # UFM runs the subnet manager and owns the partitions: no hosts, no OpenSM file pushed.
  subnet_manager = { kind = "ufm" }
}

# What UFM holds for each partition, one line each (the plan shows drift here).
output "ufm_partitions" {
  value = gpucluster_fabric.pod.ufm_partitions
}
