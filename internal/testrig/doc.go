// Package testrig starts and stops the real peers that the tests talk to: an OpenSSH server on
// loopback, ibsim with OpenSM and the infiniband-diags, ipmi_sim, and a Redfish service written
// after the DMTF schema. Tests import it, and so does cmd/gpucluster-sim, which starts the same
// peers as a simulated cluster for `make demo` (cluster.go). It also holds the fabrics the tests of
// several packages share (fattree.go).
//
// Invariants:
//   - Every peer runs in its own temporary directory with its own ports and socket names, so
//     tests can run in parallel and never meet a peer of another test.
//   - A peer is stopped by its PID (process group), never by name, when the test ends
//     (t.Cleanup), whether the test passed or not.
//   - A missing program fails the test with the Debian package to install; it never skips.
//   - A test that starts a peer program calls RequirePeers first: it runs when the run asks for
//     peers (GPUCLUSTER_PEERS=1 or TF_ACC, as `make testacc` and `make check` do), skips in the
//     fast loop (`make test`), and fails in CI when not asked for. Looking up a peer program under
//     `go test` without that request fails the test (mustBeAsked), so no test can forget the
//     gate. The in-process Redfish service needs no package and is not gated.
package testrig
