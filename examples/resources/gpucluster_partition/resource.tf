# The compute partition: every HCA port and the subnet manager, with an IPoIB broadcast group at
# 4096 bytes and 400 Gb/s.
resource "gpucluster_partition" "compute" {
  name  = "compute"
  pkey  = "0x0001"
  ipoib = true
  mtu   = 4096
  rate  = 400
  members = [
    { guid = "ALL_CAS" },
    { guid = "SELF" },
  ]
}

# A tenant partition: two HCAs by name, and a storage port that may only talk to full members.
resource "gpucluster_partition" "tenant_a" {
  name = "tenant-a"
  pkey = "0x0101"
  sl   = 1
  members = [
    { hca = "gpu001/mlx5_0" },
    { hca = "gpu001/mlx5_1" },
    { guid = "0x0002c90300ff0001", membership = "limited" },
  ]
}
