# Terraform 1.12+ and OpenTofu 1.12+: the HCA by its node and RDMA device; its name defaults to
# NODE/DEVICE. With firmware_settings in the configuration, the first apply queries the card
# with mlxconfig and sets only what differs.
import {
  to       = gpucluster_hca.gpu001_mlx5_0
  identity = { node = "gpu001", device = "mlx5_0" }
}
