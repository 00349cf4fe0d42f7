package plan

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// handFloor is a floor built from a design by hand: every device under its own name (switches
// "ib-" + name, nodes "hgx-" + name), no racks (ibnetdiscover knows none), less the node
// `absentNode` with its HCAs and cables and less the cable keyed `absentCable`.
func handFloor(t *testing.T, d *topogen.Design, absentNode, absentCable string) *fabric.Spec {
	t.Helper()
	s := d.Spec()
	out := &fabric.Spec{}
	name := map[string]string{}
	for _, sw := range s.Switches {
		sw.Name, sw.Rack, sw.PositionU, sw.Ref = "ib-"+sw.Name, "", 0, fabric.Ref{}
		sw.Key = sw.Name
		out.Switches = append(out.Switches, sw)
	}
	for _, n := range s.Nodes {
		if n.Name == absentNode {
			continue
		}
		n.Name, n.Rack, n.PositionU, n.Ref = "hgx-"+n.Name, "", 0, fabric.Ref{}
		n.Key = n.Name
		out.Nodes = append(out.Nodes, n)
	}
	for _, h := range s.HCAs {
		if h.Node == absentNode {
			continue
		}
		old := h.Name
		h.Node = "hgx-" + h.Node
		h.Name = fabric.HCAName(h.Node, h.Device)
		h.Ref = fabric.Ref{Key: h.Name}
		name[old] = h.Name
		out.HCAs = append(out.HCAs, h)
	}
	end := func(e fabric.End) (fabric.End, bool) {
		if n, ok := name[e.Device]; ok {
			return fabric.End{Device: n, Port: e.Port}, true
		}
		if _, sw := d.Switches[e.Device]; sw {
			return fabric.End{Device: "ib-" + e.Device, Port: e.Port}, true
		}
		return e, false // an HCA of the absent node
	}
	for key, c := range d.Cables {
		a, okA := end(c.A)
		b, okB := end(c.B)
		if key == absentCable || !okA || !okB {
			continue
		}
		out.Cables = append(out.Cables, fabric.Cable{Ref: fabric.Ref{Key: a.String()}, A: a, B: b})
	}
	return out
}

// TestAdoptionBuysWhatTheFloorLacks: a design fitted to a floor at the floor's own size buys what
// the floor lacks (here one node and the cables it had, and one uplink), not the floor again;
// the node is named as not on the floor. The expected counts come from the floor and the design
// themselves.
func TestAdoptionBuysWhatTheFloorLacks(t *testing.T) {
	cat := catalog.Default()
	p := topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2, PlannedScalableUnits: 2}
	d, err := topogen.Generate(p, cat)
	if err != nil {
		t.Fatal(err)
	}
	floor := handFloor(t, d, "gpu032", "leaf01:33")
	f, ps := Build(cat, Inputs{Design: &p, AsBuilt: floor})
	if f == nil || f.Fit == nil {
		t.Fatalf("%v", ps)
	}
	out := Run(cat, f, Request{Policy: policy.Policy{Preset: policy.PresetTrainingLarge}})
	beyond := out.BOM.BeyondFloor
	if beyond == nil {
		t.Fatal("no purchase relative to the floor")
	}
	toBuy := map[string]int{}
	for _, it := range beyond.Items {
		toBuy[it.Category] += it.ToBuy
	}
	wantNodes := len(d.NodeList) - len(floor.Nodes)
	wantSwitches := len(d.SwitchList) - len(floor.Switches)
	wantCables := len(d.CableList) - len(floor.Cables)
	if wantNodes != 1 || wantCables != 9 {
		t.Fatalf("the floor lacks %d nodes and %d cables; the test wants 1 and 9", wantNodes, wantCables)
	}
	if toBuy[bom.CategoryNode] != wantNodes || toBuy[bom.CategorySwitch] != wantSwitches || toBuy[bom.CategoryCable] != wantCables {
		t.Errorf("to buy: %d nodes, %d switches, %d cables; want %d, %d, %d (%+v)", toBuy[bom.CategoryNode], toBuy[bom.CategorySwitch],
			toBuy[bom.CategoryCable], wantNodes, wantSwitches, wantCables, beyond.Items)
	}
	// The absent node keeps the floor's naming (prefix and its slot's number), under a name no
	// floor device has.
	if len(beyond.Absent) != 1 || beyond.Absent[0] != "hgx-gpu032" || floor.NodeNamed(beyond.Absent[0]) != nil {
		t.Errorf("not on the floor: %v; want the one absent node, hgx-gpu032 as the floor's names go on", beyond.Absent)
	}
	s := Summarize(nil, out)
	for _, want := range []string{
		"Not on the floor: 1 device(s): " + beyond.Absent[0] + "\n",
		"Buy: +1 node ",
		"(" + itoaCount(len(floor.Nodes)) + " -> " + itoaCount(len(d.NodeList)) + ")",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the summary lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Buy: +"+itoaCount(len(d.SwitchList))) || strings.Contains(s, " switch ") {
		t.Errorf("the summary buys switches the floor has:\n%s", s)
	}
}

func itoaCount(n int) string { return bom.Count(n) }
