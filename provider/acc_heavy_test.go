package provider

import (
	"os"
	"testing"
)

// accHeavy is the first line of a test that runs the real terraform over a floor or a design of
// many items: it runs in make testacc and CI (TF_ACC=1), not in make test, whose fast loop keeps
// the small terraform runs (resource.UnitTest). It skips before the test's setup is paid, which
// resource.Test alone would not (its arguments are built first), and fails in CI without TF_ACC
// (requireAcc), so no run can pass by skipping it there.
func accHeavy(t *testing.T) {
	t.Helper()
	requireAcc(t)
	if os.Getenv("TF_ACC") == "" {
		t.Skip("real terraform runs over many items: runs in make testacc (TF_ACC=1)")
	}
}
