package topogen

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// A kind is its file and its line in the kind table (issue 20 item 2). testRingKind is a kind
// that exists only in this test file: a ring of ring_switches leaf switches, each cabled to the
// next with ring_links parallel links and hosting one node. Registering it is all it takes for
// Generate, Largest, Normalize, the argument table (and so the provider's schemas) and the
// refusal of other kinds' arguments to know it; nothing outside this file switches on it.
var testRingKind = &Kind{
	Name: "test-ring",
	Doc:  "a ring of switches, one node on each (a test kind)",
	Args: []*Arg{ringSwitchesArg, ringLinksArg},
	Defaults: func(p *Params) {
		if ringLinksArg.Int(p) == 0 {
			ringLinksArg.SetInt(p, 1)
		}
	},
	Generate: buildWith((*gen).testRing),
	Largest: largestWith(func(g *gen) string {
		return fmt.Sprintf("ring_switches = %d", MaxObjects/(2+2*g.h))
	}),
	Normalize: func(d *Design, p *Params) {
		ringLinksArg.SetInt(p, d.Summary.LinksByTier[TierTorus]/max(d.Summary.Switches, 1))
	},
	SizeAttribute: func(Params) string { return "ring_switches" },
}

// Made as a kind registered outside this package makes its arguments: no Params field, so the
// values live in Params.Extra.
var (
	ringSwitchesArg = &Arg{Name: "ring_switches", Type: ArgInt, Least: 3, Doc: "`test-ring`: switches in the ring."}
	ringLinksArg    = &Arg{Name: "ring_links", Type: ArgInt, Least: 1, Default: "1", Doc: "`test-ring`: links between neighbours."}
)

func init() { RegisterKind(testRingKind) }

func (g *gen) testRing() *Error {
	p, b := g.p, g.b
	n, links := ringSwitchesArg.Int(&p), ringLinksArg.Int(&p)
	switch {
	case n < 3:
		return refuse("ring_switches", "ring_switches = 3", "a ring has at least 3 switches, not %d", n)
	case g.h+2*links > g.r:
		return refuse("ring_links", fmt.Sprintf("ring_links = %d", (g.r-g.h)/2), "%d HCAs and 2 x %d ring links exceed %d ports", g.h, links, g.r)
	case n*(2+2*g.h+links) > MaxObjects:
		return refuse("ring_switches", g.largest(), "%s", budgetReason(fmt.Sprintf("a ring of %d switches", n), n*(2+2*g.h+links)))
	}
	b.des.Tiers = 1
	b.des.Summary.PlannedNodes = n
	if err := g.setLayout(1, n, n, 0, n); err != nil {
		return err
	}
	gs := b.group("ring", GroupPlane)
	b.tiers(TierNodeLeaf, TierTorus)
	sw := func(i int) string { return name(p.LeafPrefix, width(n, 2), i+1) }
	for i := 0; i < n; i++ {
		rack, u := b.blockSwitch(gs, 0, i)
		b.addSwitch(gs, fabric.Switch{Name: sw(i), Model: g.sw.Name, Rack: rack, PositionU: u, Role: fabric.RoleLeaf, GUID: g.switchGUID(1, i+1)})
	}
	for i := 0; i < n; i++ {
		rack, u := b.nodeSlot(gs, 0, i)
		node := g.node(gs, i, rack, u)
		for k := 0; k < g.h; k++ {
			b.addCable(gs, TierNodeLeaf, g.cable(g.hca(gs, node, i, k, -1), 1, sw(i), k+1))
		}
	}
	for i := 0; i < n; i++ {
		for l := 0; l < links; l++ {
			b.addCable(gs, TierTorus, g.link(sw(i), g.h+1+l, sw((i+1)%n), g.h+links+1+l))
		}
	}
	b.des.PortPlan = append(b.des.PortPlan,
		PortRange{Role: fabric.RoleLeaf, First: 1, Last: g.h, Faces: "nodes", Rule: "node i on switch i"},
		PortRange{Role: fabric.RoleLeaf, First: g.h + 1, Last: g.h + 2*links, Faces: "ring neighbours", Rule: "next, then previous"})
	return nil
}

func ringParams(n int) Params {
	p := Params{Kind: "test-ring"}
	ringSwitchesArg.SetInt(&p, n)
	return p
}

func TestKindRegisteredByItsFileAlone(t *testing.T) {
	if KindByName("test-ring") != testRingKind {
		t.Fatalf("kinds %v: the test kind is not in the table", KindNames())
	}
	// Its own arguments are in the table, once, beside every other kind's.
	seen := map[string]int{}
	for _, a := range Args() {
		seen[a.Path()]++
	}
	for _, name := range []string{"ring_switches", "ring_links", "torus_dims", "group_oversubscription", "node_count", "prefixes.leaf"} {
		if seen[name] != 1 {
			t.Errorf("argument %s appears %d times in the table", name, seen[name])
		}
	}
	if !strings.Contains(kindDoc(), "`test-ring` (a ring of switches, one node on each (a test kind))") {
		t.Errorf("the kind argument's description does not list the new kind: %s", kindDoc())
	}

	// It generates a design the fabric builds, consistent like every kind's.
	d := mustGen(t, ringParams(6))
	g := build(t, d)
	checkConsistent(t, d)
	// The closed form of a ring of an even number of switches: the cut between its halves crosses
	// 2 links of 400 Gb/s.
	if s := d.Summary; s.Switches != 6 || s.Nodes != 6 || s.LinksByTier[TierTorus] != 6 {
		t.Errorf("summary %+v", s)
	}
	if r := analysis.Analyze(g, nil); r.BisectionUpperGbps != 2*400 {
		t.Errorf("ring bisection %g Gb/s, want 800 (2 links cut)", r.BisectionUpperGbps)
	}

	// Normalizing resolves its own default (ring_links) and regenerates the same graph.
	n := d.Normalized()
	if ringLinksArg.Int(&n) != 1 || ringSwitchesArg.Int(&n) != 6 {
		t.Errorf("normalized %+v", n.Extra)
	}
	again := mustGen(t, n)
	if !reflect.DeepEqual(d.FabricSpec(), again.FabricSpec()) || !reflect.DeepEqual(again.Normalized(), n) {
		t.Error("the normalized test kind builds another graph")
	}
	if c := d.FabricSpec().Cables[0]; c.Origin != "ring_switches" {
		t.Errorf("a generated cable's origin %q, want the kind's size argument", c.Origin)
	}

	// Its arguments are refused on other kinds, and other kinds' on it; its refusals name its
	// largest size through the table.
	other := Params{Kind: KindFatTree, Nodes: 4}
	ringSwitchesArg.SetInt(&other, 4)
	wantRefusal(t, other, "ring_switches", `ring_switches does not apply to kind "fat-tree", which is sized by node_count; it applies to test-ring`, "")
	mixed := ringParams(4)
	mixed.Groups = 2
	wantRefusal(t, mixed, "group_count", `group_count does not apply to kind "test-ring", which is sized by ring_switches; it applies to dragonfly-plus`, "")
	wantRefusal(t, ringParams(2), "ring_switches", "at least 3 switches", "ring_switches = 3")
	_, err := Generate(ringParams(MaxObjects), cat)
	var e *Error
	if !errors.As(err, &e) || e.Attribute != "ring_switches" || e.Nearest != fmt.Sprintf("ring_switches = %d", MaxObjects/18) {
		t.Errorf("budget refusal %v, want the kind's largest size", err)
	}
}
