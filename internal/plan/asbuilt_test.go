package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// brownfieldFloor is examples/clusters/brownfield's committed floor: 2 SU of DGX H100 cabled by
// hand (own names, uplinks blocked by spine, one rail swap, one dead uplink), as ibnetdiscover
// printed it.
func brownfieldFloor(t *testing.T) *fabric.Spec {
	t.Helper()
	dir := filepath.Join("..", "..", "examples", "clusters", "brownfield", "floor")
	topo, err := os.ReadFile(filepath.Join(dir, "ibnetdiscover.out"))
	if err != nil {
		t.Fatal(err)
	}
	names, err := os.ReadFile(filepath.Join(dir, "node-name-map"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := opensm.ParseTopology(string(topo))
	if err != nil {
		t.Fatal(err)
	}
	nm, err := opensm.ParseNodeNameMap(string(names))
	if err != nil {
		t.Fatal(err)
	}
	f, err := asbuilt.Read(d, asbuilt.ReadOptions{NodeNameMap: nm, Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	return f.Spec
}

// TestAsBuiltThroughThePipeline: a design with the floor builds the fitted fabric (the floor's
// names), the policy judges it, and the summary says per tier what the floor keeps, moves and
// adds: at 2 SU the two swapped rail cables move and the dead uplink is added; grown to 4 SU
// (re-planned at 4) each leaf keeps 2 of its 4 links to each old spine (16 x 8 x 2 = 256).
func TestAsBuiltThroughThePipeline(t *testing.T) {
	cat := catalog.Default()
	floor := brownfieldFloor(t)
	for _, c := range []struct {
		sus   int
		lines []string
	}{
		{2, []string{"Floor node-leaf: 510 kept, 2 moved, 0 added, 0 removed\n", "Floor leaf-spine: 511 kept, 0 moved, 1 added, 0 removed\n"}},
		{4, []string{"Floor node-leaf: 510 kept, 2 moved, 512 added, 0 removed\n", "Floor leaf-spine: 256 kept, 255 moved, 513 added, 0 removed\n"}},
	} {
		p := topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: c.sus, PlannedScalableUnits: c.sus}
		f, ps := Build(cat, Inputs{Design: &p, AsBuilt: floor})
		if f == nil || f.Fit == nil {
			t.Fatalf("%d SU: %v", c.sus, ps)
		}
		if _, ok := f.Graph.Lookup("ib-leaf-01"); !ok {
			t.Fatalf("%d SU: the fitted fabric lost the floor's names", c.sus)
		}
		out := Run(cat, f, Request{Policy: policy.Policy{Preset: policy.PresetTrainingLarge}, OpenSM: &OpenSMSettings{}})
		if out.Problems.HasErrors() {
			t.Fatalf("%d SU: %v", c.sus, out.Problems)
		}
		s := Summarize(nil, out)
		for _, want := range c.lines {
			if !strings.Contains(s, want) {
				t.Errorf("%d SU: the summary lacks %q:\n%s", c.sus, want, s)
			}
		}
		r := f.Fit.Report
		if r.LinksKept != r.LinksKeptMax {
			t.Errorf("%d SU: kept %d of at most %d", c.sus, r.LinksKept, r.LinksKeptMax)
		}
	}
}
