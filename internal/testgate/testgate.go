// Package testgate says which tests a run asks for. `make test`, the fast loop, runs what needs
// nothing but Go and takes seconds; `make testacc` and `make check` (CI) set GPUCLUSTER_PEERS=1
// and TF_ACC=1 and run everything, including the tests that start real peers (testrig's
// RequirePeers) and the long ones (RequireLong). The union of the two targets is every test:
// a gated test is never skipped by the full run, and in CI (CI set) a run that does not ask for
// it fails instead of skipping, so CI can never pass by running none of them.
//
// It is a leaf package so that the packages testrig itself imports (topogen) can gate their own
// tests.
package testgate

import (
	"os"
	"testing"
)

// PeersEnv names the variable that asks for the full run (see the package doc).
const PeersEnv = "GPUCLUSTER_PEERS"

// Full reports whether this run asks for every test: GPUCLUSTER_PEERS=1, or TF_ACC set (an
// acceptance run runs everything, so `TF_ACC=1 go test ./provider -run TestAccX` keeps working).
func Full() bool {
	return os.Getenv(PeersEnv) == "1" || os.Getenv("TF_ACC") != ""
}

// RequireLong is the first line of a test that is correct and needs nothing but Go, yet costs
// more CPU than the fast loop can afford (a sweep of the largest designs, a budget run to its
// end): `make test` skips it, `make testacc` and CI run it. why says what makes it long.
func RequireLong(t testing.TB, why string) {
	t.Helper()
	if Full() {
		return
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s=1 (or TF_ACC=1) must be set in CI: this test (%s) runs in make testacc", PeersEnv, why)
	}
	t.Skipf("long (%s): runs in make testacc and make check (set %s=1)", why, PeersEnv)
}
