# A DGX H100: compute_hcas (8) and hca_devices (mlx5_0 ... mlx5_7) come from the model.
resource "gpucluster_node" "gpu001" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
  ssh_host   = "gpu001.mgmt.example"
}

# An HGX build with one compute HCA per GPU pair, which the kernel numbers after two storage
# ports.
resource "gpucluster_node" "hgx001" {
  name         = "hgx001"
  model        = "HGX-H100"
  rack         = "r02"
  position_u   = 2
  compute_hcas = 4
  hca_devices  = ["mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5"]
}

# A node brought up through its BMC. The credentials to log in with come from the provider's
# bmc = { username, password } block; the node says only where its BMC is and how to trust it.
resource "gpucluster_node" "gpu002" {
  name       = "gpu002"
  rack       = "r01"
  position_u = 10
  ssh_host   = "gpu002.mgmt.example"

  bmc = {
    endpoint   = "gpu002-bmc.mgmt.example"
    tls_ca_pem = file("${path.module}/bmc-ca.pem")
    # protocols = ["redfish", "ipmi"]   # the default: IPMI only when Redfish does not answer
  }

  power_state = "on"
  # Install over the network at the next boot, in UEFI mode; a used-up one-time override is
  # not drift.
  boot_device = { device = "pxe" }

  # Accounts to create; the passwords are write-only (never in the state). Bump
  # password_version to set a new one. An account taken out of the list is removed from the BMC.
  bmc_users = [{
    name             = "ops"
    role             = "Operator"
    password         = var.ops_bmc_password
    password_version = "1"
  }]

  # Redfish BIOS attributes; they apply at the next host reset, which reset_after_bios makes
  # the apply trigger on a running host ("none", the default, leaves it to whoever reboots).
  bios_settings = {
    ProcHyperthreading = "Disabled"
    NumaNodesPerSocket = "4"
  }
  reset_after_bios = "graceful"

  # The site's qualified firmware: refresh reads the running versions from the BMC's Redfish
  # FirmwareInventory, and a node off the baseline plans as an update, which apply installs
  # through UpdateService.SimpleUpdate (the BMC fetches the image) and reads back.
  firmware = {
    bmc  = "25.01.03"
    bios = "1.7.0"
    images = {
      bmc  = "https://images.mgmt.example/dgx-h100/bmc-25.01.03.bin"
      bios = "https://images.mgmt.example/dgx-h100/bios-1.7.0.bin"
    }
  }

  timeouts {
    create = "30m"
  }
}

variable "ops_bmc_password" {
  type      = string
  sensitive = true
  ephemeral = true # write-only attributes take ephemeral values (Terraform 1.11+)
}

# A node on an IPMI-only BMC, with credentials of its own (kept in the state: use an encrypted
# state backend).
resource "gpucluster_node" "gpu003" {
  name       = "gpu003"
  rack       = "r01"
  position_u = 18

  bmc = {
    endpoint  = "10.0.10.3"
    protocols = ["ipmi"]
    username  = "ADMIN"
    password  = var.gpu003_bmc_password
  }
  power_state = "on"
  boot_device = { device = "disk", persistent = true }
}

variable "gpu003_bmc_password" {
  type      = string
  sensitive = true
}
