package topogen

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// A 2:1 leaf on 64 ports is 42 down and 21 up with one port spare (issue 10: it could not be
// built, and the refusal's suggestion 2.048 was itself refused).
func TestOversubscriptionWithSpare(t *testing.T) {
	d := mustGen(t, Params{Kind: KindFatTree, Nodes: 100, Oversubscription: 2})
	build(t, d)
	checkConsistent(t, d)
	var leafUp, spare bool
	for _, r := range d.PortPlan {
		if r.Role == fabric.RoleLeaf && r.Faces == "spines" && r.First == 43 && r.Last == 63 {
			leafUp = true
		}
		if r.Role == fabric.RoleLeaf && r.First == 64 && r.Last == 64 && strings.Contains(r.Faces, "spare") {
			spare = true
		}
	}
	if !leafUp || !spare {
		t.Errorf("want leaf ports 43-63 up and 64 spare:\n%s", d.PortPlanText())
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), "42:21") {
		t.Errorf("notes do not say the split: %q", d.Notes)
	}
	for _, c := range d.CableList {
		if c.A.Device == "leaf01" && c.A.Port == 64 || c.B.Device == "leaf01" && c.B.Port == 64 {
			t.Errorf("spare port cabled: %+v", c)
		}
	}
	// A ratio is accepted exactly, not rounded: 43/21 as Terraform evaluates it.
	d = mustGen(t, Params{Kind: KindFatTree, Nodes: 100, Oversubscription: 43.0 / 21})
	if !strings.Contains(d.PortPlanText(), "leaf ports 44-64: spines") {
		t.Errorf("43/21:\n%s", d.PortPlanText())
	}
}

var suggestion = regexp.MustCompile(`oversubscription = ([0-9./]+)`)

// Every value a refusal suggests is accepted, for every ratio on a grid from 1 to 70.
func TestOversubscriptionSuggestionsAccepted(t *testing.T) {
	refused := 0
	for i := 100; i <= 7000; i += 7 {
		o := float64(i) / 100
		_, err := Generate(Params{Kind: KindFatTree, Nodes: 16, Oversubscription: o}, cat)
		if err == nil {
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Attribute != "oversubscription" {
			t.Fatalf("%g: %v", o, err)
		}
		refused++
		ms := suggestion.FindAllStringSubmatch(e.Nearest, -1)
		if len(ms) == 0 {
			t.Errorf("%g: no suggestion in %q", o, e.Nearest)
		}
		for _, m := range ms {
			v := parseRatio(t, m[1])
			if _, err := Generate(Params{Kind: KindFatTree, Nodes: 16, Oversubscription: v}, cat); err != nil {
				t.Errorf("%g: suggested %s, which is refused: %v", o, m[1], err)
			}
		}
	}
	if refused == 0 {
		t.Fatal("no ratio refused: the grid tests nothing")
	}
}

// parseRatio reads a suggestion as Terraform would: a number or a division expression.
func parseRatio(t *testing.T, s string) float64 {
	t.Helper()
	if a, b, ok := strings.Cut(s, "/"); ok {
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad suggestion %q", s)
		}
		return float64(x) / float64(y)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("bad suggestion %q", s)
	}
	return v
}

// tiers = 3 on a design that fits one pod would build cores on no shortest path: refused, with
// the sizes that do work.
func TestThreeTiersOnePodRefused(t *testing.T) {
	e := refusal(t, Params{Kind: KindFatTree, Nodes: 64, Tiers: 3}, "tiers", "core switches would be on no shortest path", "tiers = 2")
	if !strings.Contains(e.Nearest, "planned_nodes = 129") {
		t.Errorf("nearest %q: want planned_nodes = 129 (32 leaves x 32 ports / 8 + 1)", e.Nearest)
	}
	wantRefusal(t, Params{Kind: KindRailOptimized, ScalableUnits: 2, Tiers: 3}, "tiers", "fit one 3-tier pod", "planned_scalable_units = 5")
	// The suggested plan builds 3 tiers whose cores lie on shortest paths between the pods.
	d := mustGen(t, Params{Kind: KindFatTree, Nodes: 64, PlannedNodes: 129, Tiers: 3})
	if d.Tiers != 3 || d.Summary.SwitchesByRole[fabric.RoleCore] == 0 {
		t.Fatalf("tiers %d, cores %d", d.Tiers, d.Summary.SwitchesByRole[fabric.RoleCore])
	}
	build(t, d)
}

// A 5x5x5 torus at one endpoint per switch cannot be filled with 8-HCA nodes: refused with the
// count of switches that would stay empty; the default (one node per switch) builds all 125.
func TestTorusFill(t *testing.T) {
	wantRefusal(t, Params{Kind: KindTorus3D, TorusDims: [3]int{5, 5, 5}, EndpointsPerSwitch: 1}, "endpoints_per_switch",
		"15 whole nodes take 120 ports and 5 switch(es) would stay without an endpoint", "endpoints_per_switch = 8")
	d := mustGen(t, Params{Kind: KindTorus3D, TorusDims: [3]int{5, 5, 5}})
	if d.Summary.Endpoints != 1000 || d.Summary.Switches != 125 || d.Tiers != 1 {
		t.Errorf("5x5x5 default: %d endpoints, %d switches, %d tiers", d.Summary.Endpoints, d.Summary.Switches, d.Tiers)
	}
	// Asked explicitly for fewer nodes, the empty switches are built and said.
	d = mustGen(t, Params{Kind: KindTorus3D, TorusDims: [3]int{5, 5, 5}, Nodes: 100})
	if !strings.Contains(strings.Join(d.Notes, "\n"), "25 of 125 switches host no endpoint yet") {
		t.Errorf("notes %q", d.Notes)
	}
	// 8 ports a switch over 2 switches a node: 2x2x3 = 12 switches hold 12*4/8 = 6 nodes exactly.
	d = mustGen(t, Params{Kind: KindTorus3D, TorusDims: [3]int{2, 2, 3}, EndpointsPerSwitch: 4})
	if d.Summary.Nodes != 6 {
		t.Errorf("2x2x3 at 4: %d nodes", d.Summary.Nodes)
	}
}
