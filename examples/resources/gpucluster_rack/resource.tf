# Racks sit on a grid: `row` and `position` give the cable runs between them.
resource "gpucluster_rack" "net" {
  name     = "r03"
  row      = 1
  position = 3
  units    = 48
  power_kw = 20
}
