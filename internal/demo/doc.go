// Package demo runs the provider's main job end to end on a simulated cluster (testrig.Cluster):
// it plans and applies an example against real peers on loopback, shows what changed on each
// peer, plans again (no changes), reads every node's firmware and updates one BMC through Redfish
// (firmware.go), runs first light (firstlight.go), injects three faults behind Terraform's back
// (a cable unplugged in ibsim, a hand edit of partitions.conf on the SM host, a node powered off
// through its BMC), shows the next plan finding each, applies again and shows what Terraform repaired and
// what it cannot (the cable). Then day 2 (day2.go): symbol errors climb on another cable and the
// plan's check names it with its rate and where it is; it fails, is recorded in failed_cables
// and a partition change applies while it is down; it is replaced (link up, counters cleared)
// and leaves the list. It destroys, proves that no file it wrote holds a credential (leaks.go),
// and stops every peer. `make demo` runs it through cmd/gpucluster-sim; its test runs the same
// scenario in CI.
//
// It drives the terraform binary as a user would (plan, apply, show -json, destroy) and reads
// the peers with their own clients (ipmitool, HTTPS, smpquery, the mlxconfig and flint double), so what
// it prints is what a user would see on the hosts.
//
// Invariants:
//   - Every expectation it prints as met was checked; a step whose expectation fails ends the
//     run with an error naming the step, and the peers are still stopped.
//   - A terraform command is bounded by its progress (stallLimit: minutes without a line of output
//     other than Terraform's heartbeat), not by a wall time: a loaded machine slows the demo down
//     but cannot fail it, and a command that hangs still ends the run.
//   - Secrets never leave their stores. Terraform gets one, the fleet's BMC password, for the
//     provider's bmc block (a sensitive variable in a file of mode 0600); each BMC's own password
//     serves only the demo's checks of that BMC; the SSH key is a file of mode 0600. No log, plan
//     file, state or printed line holds any of them, and the last step proves it by searching
//     every file it wrote (FindLeaks).
package demo
