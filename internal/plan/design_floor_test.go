package plan

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// node_count left out on a partly built floor (issue 27's trial: 40 slots of 2 SU built, dgx032
// absent, as the real ibnetdiscover read it): adopted at its size the design has the floor's 40
// nodes and adds only the absent node's 8 cables; grown to 4 SU it fills the new units (128).
func TestDesignNodeCountOfAPartlyBuiltFloor(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "asbuilt", "testdata", "trial-floor.ibnetdiscover"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := opensm.ParseTopology(string(text))
	if err != nil {
		t.Fatal(err)
	}
	floor, err := asbuilt.Read(d, asbuilt.ReadOptions{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sus, nodes, added int }{{2, 40, 8 + 1}, {4, 128, -1}} {
		des, fit, ps := Design(catalog.Default(), topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: c.sus, PlannedScalableUnits: c.sus}, floor.Spec, "")
		if ps.HasErrors() {
			t.Fatal(ps)
		}
		if len(des.NodeList) != c.nodes || des.Params.Nodes != c.nodes && c.sus == 2 {
			t.Errorf("%d SU: %d nodes (node_count %d), want %d", c.sus, len(des.NodeList), des.Params.Nodes, c.nodes)
		}
		if c.added >= 0 && fit.Report.LinksAdded != c.added {
			t.Errorf("%d SU: %d links added, want the absent node's 8 and the missing uplink", c.sus, fit.Report.LinksAdded)
		}
	}
}
