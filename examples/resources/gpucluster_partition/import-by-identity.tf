# Terraform 1.12+ and OpenTofu 1.12+: the partition by its name; the key and members come from
# the configuration at the first apply (the fabric's refresh reads partitions.conf back).
import {
  to       = gpucluster_partition.tenant_a
  identity = { name = "tenant-a" }
}

# With the provider's ufm: a name the gpucluster_partition list resource gives imports that PKey
# as UFM holds it.
import {
  to       = gpucluster_partition.legacy
  identity = { name = "legacy" }
}
