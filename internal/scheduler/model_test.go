package scheduler

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// leafNodes is the independent expectation: per first-tier switch, the nodes with an HCA on it.
func leafNodes(g *fabric.Graph) map[string][]string {
	out := map[string][]string{}
	for i := range g.Devices {
		d := &g.Devices[i]
		if d.Kind != fabric.KindHCA {
			continue
		}
		for _, li := range g.LinksOf(int32(i)) {
			o := &g.Devices[g.Links[li].Other(int32(i))]
			if o.Kind == fabric.KindSwitch && !contains(out[o.Name], d.Node) {
				out[o.Name] = append(out[o.Name], d.Node)
			}
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}

// Fat trees: every node hangs from one leaf, so units are the leaves themselves.
func TestFatTreeUnitsAreLeaves(t *testing.T) {
	for _, f := range fabrics[:2] {
		t.Run(f.name, func(t *testing.T) {
			d, g := generate(t, f.p)
			top := mustBuild(t, g)
			want := leafNodes(g)
			if len(top.Units) != len(want) {
				t.Fatalf("%d units, want %d leaves", len(top.Units), len(want))
			}
			for _, u := range top.Units {
				if len(u.Leaves) != 1 || u.Leaves[0] != u.Name {
					t.Errorf("unit %s has leaves %v, want itself", u.Name, u.Leaves)
				}
				if !reflect.DeepEqual(sorted(u.Nodes), sorted(want[u.Name])) {
					t.Errorf("unit %s nodes %v, want %v", u.Name, u.Nodes, want[u.Name])
				}
			}
			if top.Tiers != d.Tiers {
				t.Errorf("tiers %d, want the design's %d", top.Tiers, d.Tiers)
			}
			if top.Root != "" {
				t.Errorf("virtual root %q in a tree whose top switches reach every node", top.Root)
			}
		})
	}
}

// SuperPOD: each node is on eight rail leaves; the units are the design's scalable units.
func TestSuperPODUnitsAreScalableUnits(t *testing.T) {
	d, g := generate(t, fabrics[2].p)
	top := mustBuild(t, g)
	var sus []topogen.Group
	for _, gr := range d.Groups {
		if gr.Kind == topogen.GroupScalableUnit {
			sus = append(sus, gr)
		}
	}
	if len(sus) != 4 || len(top.Units) != 4 {
		t.Fatalf("%d units, %d SUs in the design; want 4 each", len(top.Units), len(sus))
	}
	total := 0
	for i, u := range top.Units {
		su := sus[i]
		var nodes, leaves []string
		for n := range su.Nodes {
			nodes = append(nodes, n)
		}
		for s := range su.Switches {
			leaves = append(leaves, s)
		}
		if u.Name != su.Name || !reflect.DeepEqual(sorted(u.Nodes), sorted(nodes)) || !reflect.DeepEqual(sorted(u.Leaves), sorted(leaves)) {
			t.Errorf("unit %d = %s %v %v, want SU %s with %d nodes, leaves %v", i, u.Name, u.Leaves, Compress(u.Nodes), su.Name, len(nodes), leaves)
		}
		total += len(u.Nodes)
	}
	if total != 127 || len(top.Units[0].Nodes) != 31 {
		t.Errorf("%d nodes (SU 1: %d), want 127 (31), RA-11333-001 Table 4", total, len(top.Units[0].Nodes))
	}
	conf := top.TreeConf("pod")
	for _, want := range []string{"SwitchName=su01 Nodes=gpu[001-031]\n", "SwitchName=su04 Nodes=gpu[096-127]\n", "SwitchName=spine01 Switches=su[01-04]\n", "SwitchName=spine16 Switches=su[01-04]\n"} {
		if !strings.Contains(conf, want) {
			t.Errorf("topology.conf lacks %q:\n%s", want, conf)
		}
	}
	if strings.Contains(conf, "SwitchName=leaf") {
		t.Errorf("rail leaves listed as Slurm leaf switches:\n%s", conf)
	}
}

// Same-tier links only (a torus): no switch reaches every node, so a virtual root joins them.
func TestTorusGetsVirtualRoot(t *testing.T) {
	_, g := generate(t, topogen.Params{Kind: topogen.KindTorus3D, TorusDims: [3]int{2, 2, 2}})
	top := mustBuild(t, g)
	if top.Root != "fabric" || len(top.RootChildren) != len(top.Units) || len(top.Units) != 8 {
		t.Fatalf("root %q children %v units %d; want fabric over 8 switches", top.Root, top.RootChildren, len(top.Units))
	}
	if !strings.Contains(top.TreeConf("t"), "SwitchName=fabric Switches=") {
		t.Error("no root line")
	}
}

func TestBadNamesRefused(t *testing.T) {
	spec := &fabric.Spec{
		Switches: []fabric.Switch{{Name: "leaf 01", Model: "QM9700"}},
		Nodes:    []fabric.Node{{Name: "gpu001", Model: "DGX-H100"}},
		HCAs:     []fabric.HCA{{Name: "gpu001/mlx5_0", Node: "gpu001", Device: "mlx5_0", Rail: -1}},
		Cables:   []fabric.Cable{{A: fabric.End{Device: "gpu001/mlx5_0", Port: 1}, B: fabric.End{Device: "leaf 01", Port: 1}}},
	}
	g, _ := fabric.Build(spec, catalog.Default())
	_, err := Build(g, Options{})
	if err == nil || !strings.Contains(err.Error(), `"leaf 01"`) || !strings.Contains(err.Error(), "space") {
		t.Errorf("error %v, want one naming the switch and the space", err)
	}
}

// A line break in root_name (issue 22) used to be written into topology.conf as a line of its
// own, "SwitchName=evil Nodes=ALL" giving every node to a switch that does not exist. Every
// control character is refused, with the name and why; plain names still go through. The
// refused name never reaches the text: Build returns no topology.
func TestRootNameCannotStartALine(t *testing.T) {
	_, g := generate(t, topogen.Params{Kind: topogen.KindTorus3D, TorusDims: [3]int{2, 2, 2}})
	for _, name := range []string{"x\nSwitchName=evil Nodes=ALL", "x\rSwitchName=evil", "x\tY", "x\x00y", "x\x7f"} {
		top, err := Build(g, Options{Groups: g.Spec.Groups, RootName: name})
		if err == nil || top != nil || !strings.Contains(err.Error(), "line break or another control character") || !strings.Contains(err.Error(), "root_name ") {
			t.Errorf("root_name %q: %v", name, err)
		}
		if msg := CheckName(name); !strings.HasPrefix(msg, strings.TrimSpace(`"`+strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`, "\x00", `\x00`, "\x7f", `\x7f`).Replace(name)+`" cannot be a switch name in topology.conf`)) {
			t.Errorf("CheckName(%q) = %q", name, msg)
		}
	}
	top, err := Build(g, Options{Groups: g.Spec.Groups, RootName: "hall-a.top_1"})
	if err != nil || !strings.Contains(top.TreeConf("t"), "SwitchName=hall-a.top_1 Switches=") {
		t.Errorf("a plain root_name: %v", err)
	}
	if strings.Count(top.TreeConf("t"), "SwitchName=") != 9 {
		t.Errorf("topology.conf:\n%s", top.TreeConf("t"))
	}
}

func TestTopologyNotesAndUnits(t *testing.T) {
	top := &Topology{
		Units:      []Unit{{Name: "su01", Leaves: []string{"leaf01", "leaf02"}}, {Name: "leaf09", Leaves: []string{"leaf09"}}},
		Unattached: []string{"gpu007", "gpu008", "gpu009", "gpu012"},
		Omitted:    []string{"leaf10", "spine04"},
	}
	wantNotes := []string{
		"nodes without a cabled HCA, left out: gpu[007-009,012]",
		"switches without nodes below them, left out: leaf10, spine04",
	}
	if got := top.Notes(); !reflect.DeepEqual(got, wantNotes) {
		t.Errorf("notes %q, want %q", got, wantNotes)
	}
	wantUnits := map[string][]string{"su01": {"leaf01", "leaf02"}, "leaf09": {"leaf09"}}
	if got := top.UnitLeaves(); !reflect.DeepEqual(got, wantUnits) {
		t.Errorf("units %v, want %v", got, wantUnits)
	}
	if got := (&Topology{}).Notes(); len(got) != 0 {
		t.Errorf("nothing left out: notes %q", got)
	}
}

func TestTopologyName(t *testing.T) {
	_, g := generate(t, fabrics[0].p)
	for name, want := range map[string]string{"": "gpucluster", "hall-a": "hall-a"} {
		top, err := Build(g, Options{TopologyName: name})
		if err != nil {
			t.Fatal(err)
		}
		if got := top.Name(); got != want {
			t.Errorf("TopologyName %q: name %q, want %q", name, got, want)
		}
	}
}
