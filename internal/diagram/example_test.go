package diagram

import (
	"os"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// examplePicture is the SVG next to examples/clusters/superpod-4su/README.md.
const examplePicture = "../../examples/clusters/superpod-4su/superpod-4su.svg"

// TestExamplePicture keeps the README's picture what the example's `diagram_svg` output renders:
// the same design arguments (main.tf's gpucluster_topology.pod), the same title
// (outputs-scheduler.tf) and the options gpucluster_diagram uses by default (nodes folded per
// scalable unit, the analysis' highlights with max_oversubscription 1). Regenerate it with
//
//	GPUCLUSTER_UPDATE_PICTURES=1 go test ./internal/diagram -run TestExamplePicture
func TestExamplePicture(t *testing.T) {
	_, g := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 4, ReservedNodeSlots: 1, CableKind: catalog.KindFiberMM})
	dg, err := Build(g, Options{
		Title:      "DGX SuperPOD, 4 scalable units (RA-11333-001)",
		NodeGroups: g.Spec.Groups,
		Highlights: FromAnalysis(analysis.Analyze(g, nil), 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	svg := dg.SVG()
	if os.Getenv("GPUCLUSTER_UPDATE_PICTURES") != "" {
		if err := os.WriteFile(examplePicture, []byte(svg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(examplePicture)
	if err != nil {
		t.Fatalf("%v; generate it with GPUCLUSTER_UPDATE_PICTURES=1 go test ./internal/diagram -run TestExamplePicture", err)
	}
	if string(got) != svg {
		t.Errorf("%s is not what the example renders today; regenerate it with GPUCLUSTER_UPDATE_PICTURES=1 go test ./internal/diagram -run TestExamplePicture", examplePicture)
	}
}
