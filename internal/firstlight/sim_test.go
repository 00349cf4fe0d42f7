package firstlight

import (
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// startDesignSim loads a built fabric into ibsim (opensm.ExpectedTopology, the net file ibsim
// reads).
func startDesignSim(t *testing.T, g *fabric.Graph) *testrig.IBSim {
	t.Helper()
	return testrig.StartIBSim(t, opensm.ExpectedTopology(g))
}
