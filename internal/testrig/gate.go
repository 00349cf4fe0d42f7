package testrig

import (
	"os"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testgate"
)

// PeersEnv names the variable that asks for the tests that start real peer programs (sshd, ibsim
// with OpenSM and the infiniband-diags, ipmi_sim and ipmitool, slurmctld, dot, chromium). `make
// testacc` and `make check` set it; `make test`, the fast loop, does not.
const PeersEnv = testgate.PeersEnv

// PeersAsked reports whether this run asks for the peer tests: GPUCLUSTER_PEERS=1, or TF_ACC set
// (an acceptance run runs everything, so `TF_ACC=1 go test ./provider -run TestAccX` keeps
// working for a test that needs a peer).
func PeersAsked() bool { return testgate.Full() }

// RequirePeers is the first line of every test that starts a peer program. When the run does not
// ask for peers it skips the test, so that `make test` needs nothing but Go and terraform; in CI
// (CI set) it fails instead, so a CI run can never pass by running none of them. A skip here
// means "not asked for", never "not installed": once asked, a missing program still fails the
// test (Need, SSHDPath), naming the Debian package.
//
// The in-process Redfish service (StartRedfish) is Go and needs no package: tests that use only
// it run in the fast loop and do not call RequirePeers.
func RequirePeers(t testing.TB) {
	t.Helper()
	if PeersAsked() {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s=1 (or TF_ACC=1) must be set in CI: this test runs against real peers", PeersEnv)
	}
	t.Skipf("starts real peers: set %s=1 (make testacc and make check do)", PeersEnv)
}

// mustBeAsked keeps the gate honest: under `go test`, looking up a peer program in a run that did
// not ask for peers means the test forgot RequirePeers, and it fails saying so rather than
// starting the peer (or failing on a machine that has none). Outside tests (cmd/gpucluster-sim,
// `make demo`) it does nothing.
func mustBeAsked(t TB, program string) {
	t.Helper()
	if testing.Testing() && !PeersAsked() {
		t.Fatalf("this test runs %s, a peer program, without asking for peers: call testrig.RequirePeers(t) first", program)
	}
}
