package asbuilt

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

func generate(t testing.TB, p topogen.Params, cat *catalog.Catalog) *topogen.Design {
	t.Helper()
	if cat == nil {
		cat = catalog.Default()
	}
	d, err := topogen.Generate(p, cat)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// relabel turns a design into a floor cabled the same way but under other names, other device
// names, other GUIDs, another port order on every switch and another order of every list, with
// no racks, roles, groups or kinds: what a hand-built copy of the design would read as.
func relabel(s *fabric.Spec, cat *catalog.Catalog, seed int64) *fabric.Spec {
	rng := rand.New(rand.NewSource(seed))
	out := &fabric.Spec{}
	swName := map[string]string{}
	portMap := map[string][]int{}
	tags := rng.Perm(len(s.Switches))
	for i, sw := range s.Switches {
		n := fmt.Sprintf("sw-%04d", tags[i]+7)
		swName[sw.Name] = n
		radix := cat.Switches[sw.Model].Ports
		perm := rng.Perm(radix)
		pm := make([]int, radix+1)
		for p := 1; p <= radix; p++ {
			pm[p] = perm[p-1] + 1
		}
		portMap[sw.Name] = pm
		out.Switches = append(out.Switches, fabric.Switch{Name: n, Model: sw.Model, GUID: fmt.Sprintf("0x%016x", 0xb83fd20300000000+uint64(tags[i])*0x10+1)})
	}
	nodeName := map[string]string{}
	ntags := rng.Perm(len(s.Nodes))
	for i, n := range s.Nodes {
		nodeName[n.Name] = fmt.Sprintf("host%05d", ntags[i]+100)
		out.Nodes = append(out.Nodes, fabric.Node{Name: nodeName[n.Name], Model: n.Model, ComputeHCAs: n.ComputeHCAs})
	}
	devs := map[string]bool{}
	for _, h := range s.HCAs {
		devs[h.Device] = true
	}
	dn := sortedNatural(devs)
	dperm := rng.Perm(len(dn))
	devName := map[string]string{}
	for i, d := range dn {
		devName[d] = fmt.Sprintf("ibp%d", dperm[i]*3)
	}
	hcaName := map[string]string{}
	for i, h := range s.HCAs {
		nn := fabric.HCAName(nodeName[h.Node], devName[h.Device])
		hcaName[h.Name] = nn
		out.HCAs = append(out.HCAs, fabric.HCA{Name: nn, Node: nodeName[h.Node], Device: devName[h.Device], Model: h.Model,
			PortGUID: fmt.Sprintf("0x%016x", 0xa088c20300000000+uint64(i)*0x10+1), Rail: -1})
	}
	end := func(e fabric.End) fabric.End {
		if n, ok := swName[e.Device]; ok {
			return fabric.End{Device: n, Port: portMap[e.Device][e.Port]}
		}
		return fabric.End{Device: hcaName[e.Device], Port: e.Port}
	}
	for _, c := range s.Cables {
		out.Cables = append(out.Cables, fabric.Cable{A: end(c.A), B: end(c.B)})
	}
	rng.Shuffle(len(out.Switches), func(i, j int) { out.Switches[i], out.Switches[j] = out.Switches[j], out.Switches[i] })
	rng.Shuffle(len(out.Nodes), func(i, j int) { out.Nodes[i], out.Nodes[j] = out.Nodes[j], out.Nodes[i] })
	rng.Shuffle(len(out.HCAs), func(i, j int) { out.HCAs[i], out.HCAs[j] = out.HCAs[j], out.HCAs[i] })
	rng.Shuffle(len(out.Cables), func(i, j int) { out.Cables[i], out.Cables[j] = out.Cables[j], out.Cables[i] })
	return out
}

func mustFit(t testing.TB, des *topogen.Design, floor *fabric.Spec, cat *catalog.Catalog) *Fitted {
	t.Helper()
	f, err := Fit(des, floor, cat)
	if err != nil {
		t.Fatal(err)
	}
	checkFitted(t, des, floor, f, cat)
	// Every fit's work order, whatever the test: one a technician can do.
	if tt, ok := t.(*testing.T); ok {
		wo, err := f.WorkOrder(cat)
		if err != nil {
			t.Fatal(err)
		}
		checkWorkOrder(tt, f, wo)
	}
	return f
}

// checkFitted checks what every fit must hold, whatever the floor: the fitted fabric builds;
// it has exactly the design's devices and links (nothing invented, nothing lost); the counts add
// up on both sides; the report's kept count is the number of floor cables on their two floor
// ports in the fitted fabric; kept never exceeds the bound.
func checkFitted(t testing.TB, des *topogen.Design, floor *fabric.Spec, f *Fitted, cat *catalog.Catalog) {
	t.Helper()
	if cat == nil {
		cat = catalog.Default()
	}
	r := f.Report
	if _, probs := fabric.Build(f.Spec, cat); hasErrors(probs) {
		t.Fatalf("the fitted fabric does not build: %v", probs[:min(len(probs), 5)])
	}
	if len(f.Spec.Switches) != len(des.SwitchList) || len(f.Spec.Nodes) != len(des.NodeList) || len(f.Spec.HCAs) != len(des.HCAList) || len(f.Spec.Cables) != len(des.CableList) {
		t.Fatalf("fitted: %d switches, %d nodes, %d HCAs, %d cables; the design has %d, %d, %d, %d",
			len(f.Spec.Switches), len(f.Spec.Nodes), len(f.Spec.HCAs), len(f.Spec.Cables), len(des.SwitchList), len(des.NodeList), len(des.HCAList), len(des.CableList))
	}
	if r.LinksKept+r.LinksMoved+r.LinksRemoved != len(floor.Cables) || r.LinksKept+r.LinksMoved+r.LinksAdded != len(des.CableList) {
		t.Fatalf("counts do not add up: %+v; %d floor cables, %d design links", r, len(floor.Cables), len(des.CableList))
	}
	if n, _ := keptOnFloorPorts(floor, f.Spec); n != r.LinksKept {
		t.Fatalf("%d floor cables are on their ports in the fitted fabric; the report says %d kept", n, r.LinksKept)
	}
	if r.LinksKept > r.LinksKeptMax {
		t.Fatalf("kept %d above the bound %d", r.LinksKept, r.LinksKeptMax)
	}
	if len(r.Deviations) != r.LinksMoved+r.LinksAdded+r.LinksRemoved {
		t.Fatalf("%d deviations for %d moved, %d added, %d removed", len(r.Deviations), r.LinksMoved, r.LinksAdded, r.LinksRemoved)
	}
}

type family struct {
	name string
	p    topogen.Params
}

// The generator's families, small and large enough to have every tier.
var families = []family{
	{"fat-tree 1 tier", topogen.Params{Kind: topogen.KindFatTree, Nodes: 4}},
	{"fat-tree 2 tiers", topogen.Params{Kind: topogen.KindFatTree, Nodes: 64}},
	{"fat-tree 2 tiers 3:1", topogen.Params{Kind: topogen.KindFatTree, Nodes: 90, Oversubscription: 3}},
	{"fat-tree 3 tiers", topogen.Params{Kind: topogen.KindFatTree, Nodes: 300}},
	{"rail-optimized 2 SU", topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2, ReservedNodeSlots: 1}},
	{"rail-optimized 9 SU, 3 tiers", topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 9}},
	{"dragonfly+", topogen.Params{Kind: topogen.KindDragonflyPlus, Groups: 3, LeavesPerGroup: 4, SpinesPerGroup: 4}},
	{"dragonfly+ default groups", topogen.Params{Kind: topogen.KindDragonflyPlus, Groups: 2, Nodes: 40}},
	{"torus 3x3x3", topogen.Params{Kind: topogen.KindTorus3D, TorusDims: [3]int{3, 3, 3}}},
	{"torus 4x3x2", topogen.Params{Kind: topogen.KindTorus3D, TorusDims: [3]int{4, 3, 2}}},
}

// A floor that is a design under other names, device names, GUIDs and port orders fits it
// whole: every cable kept on its ports, the bound met, nothing moved, added, removed or
// unmatched, and every floor name kept.
func TestFitRelabeledFamilies(t *testing.T) {
	for _, fm := range families {
		t.Run(fm.name, func(t *testing.T) {
			des := generate(t, fm.p, nil)
			for seed := int64(1); seed <= 3; seed++ {
				floor := relabel(des.FabricSpec(), catalog.Default(), seed)
				f := mustFit(t, des, floor, nil)
				r := f.Report
				if r.LinksKept != len(floor.Cables) || r.LinksKeptMax != r.LinksKept || r.LinksMoved+r.LinksAdded+r.LinksRemoved != 0 || len(r.DevicesUnmatched) != 0 {
					t.Fatalf("seed %d: kept %d of %d (max %d), moved %d, added %d, removed %d, unmatched %v; tiers %+v",
						seed, r.LinksKept, len(floor.Cables), r.LinksKeptMax, r.LinksMoved, r.LinksAdded, r.LinksRemoved, r.DevicesUnmatched, r.Tiers)
				}
				names := map[string]bool{}
				for _, s := range floor.Switches {
					names[s.Name] = true
				}
				for _, s := range f.Spec.Switches {
					if !names[s.Name] {
						t.Fatalf("fitted switch %s is not a floor switch", s.Name)
					}
				}
			}
		})
	}
}

// Growth within the plan: a floor built at a smaller size of the same plan keeps every cable;
// the design only adds.
func TestFitGrowthWithinPlan(t *testing.T) {
	for _, c := range []struct {
		name     string
		now, big topogen.Params
	}{
		{"rail-optimized 2 -> 4 SU of 4", topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2, PlannedScalableUnits: 4}, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 4, PlannedScalableUnits: 4}},
		{"fat-tree 64 -> 128 of 128", topogen.Params{Kind: topogen.KindFatTree, Nodes: 64, PlannedNodes: 128}, topogen.Params{Kind: topogen.KindFatTree, Nodes: 128, PlannedNodes: 128}},
		{"fat-tree 3 tiers 300 -> 600 of 600", topogen.Params{Kind: topogen.KindFatTree, Nodes: 300, PlannedNodes: 600}, topogen.Params{Kind: topogen.KindFatTree, Nodes: 600, PlannedNodes: 600}},
		{"dragonfly+ 2 -> 3 of 3", topogen.Params{Kind: topogen.KindDragonflyPlus, Groups: 2, PlannedGroups: 3, LeavesPerGroup: 4, SpinesPerGroup: 4}, topogen.Params{Kind: topogen.KindDragonflyPlus, Groups: 3, PlannedGroups: 3, LeavesPerGroup: 4, SpinesPerGroup: 4}},
	} {
		t.Run(c.name, func(t *testing.T) {
			floor := relabel(generate(t, c.now, nil).FabricSpec(), catalog.Default(), 7)
			des := generate(t, c.big, nil)
			r := mustFit(t, des, floor, nil).Report
			if r.LinksKept != len(floor.Cables) || r.LinksMoved+r.LinksRemoved != 0 || r.LinksKeptMax != r.LinksKept || len(r.DevicesUnmatched) != 0 {
				t.Fatalf("kept %d of %d (max %d), moved %d, removed %d, unmatched %v", r.LinksKept, len(floor.Cables), r.LinksKeptMax, r.LinksMoved, r.LinksRemoved, r.DevicesUnmatched)
			}
		})
	}
}

// Growth past the plan: the upper tiers are re-planned for the new size; the fit keeps the most
// any assignment could keep, which the test computes by closed forms of its own.
func TestFitGrowthPastPlan(t *testing.T) {
	t.Run("rail-optimized 8 -> 16 SU, 2 tiers into 3", func(t *testing.T) {
		floor := relabel(generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 8}, nil).FabricSpec(), catalog.Default(), 3)
		des := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 16}, nil)
		r := mustFit(t, des, floor, nil).Report
		// Node-leaf: all 2,048 HCA cables (each floor SU onto a design SU). Leaf-spine: a floor
		// spine has one link to each of 64 leaves, a design spine one to each of the 32 leaves
		// of its pod, so a spine keeps at most 32 and the 32 floor spines at most 1,024, which
		// packing the floor's 64 leaves into 2 full pods reaches.
		if want := 2048 + 32*32; r.LinksKept != want || r.LinksKeptMax != want {
			t.Fatalf("kept %d, max %d; want %d", r.LinksKept, r.LinksKeptMax, want)
		}
	})
	t.Run("fat-tree 256 -> 512, 2 tiers into 3", func(t *testing.T) {
		floor := relabel(generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 256}, nil).FabricSpec(), catalog.Default(), 4)
		des := generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 512}, nil)
		r := mustFit(t, des, floor, nil).Report
		if want := 2048 + 32*32; r.LinksKept != want || r.LinksKeptMax != want {
			t.Fatalf("kept %d, max %d; want %d", r.LinksKept, r.LinksKeptMax, want)
		}
	})
	t.Run("fat-tree 3 tiers, 600 -> 1200 re-planned", func(t *testing.T) {
		floor := relabel(generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 600}, nil).FabricSpec(), catalog.Default(), 5)
		des := generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 1200}, nil)
		r := mustFit(t, des, floor, nil).Report
		// Leaves and pods stay (r/2 leaves a pod): node-leaf and leaf-spine all kept. Cores: a
		// spine has r/2 = 32 core links spread over the cores of its plane, cg of them at the
		// plan, 32/cg each; each floor spine-core pair keeps min(32/cg_floor, 32/cg_design).
		fl, de := coreGroups(600), coreGroups(1200)
		pods := (600*8 + 1023) / 1024
		spines := pods * 32
		want := 600*8 + 600*8/32*32 + spines*fl*min(32/fl, 32/de)
		if r.LinksKept != want || r.LinksKeptMax != want {
			t.Fatalf("kept %d, max %d; want %d (tiers %+v)", r.LinksKept, r.LinksKeptMax, want, r.Tiers)
		}
	})
	t.Run("dragonfly+ 2 -> 3 groups re-planned", func(t *testing.T) {
		p := topogen.Params{Kind: topogen.KindDragonflyPlus, Groups: 2, LeavesPerGroup: 4, SpinesPerGroup: 4}
		floor := relabel(generate(t, p, nil).FabricSpec(), catalog.Default(), 6)
		p.Groups = 3
		des := generate(t, p, nil)
		r := mustFit(t, des, floor, nil).Report
		// Groups whole: every node-leaf and leaf-spine cable; global: the one pair of floor
		// groups has 4 spines x 32 global ports = 128 links, a design pair hp = 128/2 = 64.
		want := 2*4*32 + 2*4*32 + 64
		if r.LinksKept != want || r.LinksKeptMax != want {
			t.Fatalf("kept %d, max %d; want %d (tiers %+v)", r.LinksKept, r.LinksKeptMax, want, r.Tiers)
		}
	})
}

// coreGroups is the generator's cores per core group of a 3-tier radix-64 tree of n DGX nodes:
// the smallest divisor of 32 at least half the pods (Al-Fares' k/2 cores per group, for pods of
// 32 leaves).
func coreGroups(n int) int {
	pods := (n*8 + 1023) / 1024
	need := (pods + 1) / 2
	for _, d := range []int{1, 2, 4, 8, 16, 32} {
		if d >= need {
			return d
		}
	}
	return 32
}

// Rail swaps are cables to move, never a relabel: each swapped node keeps its other rails, and
// its two swapped cables move to the leaf of their own rail, on the ports the swap freed.
func TestFitRailSwaps(t *testing.T) {
	des := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2}, nil)
	floor := relabel(des.FabricSpec(), catalog.Default(), 11)
	// Swap the leaf ends of rails of 3 nodes (different pairs of rails).
	byHCA := map[string]int{}
	for i, c := range floor.Cables {
		byHCA[c.A.Device+"|"+c.B.Device] = i
	}
	swapped := 0
	for _, n := range floor.Nodes[:3] {
		var mine []int
		for i, c := range floor.Cables {
			if strings.HasPrefix(c.A.Device, n.Name+"/") || strings.HasPrefix(c.B.Device, n.Name+"/") {
				mine = append(mine, i)
			}
		}
		sort.Ints(mine)
		a, b := &floor.Cables[mine[swapped]], &floor.Cables[mine[swapped+2]]
		swapSwitchEnds(a, b)
		swapped++
	}
	r := mustFit(t, des, floor, nil).Report
	if r.LinksMoved != 6 || r.LinksKept != len(floor.Cables)-6 || r.LinksAdded != 0 || r.LinksRemoved != 0 || r.LinksKeptMax != r.LinksKept {
		t.Fatalf("%+v", r)
	}
	for _, d := range r.Deviations {
		if !strings.HasPrefix(d, "move ") {
			t.Errorf("deviation %q", d)
		}
	}
}

// swapSwitchEnds swaps the switch ends of two HCA cables.
func swapSwitchEnds(a, b *fabric.Cable) {
	sa, sb := &a.A, &b.A
	if strings.Contains(a.A.Device, "/") {
		sa = &a.B
	}
	if strings.Contains(b.A.Device, "/") {
		sb = &b.B
	}
	*sa, *sb = *sb, *sa
}

// Missing devices are added by the design; extra ones are named, and nothing is invented for
// them: the fitted fabric has exactly the design's devices.
func TestFitMissingAndExtraDevices(t *testing.T) {
	des := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2}, nil)
	full := relabel(des.FabricSpec(), catalog.Default(), 21)

	// A spine and a node missing: their cables are added, on the ports their absence freed.
	floor := without(full, full.Switches[len(full.Switches)-1].Name, full.Nodes[0].Name)
	spine := ""
	for _, s := range full.Switches {
		if !has(floor, s.Name) {
			spine = s.Name
		}
	}
	r := mustFit(t, des, floor, nil).Report
	if r.LinksKept != len(floor.Cables) || r.LinksRemoved+r.LinksMoved != 0 || r.LinksAdded != len(full.Cables)-len(floor.Cables) || len(r.DevicesUnmatched) != 0 {
		t.Fatalf("missing %s and a node: %+v", spine, r)
	}

	// An extra node cabled to free ports of the floor's leaves, and an extra spine: the design
	// has no place for them.
	des2 := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2, ReservedNodeSlots: 1}, nil)
	floor2 := relabel(des2.FabricSpec(), catalog.Default(), 22)
	extra := append([]fabric.Cable(nil), floor2.Cables...)
	floor2.Nodes = append(floor2.Nodes, fabric.Node{Name: "stray01", Model: "DGX-H100"})
	free := freePorts(floor2, catalog.Default())
	for r, l := range leavesOf(floor2) {
		dev := fmt.Sprintf("ibp%d", r*3)
		floor2.HCAs = append(floor2.HCAs, fabric.HCA{Name: "stray01/" + dev, Node: "stray01", Device: dev, Rail: -1, PortGUID: fmt.Sprintf("0x0000000000ab%04x", r)})
		extra = append(extra, fabric.Cable{A: fabric.End{Device: "stray01/" + dev, Port: 1}, B: fabric.End{Device: l, Port: free[l][0]}})
	}
	floor2.Cables = extra
	f := mustFit(t, des2, floor2, nil)
	r = f.Report
	// 63 slots (one reserved for UFM), 64 nodes: the stray one has no place.
	if strings.Join(r.DevicesUnmatched, ",") != "stray01" || r.LinksRemoved != 8 || r.LinksKept != len(floor2.Cables)-8 || r.LinksAdded+r.LinksMoved != 0 {
		t.Fatalf("extra node: %+v", r)
	}
	// The UFM appliance links of the reserved slot go to the floor's leaves, on the one port
	// each leaf has free (the floor's own number for the reserved slot's port, free again once
	// the stray node's cables are gone).
	if len(f.Appliances) != len(des2.ApplianceList) {
		t.Fatalf("%d appliance links, the design %d", len(f.Appliances), len(des2.ApplianceList))
	}
	fittedFree := freePorts(f.Spec, catalog.Default())
	for _, a := range f.Appliances {
		if !has(floor2, a.Leaf) || len(fittedFree[a.Leaf]) != 1 || fittedFree[a.Leaf][0] != a.LeafPort {
			t.Errorf("appliance link %s on %s:%d; want a floor leaf's only free port (free: %v)", a.Key, a.Leaf, a.LeafPort, fittedFree[a.Leaf])
		}
	}
}

func without(s *fabric.Spec, names ...string) *fabric.Spec {
	drop := map[string]bool{}
	for _, n := range names {
		drop[n] = true
	}
	out := &fabric.Spec{}
	for _, x := range s.Switches {
		if !drop[x.Name] {
			out.Switches = append(out.Switches, x)
		}
	}
	for _, x := range s.Nodes {
		if !drop[x.Name] {
			out.Nodes = append(out.Nodes, x)
		}
	}
	for _, x := range s.HCAs {
		if !drop[x.Node] {
			out.HCAs = append(out.HCAs, x)
		}
	}
	gone := func(d string) bool {
		node, _, _ := strings.Cut(d, "/")
		return drop[d] || drop[node]
	}
	for _, c := range s.Cables {
		if !gone(c.A.Device) && !gone(c.B.Device) {
			out.Cables = append(out.Cables, c)
		}
	}
	return out
}

func has(s *fabric.Spec, name string) bool {
	for _, x := range s.Switches {
		if x.Name == name {
			return true
		}
	}
	return false
}

// freePorts lists each switch's free ports, ascending.
func freePorts(s *fabric.Spec, cat *catalog.Catalog) map[string][]int {
	used := map[string]map[int]bool{}
	for _, c := range s.Cables {
		for _, e := range []fabric.End{c.A, c.B} {
			if used[e.Device] == nil {
				used[e.Device] = map[int]bool{}
			}
			used[e.Device][e.Port] = true
		}
	}
	out := map[string][]int{}
	for _, sw := range s.Switches {
		for p := 1; p <= cat.Switches[sw.Model].Ports; p++ {
			if !used[sw.Name][p] {
				out[sw.Name] = append(out[sw.Name], p)
			}
		}
	}
	return out
}

// leavesOf lists, for each rail (device ibp0, ibp3, ...), a leaf of that rail with a free port.
func leavesOf(s *fabric.Spec) []string {
	free := freePorts(s, catalog.Default())
	byRail := map[string]string{}
	for _, c := range s.Cables {
		if h, sw := c.A.Device, c.B.Device; strings.Contains(h, "/") && len(free[sw]) > 0 {
			_, dev, _ := strings.Cut(h, "/")
			if byRail[dev] == "" || sw < byRail[dev] {
				byRail[dev] = sw
			}
		}
	}
	var out []string
	for r := 0; r < 8; r++ {
		if l := byRail[fmt.Sprintf("ibp%d", r*3)]; l != "" {
			out = append(out, l)
		}
	}
	return out
}

// A floor the design has no place for: a 4-SU floor fitted to a 2-SU design. Half the floor is
// named unmatched (its nodes, leaves and the spines beyond the design's), its cables removed,
// and the fitted fabric is the design's, no device more.
func TestFitFloorLargerThanDesign(t *testing.T) {
	big := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 4}, nil)
	floor := relabel(big.FabricSpec(), catalog.Default(), 31)
	des := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2}, nil)
	f := mustFit(t, des, floor, nil)
	r := f.Report
	wantUnmatched := 64 + 16 + 8 // nodes, leaves, spines the 2-SU design has no place for
	if len(r.DevicesUnmatched) != wantUnmatched || r.DevicesMatched != 64+64*8+16+8 {
		t.Fatalf("%d unmatched, %d matched; want %d and %d", len(r.DevicesUnmatched), r.DevicesMatched, wantUnmatched, 64+512+24)
	}
	// Kept: the matched half's HCA cables (512) and, of each matched leaf's 16 links to the
	// 16 floor spines (2 each), those to the 8 matched spines, up to the design's 4 per pair.
	if r.LinksKept != 512+16*8*2 || r.LinksKeptMax != r.LinksKept {
		t.Fatalf("kept %d, max %d", r.LinksKept, r.LinksKeptMax)
	}
	// A floor of another kind: a torus fitted to a rail-optimized design.
	torus := relabel(generate(t, topogen.Params{Kind: topogen.KindTorus3D, TorusDims: [3]int{2, 2, 2}}, nil).FabricSpec(), catalog.Default(), 32)
	f = mustFit(t, des, torus, nil)
	if f.Report.LinksKept > f.Report.LinksKeptMax {
		t.Fatalf("%+v", f.Report)
	}
}

// TestFittedGroups: a floor copy of the design splits into the design's groups, each the size
// of the design's own, under the floor's names; appliance links only at the top.
func TestFittedGroups(t *testing.T) {
	des := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2, ReservedNodeSlots: 1}, nil)
	floor := relabel(des.FabricSpec(), catalog.Default(), 1)
	f := mustFit(t, des, floor, nil)
	all, groups := f.Groups()
	if len(all.Switches) != len(des.Switches) || len(all.Cables) != len(des.Cables) || len(all.HCAs) != len(des.HCAs) {
		t.Errorf("all: %d switches, %d cables, %d HCAs", len(all.Switches), len(all.Cables), len(all.HCAs))
	}
	if len(all.Appliances) != len(des.Appliances) || len(des.Appliances) == 0 {
		t.Errorf("all: %d appliance links, want %d", len(all.Appliances), len(des.Appliances))
	}
	for i, g := range groups {
		want := des.Groups[i]
		if g.Name != want.Name || len(g.Switches) != len(want.Switches) || len(g.Nodes) != len(want.Nodes) ||
			len(g.HCAs) != len(want.HCAs) || len(g.Cables) != len(want.Cables) || g.Appliances != nil {
			t.Errorf("group %s: %d switches, %d nodes, %d HCAs, %d cables, appliances %v; the design's %s has %d, %d, %d, %d",
				g.Name, len(g.Switches), len(g.Nodes), len(g.HCAs), len(g.Cables), g.Appliances,
				want.Name, len(want.Switches), len(want.Nodes), len(want.HCAs), len(want.Cables))
		}
		for name := range g.Switches {
			if !has(floor, name) {
				t.Errorf("group %s: switch %s is not on the floor", g.Name, name)
			}
		}
	}
}
