# Every cable of the floor, identified by its label; read live from the SM host over SSH
# (the provider's ssh block has the user, key and known_hosts).
list "gpucluster_cable" "floor" {
  provider         = gpucluster
  include_resource = true
  limit            = 100000

  config {
    host = "sm01.mgmt.example"
  }
}
