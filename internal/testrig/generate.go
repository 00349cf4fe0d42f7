package testrig

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Generate builds the design of p with the default catalog and its graph (from the design's
// FabricSpec, so g.Spec carries the generator's groups as a fabric given the design gets them),
// failing the test when either refuses: for tests whose subject is what a generated fabric turns
// into (scheduler files, diagrams), not the generator.
func Generate(t TB, p topogen.Params) (*topogen.Design, *fabric.Graph) {
	t.Helper()
	cat := catalog.Default()
	d, err := topogen.Generate(p, cat)
	if err != nil {
		t.Fatalf("topogen.Generate: %v", err)
	}
	g, probs := fabric.Build(d.FabricSpec(), cat)
	if fabric.HasErrors(probs) {
		t.Fatalf("fabric.Build: %v", probs)
	}
	return d, g
}
