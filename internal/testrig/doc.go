// Package testrig starts and stops the real peers that the tests talk to: an OpenSSH server on
// loopback, ibsim with OpenSM and the infiniband-diags, ipmi_sim, and a Redfish service written
// after the DMTF schema. Tests import it, and so does cmd/gpucluster-sim, which starts the same
// peers as a simulated cluster for `make demo` (cluster.go).
//
// Invariants:
//   - Every peer runs in its own temporary directory with its own ports and socket names, so
//     tests can run in parallel and never meet a peer of another test.
//   - A peer is stopped by its PID (process group), never by name, when the test ends
//     (t.Cleanup), whether the test passed or not.
//   - A missing program fails the test with the Debian package to install; it never skips.
package testrig
