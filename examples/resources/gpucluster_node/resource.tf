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
