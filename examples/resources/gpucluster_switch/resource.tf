# A leaf switch of the compute fabric. `role` is left to the fabric, which infers it from the
# cabling (a switch one hop from an HCA is a leaf).
resource "gpucluster_switch" "leaf01" {
  name       = "leaf01"
  model      = "QM9700"
  rack       = "r03"
  position_u = 20
  guid       = "0x0002c903000a0001"
}

# A spine of a dragonfly+ group, with its role stated.
resource "gpucluster_switch" "g1_spine01" {
  name       = "g1-spine01"
  rack       = "r03"
  position_u = 30
  role       = "spine"
  group      = "g1"
  guid       = "0x0002c903000b0001"
}
