# The fabric takes maps keyed by name: for_each'd resources as they are (or plain objects of the
# same shape, such as the maps of data.gpucluster_topology), and judges them at plan time. An
# item's name is its `name`, or its key where it has none.
resource "gpucluster_fabric" "compute" {
  name       = "compute"
  racks      = gpucluster_rack.all
  switches   = gpucluster_switch.all
  nodes      = gpucluster_node.all
  hcas       = gpucluster_hca.all
  cables     = gpucluster_cable.all
  partitions = gpucluster_partition.all

  policy = {
    preset               = "training-large" # 1:1 at every tier, full bisection
    max_oversubscription = 1.0              # overrides the preset
    min_bisection_ratio  = 1.0
    # Mean share of full bisection that random bisection patterns get under the static routes of
    # routing_engine (analysis.effective_bisection): about 0.68 for 512 GPUs under ftree.
    min_effective_bisection_ratio = 0.6
  }
  policy_files = ["${path.module}/policy/fabric.hcl"] # custom `rule` blocks

  workload = {
    parameters               = 70e9
    gradient_bytes_per_param = 1 # FP8 gradients
  }

  # Apply pushes the rendered OpenSM files (digests in the `opensm` output) to the SM hosts, primary
  # first, then verifies from the OpenSM log that the intended routing engine configured the
  # switches, and rolls that host back if not. Refresh reads the files back from sm01, so a
  # hand edit there shows in the next plan.
  subnet_manager = {
    hosts            = ["sm01.example.net", "sm02.example.net"] # primary, standby
    ssh_user         = "opensm-admin"
    known_hosts_file = "${path.module}/known_hosts" # host keys are always checked
    # ssh_private_key = file("~/.ssh/sm_ed25519")    # sensitive, kept in state: encrypt state

    routing_engine = "ftree" # default: chosen from the topology
    options = {
      sm_priority    = "14"
      sweep_interval = "10"
    }

    # Debian runs one opensm@<port GUID> unit per port; name the instance, or give commands:
    service  = "opensm@0x0002c90300a1b2c3.service"
    log_file = "/var/log/opensm.0x0002c90300a1b2c3.log"
    # start_command  = "sudo systemctl start opensm"
    # stop_command   = "sudo systemctl stop opensm"
    # reload_command = "sudo systemctl kill --signal=HUP --kill-whom=main opensm"
    # status_command = "systemctl is-active --quiet opensm"
  }

  timeouts {
    create = "30m"
    update = "30m"
  }
}

# A digest per file the SM hosts receive (sha256, bytes, lines); a hand edit on sm01 plans as a
# change of that file's digest. The texts: data "gpucluster_opensm_files" with the same inputs.
output "partitions_conf_sha256" {
  value = gpucluster_fabric.compute.opensm["partitions.conf"].sha256
}

# A generated design instead of thousands of items: the plan shows these few lines. Items of the
# maps merge with it by name (a generated name replaces the generated item, a new name adds).
data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = 2
  planned_scalable_units = 4
  items                  = [] # only the design is wanted here
}

resource "gpucluster_fabric" "pod" {
  name          = "pod"
  design        = data.gpucluster_topology.pod.design
  absent_cables = ["leaf01:33", "gpu017/mlx5_3:1 <-> leaf04:17"] # not cabled yet, or failed
  partitions    = gpucluster_partition.all
  policy        = { preset = "training-large" }
}
