package scheduler

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// scontrolSwitch is one line of `scontrol show topology`.
type scontrolSwitch struct {
	level    string
	nodes    []string
	switches []string
}

func parseShowTopology(t *testing.T, out string) map[string]scontrolSwitch {
	t.Helper()
	got := map[string]scontrolSwitch{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var name string
		var s scontrolSwitch
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, "=")
			var err error
			switch k {
			case "SwitchName":
				name = v
			case "Level":
				s.level = v
			case "Nodes":
				s.nodes, err = testrig.ExpandHostlist(v)
			case "Switches":
				s.switches, err = testrig.ExpandHostlist(v)
			}
			if err != nil {
				t.Fatalf("scontrol line %q: %v", line, err)
			}
		}
		if name == "" {
			t.Fatalf("scontrol printed %q, not a switch line", line)
		}
		got[name] = s
	}
	return got
}

// Topology warnings slurmctld logs for a topology that does not fit the tree plugin
// (src/plugins/topology/tree/switch_record.c).
var slurmTopologyWarnings = []string{"Multiple leaf switches contain nodes", "switches lack access", "no switch can reach all nodes", "Invalid hostnames in switch configuration"}

// The generated topology.conf, read by the real slurmctld: `scontrol show topology` lists exactly
// the expected switches, each leaf with the nodes cabled to it (for the SuperPOD: each scalable
// unit with its nodes), each upper switch with its children and every node below, and the
// controller logs none of the tree plugin's topology warnings.
func TestSlurmctldAcceptsTreeConf(t *testing.T) {
	testrig.RequirePeers(t)
	for _, f := range fabrics {
		t.Run(f.name, func(t *testing.T) {
			d, g := generate(t, f.p)
			top := mustBuild(t, g)
			conf := top.TreeConf(f.name)
			ctld := testrig.StartSlurmctld(t, Compress(top.NodeOrder), "topology/tree", conf)
			out, err := ctld.Scontrol("show", "topology")
			if err != nil {
				t.Fatalf("scontrol show topology: %v\n%s", err, out)
			}
			got := parseShowTopology(t, out)

			// The expectation, from the graph and the design, not from Build's output.
			want := map[string]scontrolSwitch{}
			below := map[string][]string{}
			unitOf := map[string]string{}
			leaves := leafNodes(g)
			units := map[string][]string{} // unit -> leaves
			for leaf := range leaves {
				u := leaf
				if f.p.Kind == "rail-optimized" {
					u = g.Spec.Groups[leaf] // the SU, RA-11333-001
				}
				unitOf[leaf] = u
				units[u] = append(units[u], leaf)
			}
			for u, ls := range units {
				var nodes []string
				for _, l := range ls {
					for _, n := range leaves[l] {
						if !contains(nodes, n) {
							nodes = append(nodes, n)
						}
					}
				}
				below[u] = nodes
				want[u] = scontrolSwitch{level: "0", nodes: sorted(nodes)}
			}
			for level := 2; level <= d.Tiers; level++ {
				for i := 0; i < g.NumSwitches(); i++ {
					sw := &g.Devices[i]
					if sw.Level != level {
						continue
					}
					var kids, nodes []string
					for _, li := range g.LinksOf(int32(i)) {
						o := &g.Devices[g.Links[li].Other(int32(i))]
						if o.Kind != fabric.KindSwitch || o.Level != level-1 {
							continue
						}
						c := o.Name
						if level == 2 {
							c = unitOf[o.Name]
						}
						if !contains(kids, c) {
							kids = append(kids, c)
							for _, n := range below[c] {
								if !contains(nodes, n) {
									nodes = append(nodes, n)
								}
							}
						}
					}
					below[sw.Name] = nodes
					want[sw.Name] = scontrolSwitch{level: string(rune('0' + level - 1)), nodes: sorted(nodes), switches: sorted(kids)}
				}
			}
			if f.p.Kind != "rail-optimized" && len(want) != g.NumSwitches() {
				t.Fatalf("expectation has %d switches, the fabric %d", len(want), g.NumSwitches())
			}
			for name, w := range want {
				s, ok := got[name]
				if !ok {
					t.Errorf("scontrol lacks switch %s", name)
					continue
				}
				s.nodes, s.switches = sorted(s.nodes), sorted(s.switches)
				if !reflect.DeepEqual(s, w) {
					t.Errorf("switch %s: scontrol says level %s nodes %s switches %s; want level %s nodes %s switches %s",
						name, s.level, Compress(s.nodes), Compress(s.switches), w.level, Compress(w.nodes), Compress(w.switches))
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok {
					t.Errorf("scontrol lists %s, which the fabric does not have", name)
				}
			}
			log := ctld.Log()
			for _, w := range slurmTopologyWarnings {
				if strings.Contains(log, w) {
					t.Errorf("slurmctld warns %q:\n%s", w, log)
				}
			}
		})
	}
}

// Why the SuperPOD's leaf level is the scalable unit: listing each node under its eight rail
// leaves, as the cabling has it, is what Slurm's tree plugin reports as a bad configuration.
func TestSlurmctldWarnsOnRailLeaves(t *testing.T) {
	testrig.RequirePeers(t)
	_, g := generate(t, fabrics[2].p)
	leaves := leafNodes(g)
	var b strings.Builder
	var all []string
	for i := 0; i < g.NumSwitches(); i++ {
		name := g.Devices[i].Name
		if ns, ok := leaves[name]; ok {
			b.WriteString("SwitchName=" + name + " Nodes=" + Compress(ns) + "\n")
			for _, n := range ns {
				if !contains(all, n) {
					all = append(all, n)
				}
			}
		}
	}
	ctld := testrig.StartSlurmctld(t, Compress(all), "topology/tree", b.String())
	if !testrig.WaitFor(5*time.Second, func() bool { return strings.Contains(ctld.Log(), "Multiple leaf switches contain nodes") }) {
		t.Errorf("slurmctld accepted nodes on eight leaves without its multi-homing warning; log:\n%s", ctld.Log())
	}
}

// Dragonfly+: global links join spines of one tier, which a tree cannot hold; the virtual root
// gives slurmctld a switch over every node, so jobs may span groups and no warning is logged.
func TestSlurmctldDragonflyRoot(t *testing.T) {
	testrig.RequirePeers(t)
	_, g := generate(t, topogen.Params{Kind: topogen.KindDragonflyPlus, Groups: 2, LeavesPerGroup: 4, SpinesPerGroup: 8})
	top := mustBuild(t, g)
	if top.Root == "" {
		t.Fatal("no virtual root for a dragonfly+")
	}
	ctld := testrig.StartSlurmctld(t, Compress(top.NodeOrder), "topology/tree", top.TreeConf("df"))
	out, err := ctld.Scontrol("show", "topology")
	if err != nil {
		t.Fatalf("scontrol: %v\n%s", err, out)
	}
	got := parseShowTopology(t, out)
	root, ok := got["fabric"]
	if !ok || !reflect.DeepEqual(sorted(root.nodes), sorted(top.NodeOrder)) {
		t.Errorf("root %+v, want every one of the %d nodes below it", root, len(top.NodeOrder))
	}
	for _, w := range slurmTopologyWarnings {
		if strings.Contains(ctld.Log(), w) {
			t.Errorf("slurmctld warns %q", w)
		}
	}
}
