package scheduler

import (
	"reflect"
	"strings"
	"testing"
)

// Nodes to drain (an HCA cut off by its own failed cable) are listed in spec order and noted,
// and keep their place in the topology: the tree and the labels are those without a drain.
func TestDrainKeepsTheNodeInPlace(t *testing.T) {
	_, g := generate(t, fabrics[0].p)
	plain := mustBuild(t, g)
	nodes := g.Spec.Nodes
	a, b := nodes[len(nodes)-1].Name, nodes[2].Name
	top, err := Build(g, Options{Groups: g.Spec.Groups, Drain: map[string]string{a: "cable down", b: "cable down"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{b, a}; !reflect.DeepEqual(top.Drain, want) {
		t.Errorf("drain %v, want %v (spec order)", top.Drain, want)
	}
	if top.TreeConf("t") != plain.TreeConf("t") || !reflect.DeepEqual(top.NodeLabels(), plain.NodeLabels()) {
		t.Error("draining a node changed the topology")
	}
	notes := top.Notes()
	if len(notes) == 0 || !strings.HasPrefix(notes[len(notes)-1], "nodes to drain while their failed cables are down (kept in the topology): ") ||
		!strings.Contains(notes[len(notes)-1], strings.TrimLeft(b, "gpu")) {
		t.Errorf("notes %q", notes)
	}
	if len(plain.Drain) != 0 {
		t.Errorf("no drain asked, drain %v", plain.Drain)
	}
}
