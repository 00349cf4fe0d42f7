# Terraform 1.12+ and OpenTofu 1.12+: the cable by its label, which holds both ends, so an
# import of a cable without kind and length plans no change at all.
import {
  to       = gpucluster_cable.gpu001_mlx5_0
  identity = { label = "leaf01:1 <-> gpu001/mlx5_0:1" }
}
