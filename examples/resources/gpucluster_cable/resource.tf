# A node link from a leaf to an HCA. Kind and length are left to the fabric, which estimates the
# run from the rack positions and picks the cheapest cable that reaches; sku stays null.
resource "gpucluster_cable" "gpu001_mlx5_0" {
  a = { device = "leaf01", port = 1 }
  b = { device = "gpu001/mlx5_0", port = 1 }
}

# An uplink with its kind and length: the label is "leaf01:33 <-> spine01:1" and the sku
# "MFP7E10-N010" (the shortest standard multimode fiber that covers 8 m).
resource "gpucluster_cable" "leaf01_33" {
  a        = { device = "leaf01", port = 33 }
  b        = { device = "spine01", port = 1 }
  kind     = "fiber-mm"
  length_m = 8
}
