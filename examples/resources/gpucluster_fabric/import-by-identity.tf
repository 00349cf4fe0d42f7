# Terraform 1.12+ and OpenTofu 1.12+: the fabric by its name. The first apply records its inputs
# and pushes its OpenSM files, leaving subnet manager hosts that already have them alone.
import {
  to       = gpucluster_fabric.compute
  identity = { name = "compute" }
}
