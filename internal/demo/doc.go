// Package demo runs the provider's main job end to end on a simulated cluster (testrig.Cluster):
// it plans and applies an example against real peers on loopback, shows what changed on each
// peer, plans again (no changes), injects three faults behind Terraform's back (a cable
// unplugged in ibsim, a hand edit of partitions.conf on the SM host, a node powered off through
// its BMC), shows the next plan finding each, applies again and shows what Terraform repaired and
// what it cannot (the cable), destroys, and stops every peer. `make demo` runs it through
// cmd/gpucluster-sim; its test runs the same scenario in CI.
//
// It drives the terraform binary as a user would (plan, apply, show -json, destroy) and reads
// the peers with their own clients (ipmitool, HTTPS, smpquery, the mlxconfig double), so what
// it prints is what a user would see on the hosts.
//
// Invariants:
//   - Every expectation it prints as met was checked; a step whose expectation fails ends the
//     run with an error naming the step, and the peers are still stopped.
//   - Secrets (the BMC passwords, the SSH key) go only into files of mode 0600 in the work
//     directory and into Terraform variables marked sensitive; nothing prints them.
package demo
