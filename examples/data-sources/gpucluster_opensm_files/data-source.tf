# The texts of the OpenSM files a fabric pushes, for review and CI artifacts: gpucluster_fabric
# keeps only a digest per file in its `opensm` output, so its plan stays short. Give the data
# source the fabric's inputs and the same subnet_manager object (Terraform drops the attributes
# that do not change the files), and its files hash to the fabric's digests.
data "gpucluster_topology" "pod" {
  kind           = "rail-optimized"
  scalable_units = 1
}

locals {
  subnet_manager = {
    hosts            = ["sm01.example.net", "sm02.example.net"]
    known_hosts_file = "${path.module}/known_hosts"
    routing_engine   = "ftree"
    options          = { sweep_interval = "10" }
  }
}

resource "gpucluster_fabric" "pod" {
  name           = "pod"
  design         = data.gpucluster_topology.pod.design
  subnet_manager = local.subnet_manager
}

data "gpucluster_opensm_files" "pod" {
  design         = data.gpucluster_topology.pod.design
  subnet_manager = local.subnet_manager
}

# opensm.conf, partitions.conf, root_guids.conf, cn_guids.conf, node-name-map: the exact texts
# (for a CI artifact: `terraform output -json opensm_files | jq -r '."partitions.conf"'`).
output "opensm_files" {
  value = data.gpucluster_opensm_files.pod.files
}

# The same bytes the fabric pushes: sha256(files[name]) is opensm[name].sha256.
check "opensm_files_match" {
  assert {
    condition = alltrue([for name, text in data.gpucluster_opensm_files.pod.files :
    sha256(text) == gpucluster_fabric.pod.opensm[name].sha256])
    error_message = "gpucluster_opensm_files renders other files than the fabric: give both the same inputs."
  }
}

# The declared fabric in ibnetdiscover format: `ibsim -s` loads it as is.
output "expected_topology" {
  value = data.gpucluster_opensm_files.pod.expected_topology
}
