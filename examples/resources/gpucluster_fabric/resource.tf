# The fabric takes the resource objects themselves (or plain objects of the same shape, such as
# the outputs of data.gpucluster_topology) and judges them at plan time.
resource "gpucluster_fabric" "compute" {
  name       = "compute"
  racks      = values(gpucluster_rack.all)
  switches   = values(gpucluster_switch.all)
  nodes      = values(gpucluster_node.all)
  hcas       = values(gpucluster_hca.all)
  cables     = values(gpucluster_cable.all)
  partitions = values(gpucluster_partition.all)

  policy = {
    preset               = "training-large" # 1:1 at every tier, full bisection
    max_oversubscription = 1.0              # overrides the preset
    min_bisection_ratio  = 1.0
  }
  policy_files = ["${path.module}/policy/fabric.hcl"] # custom `rule` blocks

  workload = {
    parameters               = 70e9
    gradient_bytes_per_param = 1 # FP8 gradients
  }
}
