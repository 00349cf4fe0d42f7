package topogen

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testgate"
)

var cat = catalog.Default()

func mustGen(t *testing.T, p Params) *Design {
	t.Helper()
	d, err := Generate(p, cat)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", p, err)
	}
	return d
}

// build runs fabric.Build and fails on any problem, errors and warnings alike: a generated
// design has no uncabled device either.
func build(t *testing.T, d *Design) *fabric.Graph {
	t.Helper()
	g, probs := fabric.Build(d.Spec(), cat)
	for i, p := range probs {
		if i == 10 {
			t.Errorf("... %d problems in all", len(probs))
			break
		}
		t.Errorf("fabric.Build: %s", p)
	}
	return g
}

func superPOD(sus, planned int) Params {
	return Params{Kind: KindRailOptimized, ScalableUnits: sus, PlannedScalableUnits: planned, ReservedNodeSlots: 1, CableKind: catalog.KindFiberMM}
}

// RA-11333-001 V11 Table 4: 1 SU = 31 nodes, 8 leaves, 4 spines, 252 compute+UFM links to
// the leaves, 256 spine-leaf links; 4 SU = 127 nodes, 32 leaves, 16 spines, 1,020 and 1,024; Table
// 8: 2,040 node-leaf + leaf-spine cables.
func TestSuperPODReference(t *testing.T) {
	for _, c := range []struct {
		sus, nodes, leaves, spines, nodeUFM, leafSpine, cables int
	}{
		{1, 31, 8, 4, 252, 256, 504},
		{4, 127, 32, 16, 1020, 1024, 2040},
	} {
		t.Run(fmt.Sprintf("%dSU", c.sus), func(t *testing.T) {
			d := mustGen(t, superPOD(c.sus, 0))
			s := d.Summary
			if s.Nodes != c.nodes || s.HCAs != c.nodes*8 {
				t.Errorf("nodes %d HCAs %d, want %d and %d", s.Nodes, s.HCAs, c.nodes, c.nodes*8)
			}
			if s.SwitchesByRole["leaf"] != c.leaves || s.SwitchesByRole["spine"] != c.spines || s.Switches != c.leaves+c.spines {
				t.Errorf("switches %v, want %d leaves + %d spines", s.SwitchesByRole, c.leaves, c.spines)
			}
			if got := s.LinksByTier[TierNodeLeaf] + s.LinksByTier[TierApplianceLeaf]; got != c.nodeUFM {
				t.Errorf("compute+UFM links to the leaves = %d, want %d", got, c.nodeUFM)
			}
			if s.LinksByTier[TierApplianceLeaf] != 4 || s.ApplianceLinks != 4 || len(d.Appliances) != 4 {
				t.Errorf("UFM links %d, want 4", s.LinksByTier[TierApplianceLeaf])
			}
			if s.LinksByTier[TierLeafSpine] != c.leafSpine {
				t.Errorf("leaf-spine links %d, want %d", s.LinksByTier[TierLeafSpine], c.leafSpine)
			}
			if s.Cables != c.cables || len(d.Cables) != c.cables {
				t.Errorf("graph cables %d, want %d (node-leaf + leaf-spine)", s.Cables, c.cables)
			}
			if d.Tiers != 2 {
				t.Errorf("tiers %d", d.Tiers)
			}
			g := build(t, d)
			r := analysis.Analyze(g, nil)
			// SU 1's leaves have 31 nodes below (the UFM slot is not a graph device) and 32 up.
			if r.MaxOversubscription > 1 || r.MaxSwitchHops != 2 {
				t.Errorf("analysis: max oversubscription %g, max hops %d; want a non-blocking 2-tier tree", r.MaxOversubscription, r.MaxSwitchHops)
			}
			// UFM ports: the last slot of SU 1, rails 1-4, free of graph cables.
			for _, a := range d.ApplianceList {
				if a.LeafPort != 32 {
					t.Errorf("%s on %s:%d, want port 32 (the reserved slot)", a.Key, a.Leaf, a.LeafPort)
				}
				if _, taken := d.Cables[EndKey(fabric.End{Device: a.Leaf, Port: a.LeafPort})]; taken {
					t.Errorf("%s:%d is both an appliance port and a cable key", a.Leaf, a.LeafPort)
				}
				for _, cb := range d.CableList {
					if cb.B.Device == a.Leaf && cb.B.Port == a.LeafPort {
						t.Errorf("%s:%d carries cable %v and appliance %s", a.Leaf, a.LeafPort, cb, a.Key)
					}
				}
			}
			// Rail locality: rail i of every node of an SU is on the same leaf.
			for _, cb := range d.CableList {
				if d.CableTiers[EndKey(cb.A)] != TierNodeLeaf {
					continue
				}
				h := d.HCAs[cb.A.Device]
				leafNo := 0
				if _, err := fmt.Sscanf(strings.TrimPrefix(cb.B.Device, "leaf"), "%d", &leafNo); err != nil {
					t.Fatalf("leaf name %q: %v", cb.B.Device, err)
				}
				if (leafNo-1)%8 != h.Rail {
					t.Fatalf("%s (rail %d) on %s", h.Name, h.Rail, cb.B.Device)
				}
			}
		})
	}
}

// Larger SuperPODs (RA-11333-001, and the DGX B200 SuperPOD RA's table for 2-64 SU). 8 SU is the last 2-tier row (r^2/2 = 2048 GPUs); from 16 SU a
// core tier: leaf = spine = G/32, core = G/64, every cable layer = G.
func TestSuperPODLarger(t *testing.T) {
	for _, c := range []struct{ sus, leaf, spine, core int }{
		{8, 64, 32, 0}, {16, 128, 128, 64}, {32, 256, 256, 128}, {64, 512, 512, 256},
	} {
		d := mustGen(t, Params{Kind: KindRailOptimized, ScalableUnits: c.sus})
		s := d.Summary
		gpus := c.sus * 32 * 8
		if s.SwitchesByRole["leaf"] != c.leaf || s.SwitchesByRole["spine"] != c.spine || s.SwitchesByRole["core"] != c.core {
			t.Errorf("%d SU: switches %v, want %d/%d/%d", c.sus, s.SwitchesByRole, c.leaf, c.spine, c.core)
		}
		if s.LinksByTier[TierNodeLeaf] != gpus || s.LinksByTier[TierLeafSpine] != gpus || (c.core > 0 && s.LinksByTier[TierSpineCore] != gpus) {
			t.Errorf("%d SU: links %v, want every layer = %d", c.sus, s.LinksByTier, gpus)
		}
		if c.sus <= 16 {
			g := build(t, d)
			if c.core > 0 {
				r := analysis.Analyze(g, nil)
				if r.MaxOversubscription != 1 || r.MaxSwitchHops != 4 {
					t.Errorf("%d SU: max oversubscription %g, hops %d; want 1 and 4", c.sus, r.MaxOversubscription, r.MaxSwitchHops)
				}
			}
		}
	}
}

// Al-Fares et al. (SIGCOMM 2008): the largest 3-tier non-blocking tree of 64-port switches, 65,536 endpoints, has 2048
// leaf + 2048 spine + 1024 core switches, and 3 cable layers of 65,536 each (Al-Fares, k = 64).
func TestFatTreeAlFaresMax(t *testing.T) {
	testgate.RequireLong(t, "65,536 endpoints")
	if testing.Short() {
		t.Skip("65,536 endpoints")
	}
	d := mustGen(t, Params{Kind: KindFatTree, Nodes: 8192})
	s := d.Summary
	if d.Tiers != 3 || s.SwitchesByRole["leaf"] != 2048 || s.SwitchesByRole["spine"] != 2048 || s.SwitchesByRole["core"] != 1024 {
		t.Fatalf("tiers %d switches %v", d.Tiers, s.SwitchesByRole)
	}
	for _, tier := range []string{TierNodeLeaf, TierLeafSpine, TierSpineCore} {
		if s.LinksByTier[tier] != 65536 {
			t.Errorf("%s links %d, want 65536", tier, s.LinksByTier[tier])
		}
	}
	if _, err := Generate(Params{Kind: KindFatTree, Nodes: 8193}, cat); err == nil {
		t.Error("8,193 DGX (65,544 endpoints) exceed 3 tiers of 64-port switches; want a refusal")
	}
}

// Every kind, at several sizes and ratios, gives a design fabric.Build accepts without a
// single problem, whose keys, groups and summary agree with its lists.
func TestEveryDesignBuilds(t *testing.T) {
	cases := []Params{
		{Kind: KindFatTree, Nodes: 1},
		{Kind: KindFatTree, Nodes: 8},
		{Kind: KindFatTree, Nodes: 9},
		{Kind: KindFatTree, Nodes: 100},
		{Kind: KindFatTree, Nodes: 256},
		{Kind: KindFatTree, Nodes: 100, PlannedNodes: 256},
		{Kind: KindFatTree, Nodes: 300, Oversubscription: 3},
		{Kind: KindFatTree, Nodes: 90, PlannedNodes: 200, Oversubscription: 1.56, Tiers: 3}, // 39:25, 2 pods planned
		{Kind: KindFatTree, Nodes: 90, Oversubscription: 2},                                 // 42:21, 1 spare port
		{Kind: KindFatTree, Nodes: 40, Oversubscription: 5.4},                               // 54:10, nodes straddle leaves
		{Kind: KindFatTree, Nodes: 300, NodeModel: "HGX-H100", CableKind: catalog.KindFiberSM},
		{Kind: KindFatTree, Nodes: 600},
		{Kind: KindRailOptimized, ScalableUnits: 2, ReservedNodeSlots: 1},
		{Kind: KindRailOptimized, Nodes: 40, PlannedScalableUnits: 4},
		{Kind: KindRailOptimized, ScalableUnits: 3},
		{Kind: KindRailOptimized, ScalableUnits: 3, Spines: 32},
		{Kind: KindRailOptimized, ScalableUnits: 2, PlannedScalableUnits: 12, ReservedNodeSlots: 2, ApplianceLinksPerSlot: 8},
		{Kind: KindRailOptimized, ScalableUnits: 2, Oversubscription: 3},
		{Kind: KindDragonflyPlus, Groups: 2},
		{Kind: KindDragonflyPlus, Groups: 5, LeavesPerGroup: 4, SpinesPerGroup: 8},
		{Kind: KindDragonflyPlus, Nodes: 50, LeavesPerGroup: 4, SpinesPerGroup: 4, PlannedGroups: 9},
		{Kind: KindTorus3D, TorusDims: [3]int{2, 2, 2}},
		{Kind: KindTorus3D, TorusDims: [3]int{4, 4, 4}, EndpointsPerSwitch: 4},
		{Kind: KindTorus3D, TorusDims: [3]int{3, 5, 2}, EndpointsPerSwitch: 12, Nodes: 40},
	}
	for _, p := range cases {
		t.Run(fmt.Sprintf("%s-%d-%d-%g-%d", p.Kind, p.Nodes, p.ScalableUnits+p.Groups, p.Oversubscription, p.TorusDims[0]), func(t *testing.T) {
			d := mustGen(t, p)
			build(t, d)
			checkConsistent(t, d)
		})
	}
}

func checkConsistent(t *testing.T, d *Design) {
	t.Helper()
	if len(d.Racks) != len(d.RackList) || len(d.Switches) != len(d.SwitchList) || len(d.Nodes) != len(d.NodeList) ||
		len(d.HCAs) != len(d.HCAList) || len(d.Cables) != len(d.CableList) || len(d.CableKeys) != len(d.CableList) {
		t.Fatalf("maps and lists differ in length (duplicate names?)")
	}
	for i, c := range d.CableList {
		if key := d.CableKeys[i]; key != EndKey(c.A) || d.Cables[key] != c {
			t.Fatalf("cable %d keyed %q, A end %v", i, key, c.A)
		}
		if d.CableTiers[d.CableKeys[i]] == "" {
			t.Fatalf("cable %s has no tier", d.CableKeys[i])
		}
	}
	// Each object is in exactly one group, with the same value.
	seen := map[string]int{}
	for _, g := range d.Groups {
		for k, v := range g.Racks {
			seen["rack "+k]++
			if d.Racks[k] != v {
				t.Errorf("group %s rack %s differs", g.Name, k)
			}
		}
		for k, v := range g.Switches {
			seen["switch "+k]++
			if d.Switches[k] != v {
				t.Errorf("group %s switch %s differs", g.Name, k)
			}
		}
		for k := range g.Nodes {
			seen["node "+k]++
		}
		for k := range g.HCAs {
			seen["hca "+k]++
		}
		for k, v := range g.Cables {
			seen["cable "+k]++
			if d.Cables[k] != v {
				t.Errorf("group %s cable %s differs", g.Name, k)
			}
		}
		for k := range g.Appliances {
			seen["appliance "+k]++
		}
	}
	want := len(d.Racks) + len(d.Switches) + len(d.Nodes) + len(d.HCAs) + len(d.Cables) + len(d.Appliances)
	if len(seen) != want {
		t.Errorf("groups hold %d distinct objects, design %d", len(seen), want)
	}
	for k, n := range seen {
		if n != 1 {
			t.Errorf("%s is in %d groups", k, n)
		}
	}
	// Every port a cable uses is inside a port-plan range of the switch's role.
	for _, c := range d.CableList {
		for _, e := range []fabric.End{c.A, c.B} {
			s, ok := d.Switches[e.Device]
			if !ok {
				continue
			}
			in := false
			for _, r := range d.PortPlan {
				in = in || (r.Role == s.Role && e.Port >= r.First && e.Port <= r.Last)
			}
			if !in {
				t.Fatalf("%s (%s) port %d is outside the port plan:\n%s", e.Device, s.Role, e.Port, d.PortPlanText())
			}
		}
	}
	sum := 0
	for _, n := range d.Summary.LinksByTier {
		sum += n
	}
	if sum != len(d.Cables)+len(d.Appliances) {
		t.Errorf("links by tier sum to %d, cables + appliance links %d", sum, len(d.Cables)+len(d.Appliances))
	}
}

// Growing within the plan only adds: every entry of the smaller design, in every map and every
// group, is in the larger one unchanged.
func TestGrowthOnlyAdds(t *testing.T) {
	for _, c := range []struct {
		name        string
		small, big  Params
		wantNewKeys bool
	}{
		{"rail 2->4 SU", superPOD(2, 4), superPOD(4, 4), true},
		{"rail 1->16 SU, 3 tiers", Params{Kind: KindRailOptimized, ScalableUnits: 1, PlannedScalableUnits: 16}, Params{Kind: KindRailOptimized, ScalableUnits: 16}, true},
		{"rail partial SU", Params{Kind: KindRailOptimized, Nodes: 40, PlannedScalableUnits: 4}, Params{Kind: KindRailOptimized, Nodes: 64, PlannedScalableUnits: 4}, true},
		{"fat-tree 100->256", Params{Kind: KindFatTree, Nodes: 100, PlannedNodes: 256}, Params{Kind: KindFatTree, Nodes: 256}, true},
		{"fat-tree 3 tier", Params{Kind: KindFatTree, Nodes: 130, PlannedNodes: 600, Oversubscription: 3}, Params{Kind: KindFatTree, Nodes: 600, Oversubscription: 3}, true},
		{"dragonfly 2->4 groups", Params{Kind: KindDragonflyPlus, Groups: 2, PlannedGroups: 4, LeavesPerGroup: 4, SpinesPerGroup: 8}, Params{Kind: KindDragonflyPlus, Groups: 4, LeavesPerGroup: 4, SpinesPerGroup: 8}, true},
		{"dragonfly nodes 48->64 in pinned groups", Params{Kind: KindDragonflyPlus, Groups: 2, Nodes: 48, LeavesPerGroup: 8, SpinesPerGroup: 8},
			Params{Kind: KindDragonflyPlus, Groups: 2, Nodes: 64, LeavesPerGroup: 8, SpinesPerGroup: 8}, true},
		{"dragonfly 2->3 of 3 groups", Params{Kind: KindDragonflyPlus, Groups: 2, PlannedGroups: 3, Nodes: 64}, Params{Kind: KindDragonflyPlus, Groups: 3, Nodes: 96}, true},
		{"torus fill", Params{Kind: KindTorus3D, TorusDims: [3]int{3, 3, 2}, Nodes: 5}, Params{Kind: KindTorus3D, TorusDims: [3]int{3, 3, 2}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, b := mustGen(t, c.small), mustGen(t, c.big)
			build(t, b)
			subset(t, "racks", s.Racks, b.Racks)
			subset(t, "switches", s.Switches, b.Switches)
			subset(t, "nodes", s.Nodes, b.Nodes)
			subset(t, "hcas", s.HCAs, b.HCAs)
			subset(t, "cables", s.Cables, b.Cables)
			subset(t, "appliances", s.Appliances, b.Appliances)
			for _, sg := range s.Groups {
				bg, ok := b.Group(sg.Name)
				if !ok {
					t.Fatalf("group %s vanished", sg.Name)
				}
				subset(t, sg.Name+" racks", sg.Racks, bg.Racks)
				subset(t, sg.Name+" switches", sg.Switches, bg.Switches)
				subset(t, sg.Name+" nodes", sg.Nodes, bg.Nodes)
				subset(t, sg.Name+" hcas", sg.HCAs, bg.HCAs)
				subset(t, sg.Name+" cables", sg.Cables, bg.Cables)
			}
			if c.wantNewKeys && len(b.Cables) <= len(s.Cables) {
				t.Errorf("the larger design adds no cable")
			}
		})
	}
}

func subset[V comparable](t *testing.T, what string, small, big map[string]V) {
	t.Helper()
	for k, v := range small {
		w, ok := big[k]
		if !ok {
			t.Fatalf("%s: %q disappeared on growth", what, k)
		}
		if v != w {
			t.Fatalf("%s: %q changed on growth: %+v -> %+v", what, k, v, w)
		}
	}
}

// wantRefusal checks a refusal (refusal) where the test needs nothing more of it.
func wantRefusal(t *testing.T, p Params, attr string, reason, nearest string) {
	t.Helper()
	_ = refusal(t, p, attr, reason, nearest)
}

// refusal generates p, fails the test unless Generate refuses it on attr with reason (and the
// nearest buildable setting when given), and returns the refusal.
func refusal(t *testing.T, p Params, attr string, reason, nearest string) *Error {
	t.Helper()
	_, err := Generate(p, cat)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Generate(%+v) = %v, want a refusal", p, err)
	}
	if e.Attribute != attr || !strings.Contains(e.Reason, reason) || !strings.Contains(e.Nearest, nearest) {
		t.Errorf("refusal %q\nwant attribute %q, reason containing %q, nearest containing %q", e.Error(), attr, reason, nearest)
	}
	return e
}

func TestRefusals(t *testing.T) {
	// 2 tiers of 64-port switches at 1:1 end at r^2/2 = 2048 endpoints = 256 DGX H100.
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 257, Tiers: 2}, "node_count", "hold 2048 endpoints", "at most 256 nodes")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 100, PlannedNodes: 257, Tiers: 2}, "planned_nodes", "hold 2048 endpoints", "tiers = 3")
	wantRefusal(t, Params{Kind: KindRailOptimized, ScalableUnits: 9, Tiers: 2}, "scalable_units", "hold 2048 endpoints", "at most 8 scalable units")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 9, Tiers: 1}, "node_count", "one 64-port switch holds 64", "at most 8 nodes")
	wantRefusal(t, Params{Kind: KindRailOptimized, ScalableUnits: 300}, "scalable_units", "3 tiers", "at most 256 scalable units")
	// A torus side of 1 cables a switch to itself.
	wantRefusal(t, Params{Kind: KindTorus3D, TorusDims: [3]int{4, 1, 4}}, "torus_dims", "side 2 of the torus is 1", "torus_dims = [4, 2, 4]")
	wantRefusal(t, Params{Kind: KindTorus3D, TorusDims: [3]int{2, 2, 2}, EndpointsPerSwitch: 60}, "endpoints_per_switch", "leaving 1-58", "endpoints_per_switch = 58")
	wantRefusal(t, Params{Kind: KindTorus3D, TorusDims: [3]int{2, 2, 2}, Nodes: 9}, "node_count", "holds 8 nodes", "node_count = 8")
	// Uplinks that do not divide evenly over the spines.
	wantRefusal(t, Params{Kind: KindRailOptimized, ScalableUnits: 3, Spines: 12}, "spines", "32 uplinks do not divide evenly over 12 spines", "spines = 16")
	wantRefusal(t, Params{Kind: KindRailOptimized, ScalableUnits: 4, Spines: 8}, "spines", "need 1024 spine ports", "spines = 16")
	wantRefusal(t, Params{Kind: KindDragonflyPlus, Groups: 3, SpinesPerGroup: 12}, "spines_per_group", "do not divide evenly", "spines_per_group = 8 or spines_per_group = 16")
	// An oversubscription no split of the radix gives: 2.04 = 51/25 needs 76 ports. The
	// suggestions are values Generate accepts (TestOversubscriptionSuggestionsAccepted).
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 10, Oversubscription: 2.04}, "oversubscription", "not the ratio of any split of a 64-port",
		"oversubscription = 43/21 (43:21 on 64 ports) or oversubscription = 2 (42:21 on 64 ports, 1 spare)")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 10, Oversubscription: 0.5}, "oversubscription", ">= 1", "oversubscription = 1")
	// Growth past the plan would move leaf uplinks.
	wantRefusal(t, Params{Kind: KindRailOptimized, ScalableUnits: 5, PlannedScalableUnits: 4}, "scalable_units", "re-cabling every leaf", "planned_scalable_units = 5")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 300, PlannedNodes: 256}, "node_count", "exceeds planned_nodes", "planned_nodes = 300")
	wantRefusal(t, Params{Kind: KindDragonflyPlus, Groups: 5, PlannedGroups: 4}, "group_count", "exceeds planned_groups", "planned_groups = 5")
	// Other arguments.
	wantRefusal(t, Params{Kind: "hypercube", Nodes: 4}, "kind", "unknown kind", "")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 4, SwitchModel: "QM8700"}, "switch_model", "unknown switch model", "")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 0}, "node_count", "at least one node", "node_count = 1")
	wantRefusal(t, Params{Kind: KindDragonflyPlus, Groups: 1}, "group_count", "at least 2 groups", "fat-tree")
	wantRefusal(t, Params{Kind: KindDragonflyPlus, Groups: 2, PlannedGroups: 2000}, "planned_groups", "all-to-all over 2000 groups", "planned_groups = 1025")
	wantRefusal(t, Params{Kind: KindRailOptimized, ScalableUnits: 1, ReservedNodeSlots: 32}, "reserved_node_slots", "must be 0 to 31", "")
	wantRefusal(t, Params{Kind: KindRailOptimized, ScalableUnits: 1, Nodes: 40}, "node_count", "hold 32 nodes", "scalable_units = 2")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 4, ReservedNodeSlots: 1}, "reserved_node_slots", "rail-optimized", "")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 4, RackPowerKW: 8}, "rack_power_kw", "holds none", "rack_power_kw >= 10.2")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 4, CableKind: "copper"}, "cable_kind", "unknown cable kind", "")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 2, HCAGUIDs: map[string]string{"gpu003/mlx5_0": "0x1"}}, "hca_guids", "not an HCA of this design", "")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 2, HCAGUIDs: map[string]string{"gpu001/mlx5_0": "0xzz"}}, "hca_guids", "16 hex digits", "")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 2, HCAGUIDs: map[string]string{"gpu001/mlx5_0": "0x0002c90100000002"}}, "hca_guids", "used by both", "")
}

func TestNamesAndGUIDs(t *testing.T) {
	d := mustGen(t, Params{Kind: KindRailOptimized, ScalableUnits: 1, ReservedNodeSlots: 1,
		HCAGUIDs: map[string]string{"gpu002/mlx5_3": "0002:c903:00ab:cdef"}})
	n := d.Nodes["gpu001"]
	if n.Model != "DGX-H100" || n.Rack == "" || n.PositionU != 1 {
		t.Errorf("gpu001 = %+v", n)
	}
	if _, ok := d.Nodes["gpu031"]; !ok || len(d.Nodes) != 31 {
		t.Errorf("want gpu001..gpu031")
	}
	leaf := d.Switches["leaf01"]
	if leaf.Role != "leaf" || leaf.Model != "QM9700" || leaf.GUID != "0x0002c90000100001" {
		t.Errorf("leaf01 = %+v", leaf)
	}
	if s := d.Switches["spine04"]; s.GUID != "0x0002c90000200004" || s.Role != "spine" {
		t.Errorf("spine04 = %+v", s)
	}
	h := d.HCAs["gpu001/mlx5_0"]
	if h.Node != "gpu001" || h.Device != "mlx5_0" || h.Rail != 0 || h.PortGUID != "0x0002c90100000001" {
		t.Errorf("gpu001/mlx5_0 = %+v", h)
	}
	if h := d.HCAs["gpu002/mlx5_3"]; h.PortGUID != "0x0002c90300abcdef" {
		t.Errorf("override: %+v", h)
	}
	if h := d.HCAs["gpu002/mlx5_2"]; h.PortGUID != FormatGUID(DefaultHCAGUIDBase+8+3) {
		t.Errorf("gpu002/mlx5_2 = %s", h.PortGUID)
	}
	c, ok := d.Cables["gpu001/mlx5_0:1"]
	if !ok || c.B != (fabric.End{Device: "leaf01", Port: 1}) || c.Kind != "" || c.LengthM != 0 {
		t.Errorf("gpu001/mlx5_0:1 = %+v", c)
	}
	if c, ok := d.Cables["leaf01:33"]; !ok || c.B != (fabric.End{Device: "spine01", Port: 1}) {
		t.Errorf("leaf01:33 = %+v", c)
	}
	if c, ok := d.Cables["leaf02:34"]; !ok || c.B != (fabric.End{Device: "spine02", Port: 2}) {
		t.Errorf("leaf02:34 = %+v (leaf 2's 1st link to spine 2: port 2, the first round of links)", c)
	}
	if a := d.Appliances["ufm01:1"]; a.Leaf != "leaf01" || a.LeafPort != 32 || a.Rack != d.Nodes["gpu029"].Rack {
		t.Errorf("ufm01:1 = %+v", a)
	}
	// Widths follow the plan: 2,000+ nodes need four digits from the first node on.
	big := mustGen(t, Params{Kind: KindRailOptimized, ScalableUnits: 1, PlannedScalableUnits: 64})
	if _, ok := big.Nodes["gpu0001"]; !ok {
		t.Errorf("planned 64 SU (2,048 nodes): want gpu0001")
	}
	if _, ok := big.Switches["leaf001"]; !ok {
		t.Errorf("planned 512 leaves: want leaf001")
	}
	// Prefixes and bases.
	p := mustGen(t, Params{Kind: KindFatTree, Nodes: 2, NodePrefix: "dgx-", LeafPrefix: "ib-leaf", RackPrefix: "r", SwitchGUIDBase: 0x1000000, HCAGUIDBase: 0x2000})
	if _, ok := p.Nodes["dgx-001"]; !ok {
		t.Errorf("prefix: %v", keys(p.Nodes))
	}
	if s := p.Switches["ib-leaf01"]; s.GUID != "0x0000000001100001" {
		t.Errorf("ib-leaf01 = %+v", s)
	}
	if h := p.HCAs["dgx-002/mlx5_7"]; h.PortGUID != "0x0000000000002010" {
		t.Errorf("dgx-002/mlx5_7 = %+v", h)
	}
	if _, ok := p.Racks["r01"]; !ok {
		t.Errorf("racks %v", keys(p.Racks))
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestGUIDParse(t *testing.T) {
	for in, want := range map[string]uint64{"0x0002c90300abcdef": 0x0002c90300abcdef, "0002:c903:00ab:cdef": 0x0002c90300abcdef, "ABCDEF": 0xabcdef} {
		if v, err := ParseGUID(in); err != nil || v != want {
			t.Errorf("ParseGUID(%q) = %x, %v", in, v, err)
		}
	}
	for _, in := range []string{"", "0x", "0x0", "0x10000000000000000", "guid"} {
		if _, err := ParseGUID(in); err == nil {
			t.Errorf("ParseGUID(%q) accepted", in)
		}
	}
}

// Rack layout: DGX H100 four to a rack at the default 42 kW (4 x 10.2 = 40.8 kW), network racks
// in the middle of each SU row, spines in a central row; runs stay within multimode reach.
func TestRackLayout(t *testing.T) {
	d := mustGen(t, superPOD(4, 0))
	g := build(t, d)
	perRack := map[string]int{}
	for _, n := range d.NodeList {
		perRack[n.Rack]++
	}
	for r, n := range perRack {
		if n > 4 {
			t.Errorf("rack %s holds %d DGX H100", r, n)
		}
	}
	if len(perRack) != 32 || len(d.Racks) != 37 {
		t.Errorf("compute racks %d, racks %d; want 32 compute + 4 leaf + 1 spine", len(perRack), len(d.Racks))
	}
	// The SU's network rack sits between its compute racks.
	for _, grp := range d.Groups {
		if grp.Kind != GroupScalableUnit {
			continue
		}
		netPos, minPos, maxPos := 0, 1<<30, 0
		for _, s := range grp.Switches {
			netPos = d.Racks[s.Rack].Position
		}
		for _, n := range grp.Nodes {
			p := d.Racks[n.Rack].Position
			minPos, maxPos = min(minPos, p), max(maxPos, p)
		}
		if minPos >= netPos || netPos >= maxPos {
			t.Errorf("%s: network rack at %d, compute racks %d-%d", grp.Name, netPos, minPos, maxPos)
		}
	}
	longest := 0.0
	for _, l := range g.Links {
		if !l.Estimated {
			t.Fatalf("link without an estimated length: every device needs a rack and position_u")
		}
		longest = max(longest, l.LengthM)
	}
	if longest > 30 {
		t.Errorf("longest run %.1f m; the layout should keep a 4-SU pod well within 50 m multimode reach", longest)
	}
	// A 40 kW budget takes three DGX H100 per rack.
	d3 := mustGen(t, Params{Kind: KindFatTree, Nodes: 12, RackPowerKW: 40})
	per := map[string]int{}
	for _, n := range d3.NodeList {
		per[n.Rack]++
	}
	for r, n := range per {
		if n != 3 {
			t.Errorf("40 kW rack %s holds %d DGX H100, want 3", r, n)
		}
	}
	build(t, d3)
}

func TestTorusDoubleLinks(t *testing.T) {
	d := mustGen(t, Params{Kind: KindTorus3D, TorusDims: [3]int{2, 3, 3}})
	// 18 switches x 3 + links; along x (side 2) each pair is joined twice.
	if d.Summary.LinksByTier[TierTorus] != 54 {
		t.Errorf("torus links %d, want 3 per switch = 54", d.Summary.LinksByTier[TierTorus])
	}
	pairs := map[[2]string]int{}
	for _, c := range d.CableList {
		if d.CableTiers[EndKey(c.A)] == TierTorus && c.A.Port <= 10 { // +x ports: E+1 = 9
			a, b := c.A.Device, c.B.Device
			if a > b {
				a, b = b, a
			}
			pairs[[2]string{a, b}]++
		}
	}
	for p, n := range pairs {
		if n != 2 {
			t.Errorf("x pair %v joined %d times, want the double link", p, n)
		}
	}
	g := build(t, d)
	if r := analysis.Analyze(g, nil); r.Tiers != 1 {
		t.Errorf("torus tiers %d", r.Tiers)
	}
}

func TestDragonflyPlus(t *testing.T) {
	d := mustGen(t, Params{Kind: KindDragonflyPlus, Groups: 5, LeavesPerGroup: 4, SpinesPerGroup: 8})
	// Every pair of groups is joined directly and equally.
	per := map[[2]string]int{}
	for _, c := range d.CableList {
		if d.CableTiers[EndKey(c.A)] != TierGlobal {
			continue
		}
		ga, gb := d.Switches[c.A.Device].Group, d.Switches[c.B.Device].Group
		if ga == gb || d.Switches[c.A.Device].Role != "spine" || d.Switches[c.B.Device].Role != "spine" {
			t.Fatalf("global link %v joins %s and %s", c, ga, gb)
		}
		per[[2]string{ga, gb}]++
	}
	if len(per) != 10 {
		t.Errorf("%d group pairs joined, want 5*4/2 = 10", len(per))
	}
	first := -1
	for _, n := range per {
		if first < 0 {
			first = n
		}
		if n != first {
			t.Errorf("uneven global links: %v", per)
			break
		}
	}
	g := build(t, d)
	if r := analysis.Analyze(g, nil); r.MaxSwitchHops != 3 {
		t.Errorf("max switch hops %d; Dragonfly+ minimal routes are leaf-spine-spine-leaf, 3", r.MaxSwitchHops)
	}
}

func TestDeterministic(t *testing.T) {
	p := Params{Kind: KindRailOptimized, ScalableUnits: 3, PlannedScalableUnits: 16, ReservedNodeSlots: 1}
	a, b := mustGen(t, p), mustGen(t, p)
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs differ")
	}
}

// Generation must add little to Terraform's own cost (the design guide, "Scale").
func BenchmarkGenerateSuperPOD64SU(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Generate(Params{Kind: KindRailOptimized, ScalableUnits: 64}, cat); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBurnedInGUIDsAreWhole: an hca_guids value with digits missing is refused as the fabric
// refuses it (fabric.CheckGUID), not zero-padded into another device's GUID.
func TestBurnedInGUIDsAreWhole(t *testing.T) {
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 2, HCAGUIDs: map[string]string{"gpu001/mlx5_0": "0x0002c90300a1b"}}, "hca_guids", "has 13 hex digits, not 16", "")
	wantRefusal(t, Params{Kind: KindFatTree, Nodes: 2, HCAGUIDs: map[string]string{"gpu001/mlx5_0": "0002:c903:00a1"}}, "hca_guids", "has 12 hex digits, not 16", "")
}
