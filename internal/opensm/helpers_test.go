package opensm

import (
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

var fatTreeSpec = testrig.FatTreeSpec

func buildGraph(t testing.TB, s *fabric.Spec) *fabric.Graph {
	t.Helper()
	return testrig.BuildGraph(t, s)
}

// hcaGUID is the declared port GUID of HCA number h of fatTreeSpec.
func hcaGUID(h int) GUID { return GUID(0x0002c90300100001 + 0x10*h) }
