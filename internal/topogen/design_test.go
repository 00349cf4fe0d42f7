package topogen

import (
	"reflect"
	"sort"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// normalizedCases cover every kind, defaults and explicit shapes.
var normalizedCases = map[string]Params{
	"fat-tree 2 tier":         {Kind: KindFatTree, Nodes: 64},
	"fat-tree planned":        {Kind: KindFatTree, Nodes: 40, PlannedNodes: 200},
	"fat-tree 3 tier":         {Kind: KindFatTree, Nodes: 300, Tiers: 3},
	"fat-tree oversubscribed": {Kind: KindFatTree, Nodes: 100, Oversubscription: 3},
	"fat-tree 1 tier":         {Kind: KindFatTree, Nodes: 4},
	"rail-optimized":          {Kind: KindRailOptimized, ScalableUnits: 2, PlannedScalableUnits: 4, ReservedNodeSlots: 1},
	"rail-optimized nodes":    {Kind: KindRailOptimized, Nodes: 50},
	"dragonfly+":              {Kind: KindDragonflyPlus, Groups: 3, PlannedGroups: 5},
	"dragonfly+ seed 2:1":     {Kind: KindDragonflyPlus, Groups: 2, Nodes: 64, GroupOversubscription: 2},
	"dragonfly+ by nodes":     {Kind: KindDragonflyPlus, Nodes: 100},
	"dragonfly+ uneven":       {Kind: KindDragonflyPlus, Groups: 3, Nodes: 50, PlannedGroups: 4},
	"torus":                   {Kind: KindTorus3D, TorusDims: [3]int{2, 3, 2}},
	"torus partial":           {Kind: KindTorus3D, TorusDims: [3]int{2, 2, 2}, Nodes: 5, CableKind: "fiber-sm"},
	"guids": {Kind: KindFatTree, Nodes: 2, SwitchGUIDBase: 0x10000, HCAGUIDBase: 0x20000,
		HCAGUIDs: map[string]string{"gpu002/mlx5_0": "0x946dae0300a1b2c3"}},
}

// TestNormalizedRegenerates: the fabric, given the normalized design, builds exactly the graph
// the data source describes, and normalizing is idempotent.
func TestNormalizedRegenerates(t *testing.T) {
	cat := catalog.Default()
	for name, p := range normalizedCases {
		t.Run(name, func(t *testing.T) {
			d, err := Generate(p, cat)
			if err != nil {
				t.Fatal(err)
			}
			n := d.Normalized()
			again, err := Generate(n, cat)
			if err != nil {
				t.Fatalf("the normalized design %+v does not build: %v", n, err)
			}
			if !reflect.DeepEqual(d.FabricSpec(), again.FabricSpec()) {
				t.Error("the normalized design builds another graph")
			}
			if !reflect.DeepEqual(d.CableKeys, again.CableKeys) {
				t.Error("the normalized design keys its cables otherwise")
			}
			if !reflect.DeepEqual(again.Normalized(), n) {
				t.Errorf("normalizing twice differs:\n%+v\n%+v", again.Normalized(), n)
			}
			if n.NodeModel == "" || n.SwitchModel == "" || n.NodePrefix == "" || n.SwitchGUIDBase == 0 {
				t.Errorf("defaults not filled: %+v", n)
			}
			// Only the kinds that read oversubscription get its default; the others refuse it.
			if reads := KindByName(p.Kind).reads(arg("oversubscription")); reads != (n.Oversubscription >= 1) {
				t.Errorf("%s: oversubscription %g in the normalized design", p.Kind, n.Oversubscription)
			}
		})
	}
}

// TestNormalizedGrowth: growing the build size within the plan changes that one argument.
func TestNormalizedGrowth(t *testing.T) {
	cat := catalog.Default()
	for _, tc := range []struct{ small, large Params }{
		{Params{Kind: KindRailOptimized, ScalableUnits: 2, PlannedScalableUnits: 4}, Params{Kind: KindRailOptimized, ScalableUnits: 4, PlannedScalableUnits: 4}},
		{Params{Kind: KindFatTree, Nodes: 64, PlannedNodes: 256}, Params{Kind: KindFatTree, Nodes: 128, PlannedNodes: 256}},
	} {
		a, err := Generate(tc.small, cat)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Generate(tc.large, cat)
		if err != nil {
			t.Fatal(err)
		}
		na, nb := a.Normalized(), b.Normalized()
		na.ScalableUnits, na.Nodes = nb.ScalableUnits, nb.Nodes
		if !reflect.DeepEqual(na, nb) {
			t.Errorf("%s: growing changes more than the size:\n%+v\n%+v", tc.small.Kind, na, nb)
		}
	}
}

// TestFabricSpecOrigin: generated elements carry their key and the size argument.
func TestFabricSpecOrigin(t *testing.T) {
	d, err := Generate(Params{Kind: KindRailOptimized, ScalableUnits: 1}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	s := d.FabricSpec()
	if c := s.Cables[0]; c.Key != d.CableKeys[0] || c.Origin != "scalable_units" {
		t.Errorf("cable ref %+v, want key %s origin scalable_units", c.Ref, d.CableKeys[0])
	}
	if sw := s.Switches[0]; sw.Key != sw.Name || sw.Origin != "scalable_units" {
		t.Errorf("switch ref %+v", sw.Ref)
	}
}

// TestGroupsOfDesign: the design's own graph splits into exactly its groups (appliance links
// aside), so GroupsOf and the builder follow one rule.
func TestGroupsOfDesign(t *testing.T) {
	cat := catalog.Default()
	for name, p := range normalizedCases {
		t.Run(name, func(t *testing.T) {
			d, err := Generate(p, cat)
			if err != nil {
				t.Fatal(err)
			}
			s := d.Spec()
			s.Groups = d.FabricSpec().Groups
			all, groups := d.GroupsOf(s)
			if !reflect.DeepEqual(all.Racks, d.Racks) || !reflect.DeepEqual(all.Switches, d.Switches) ||
				!reflect.DeepEqual(all.Nodes, d.Nodes) || !reflect.DeepEqual(all.HCAs, d.HCAs) ||
				!reflect.DeepEqual(all.Cables, d.Cables) {
				t.Error("all differs from the design's maps")
			}
			if len(groups) != len(d.Groups) {
				t.Fatalf("%d groups, want %d", len(groups), len(d.Groups))
			}
			for i, g := range groups {
				want := d.Groups[i]
				want.Appliances = nil
				if !reflect.DeepEqual(g, want) {
					t.Errorf("group %s differs from the design's", want.Name)
				}
			}
		})
	}
}

// TestGroupsOfRenamed: a graph under other names goes by its Spec.Groups, HCAs with their
// node, cables with their lower-tier end, racks by the design's rack names.
func TestGroupsOfRenamed(t *testing.T) {
	d := &Design{Groups: []Group{
		{Name: "su01", Kind: GroupScalableUnit, Racks: map[string]fabric.Rack{"r1": {Name: "r1"}}},
		{Name: "su02", Kind: GroupScalableUnit},
		{Name: "spines", Kind: GroupCentral},
	}}
	hca := fabric.HCA{Name: "hgx-a001/mlx5_0", Node: "hgx-a001"}
	down := fabric.Cable{A: fabric.End{Device: hca.Name, Port: 1}, B: fabric.End{Device: "ib-leaf-07", Port: 3}}
	up := fabric.Cable{Ref: fabric.Ref{Key: "up"}, A: fabric.End{Device: "ib-leaf-07", Port: 40},
		B: fabric.End{Device: "ib-spine-1", Port: 1}}
	s := &fabric.Spec{
		Racks:    []fabric.Rack{{Name: "r1"}, {Name: "r9"}},
		Switches: []fabric.Switch{{Name: "ib-leaf-07"}, {Name: "ib-spine-1"}},
		Nodes:    []fabric.Node{{Name: "hgx-a001"}},
		HCAs:     []fabric.HCA{hca},
		Cables:   []fabric.Cable{down, up},
		Groups:   map[string]string{"ib-leaf-07": "su01", "hgx-a001": "su01", "ib-spine-1": "spines"},
	}
	all, groups := d.GroupsOf(s)
	if got := sortedKeys(all.Racks); !reflect.DeepEqual(got, []string{"r1", "r9"}) {
		t.Errorf("all racks %v", got)
	}
	if got := sortedKeys(all.Cables); !reflect.DeepEqual(got, []string{"hgx-a001/mlx5_0:1", "up"}) {
		t.Errorf("all cables %v", got)
	}
	want := map[string][5][]string{ // racks, switches, nodes, hcas, cables
		"su01":   {{"r1"}, {"ib-leaf-07"}, {"hgx-a001"}, {"hgx-a001/mlx5_0"}, {"hgx-a001/mlx5_0:1", "up"}},
		"su02":   {},
		"spines": {nil, {"ib-spine-1"}},
	}
	for i, g := range groups {
		if g.Name != d.Groups[i].Name || g.Kind != d.Groups[i].Kind {
			t.Errorf("group %d is %s %s", i, g.Name, g.Kind)
		}
		got := [5][]string{sortedKeys(g.Racks), sortedKeys(g.Switches), sortedKeys(g.Nodes), sortedKeys(g.HCAs), sortedKeys(g.Cables)}
		if !reflect.DeepEqual(got, want[g.Name]) {
			t.Errorf("group %s: %v, want %v", g.Name, got, want[g.Name])
		}
	}
}

func sortedKeys[T any](m map[string]T) []string {
	ks := keys(m)
	sort.Strings(ks)
	return ks
}
