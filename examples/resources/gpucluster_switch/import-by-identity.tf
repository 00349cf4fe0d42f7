# Terraform 1.12+ and OpenTofu 1.12+: the switch by its name. Its model comes from the catalog's
# default; its GUID, rack and unit from the configuration at the first apply. To adopt a whole
# floor, `terraform query` with the gpucluster_switch list resource writes these blocks.
import {
  to       = gpucluster_switch.leaf01
  identity = { name = "leaf01" }
}
