terraform {
  required_providers {
    gpucluster = {
      source = "gpucluster/gpucluster"
    }
  }
}

provider "gpucluster" {
  # Your own models and prices, layered over the built-in catalog.
  catalog_files = ["catalog/site.hcl"]

  # Fleet defaults for subnet manager hosts and in-band work on nodes.
  ssh = {
    user             = "fabric"
    private_key      = file("~/.ssh/fabric_ed25519")
    known_hosts_file = pathexpand("~/.ssh/known_hosts") # the provider reads it as given: no ~
  }

  # Fleet default BMC credentials; a node's own `bmc` block overrides them.
  bmc = {
    username = "admin"
    password = var.bmc_password
  }
}

variable "bmc_password" {
  type      = string
  sensitive = true
}
