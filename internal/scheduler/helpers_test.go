package scheduler

import (
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The generated fabrics of issue 12's "done when": a 2-tier and a 3-tier fat tree and the 4-SU
// SuperPOD of RA-11333-001 (31 nodes in SU 1, a UFM slot reserved).
var fabrics = []struct {
	name string
	p    topogen.Params
}{
	{"fat-tree-2tier", topogen.Params{Kind: topogen.KindFatTree, Nodes: 16}},
	{"fat-tree-3tier", topogen.Params{Kind: topogen.KindFatTree, Nodes: 300, Oversubscription: 3, Tiers: 3}},
	{"superpod-4su", topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 4, ReservedNodeSlots: 1, CableKind: catalog.KindFiberMM}},
}

func generate(t testing.TB, p topogen.Params) (*topogen.Design, *fabric.Graph) {
	t.Helper()
	return testrig.Generate(t, p)
}

func mustBuild(t testing.TB, g *fabric.Graph) *Topology {
	t.Helper()
	top, err := Build(g, Options{Groups: g.Spec.Groups})
	if err != nil {
		t.Fatal(err)
	}
	return top
}
