# Terraform 1.12+ and OpenTofu 1.12+: the rack by its name. A rack has nothing to read back, so
# the first apply records row, position and the budgets from the configuration (an in-place
# update that changes nothing on the floor).
import {
  to       = gpucluster_rack.net
  identity = { name = "r03" }
}
