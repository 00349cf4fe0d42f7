package firstlight

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// brownfield is examples/clusters/brownfield's committed floor: 2 SU of DGX H100 cabled by hand
// with its own names, one node's first two rails swapped and one uplink dead (asbuilt's doc).
func brownfield(t *testing.T) *fabric.Spec {
	t.Helper()
	dir := filepath.Join("..", "..", "examples", "clusters", "brownfield", "floor")
	l, err := asbuilt.LoadFile(filepath.Join(dir, "ibnetdiscover.out"), filepath.Join(dir, "node-name-map"), asbuilt.ReadOptions{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	return l.Floor.Spec
}

func endOf(e bom.CableEnd) fabric.End {
	name := e.Device
	if e.HCA != "" {
		name = e.HCA
	}
	return fabric.End{Device: name, Port: e.Port}
}

// carryOut applies a work order to the floor as technicians would: the devices the fitted design
// has and the floor lacks are installed (as the fitted spec names them), each removal unplugs
// its cable, each move takes the cable off the port it leaves and onto the row's, each add plugs
// a new one.
func carryOut(t *testing.T, floor, fitted *fabric.Spec, changes []bom.Change) *fabric.Spec {
	t.Helper()
	out := &fabric.Spec{Switches: append([]fabric.Switch(nil), floor.Switches...), Nodes: append([]fabric.Node(nil), floor.Nodes...),
		HCAs: append([]fabric.HCA(nil), floor.HCAs...)}
	have := map[string]bool{}
	for _, s := range floor.Switches {
		have[s.Name] = true
	}
	for _, n := range floor.Nodes {
		have[n.Name] = true
	}
	for _, h := range floor.HCAs {
		have[h.Name] = true
	}
	for _, s := range fitted.Switches {
		if !have[s.Name] {
			s.Rack, s.PositionU, s.Role, s.Group = "", 0, "", ""
			out.Switches = append(out.Switches, s)
		}
	}
	for _, n := range fitted.Nodes {
		if !have[n.Name] {
			n.Rack, n.PositionU = "", 0
			out.Nodes = append(out.Nodes, n)
		}
	}
	for _, h := range fitted.HCAs {
		if !have[h.Name] {
			h.Rail = -1
			out.HCAs = append(out.HCAs, h)
		}
	}
	cables := map[[2]fabric.End]bool{}
	key := func(a, b fabric.End) [2]fabric.End {
		if b.String() < a.String() {
			a, b = b, a
		}
		return [2]fabric.End{a, b}
	}
	for _, c := range floor.Cables {
		cables[key(c.A, c.B)] = true
	}
	take := func(a, b fabric.End) {
		k := key(a, b)
		if !cables[k] {
			t.Fatalf("the work order takes %s <-> %s, which the floor does not have", a, b)
		}
		delete(cables, k)
	}
	for _, c := range changes {
		switch c.Action {
		case bom.ChangeRemove:
			take(endOf(c.Row.A), endOf(c.Row.B))
		case bom.ChangeMove:
			take(endOf(c.Prior.A), endOf(c.Prior.B))
			cables[key(endOf(c.Row.A), endOf(c.Row.B))] = true
		case bom.ChangeAdd:
			cables[key(endOf(c.Row.A), endOf(c.Row.B))] = true
		}
	}
	for k := range cables {
		out.Cables = append(out.Cables, fabric.Cable{A: k[0], B: k[1]})
	}
	sort.Slice(out.Cables, func(i, j int) bool { return out.Cables[i].Label() < out.Cables[j].Label() })
	return out
}

// TestBrownfieldGrowth: the brownfield floor against its own 2-SU design fitted to it names its
// two faults as the technician fixes them: the node's swapped rails as one swap, the dead uplink
// as one plug; grown to 4 SU, the work order (asbuilt's: 1,025 adds and 257 moves) carried out
// on the floor validates clean within its scope and as a whole.
func TestBrownfieldGrowth(t *testing.T) {
	cat := catalog.Default()
	floor := brownfield(t)
	for _, sus := range []int{2, 4} {
		gen, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: sus, PlannedScalableUnits: sus}, cat)
		if err != nil {
			t.Fatal(err)
		}
		fit, err := asbuilt.Fit(gen, floor, cat)
		if err != nil {
			t.Fatal(err)
		}
		changes, err := fit.WorkOrder(cat)
		if err != nil {
			t.Fatal(err)
		}
		csv, err := bom.ChangesCSV(changes)
		if err != nil {
			t.Fatal(err)
		}
		scope, err := ParseScope(csv)
		if err != nil {
			t.Fatal(err)
		}
		judge := func(f *fabric.Spec, sc *Scope) *Result {
			m, err := FitMatch(gen, fit.Spec, f, cat)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Validate(Input{Design: fit.Spec, Floor: f, Match: m, Scope: sc, Catalog: cat})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		adds, moves := 0, 0
		for _, c := range changes {
			switch c.Action {
			case bom.ChangeAdd:
				adds++
			case bom.ChangeMove:
				moves++
			}
		}
		if sus == 2 {
			// before: the work order's two moves are the swapped rails, its add the dead uplink
			r := judge(floor, scope)
			var acts []string
			for _, row := range r.Rows {
				acts = append(acts, row.Action)
			}
			sort.Strings(acts)
			if moves != 2 || adds != 1 || strings.Join(acts, ",") != "plug,swap" {
				t.Fatalf("2 SU before the work: %d moves, %d adds; rows %v\n%s", moves, adds, keys(r.Rows), Report(r.Summary, r.Rows))
			}
			want := Summary{Expected: 3, Swapped: 2, Missing: 1, OutsideScope: len(fit.Spec.Cables) - 3}
			if r.Summary != want {
				t.Errorf("2 SU before: summary %+v, want %+v", r.Summary, want)
			}
		}
		t.Logf("%d SU: %d rows in the work order, %d adds, %d moves", sus, len(changes), adds, moves)
		after := carryOut(t, floor, fit.Spec, changes)
		r := judge(after, scope)
		if len(r.Rows) != 0 || !r.Summary.Passed() || r.Summary.Expected != adds+moves || r.Summary.OK != adds+moves {
			t.Errorf("%d SU after the work order (%d adds, %d moves): %+v\n%s", sus, adds, moves, r.Summary, Report(r.Summary, r.Rows))
		}
		whole := judge(after, nil)
		if len(whole.Rows) != 0 || whole.Summary.OK != len(fit.Spec.Cables) {
			t.Errorf("%d SU after, whole fabric: %+v\n%s", sus, whole.Summary, Report(whole.Summary, whole.Rows))
		}
	}
}

// TestBrownfieldGrowthInIBSim: the 4-SU work order carried out on the brownfield floor, loaded in
// ibsim and read back with the real ibnetdiscover, validates clean within the work order.
func TestBrownfieldGrowthInIBSim(t *testing.T) {
	testrig.RequirePeers(t)
	cat := catalog.Default()
	floor := brownfield(t)
	gen, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 4, PlannedScalableUnits: 4}, cat)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := asbuilt.Fit(gen, floor, cat)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := fit.WorkOrder(cat)
	if err != nil {
		t.Fatal(err)
	}
	csv, err := bom.ChangesCSV(changes)
	if err != nil {
		t.Fatal(err)
	}
	scope, err := ParseScope(csv)
	if err != nil {
		t.Fatal(err)
	}
	read := discover(t, carryOut(t, floor, fit.Spec, changes)).Floor.Spec
	m, err := FitMatch(gen, fit.Spec, read, cat)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Validate(Input{Design: fit.Spec, Floor: read, Match: m, Scope: scope, Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 0 || r.Summary.Expected != scope.Rows || r.Summary.OK != scope.Rows {
		t.Errorf("after the work order, read by ibnetdiscover: %+v (work order %d rows)\n%s", r.Summary, scope.Rows, Report(r.Summary, r.Rows))
	}
}
