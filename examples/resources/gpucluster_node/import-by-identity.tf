# Terraform 1.12+ and OpenTofu 1.12+: the node by its name, with the model's default HCAs. With
# `bmc` in the configuration, the first apply reaches the BMC and every refresh after it reads
# the power, boot override, accounts and BIOS back.
import {
  to       = gpucluster_node.gpu001
  identity = { name = "gpu001" }
}
