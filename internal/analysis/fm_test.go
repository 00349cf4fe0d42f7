package analysis

import "testing"

// From the access-link cut (every switch on B), refinement alone finds the leaf cut of a 2:1
// fabric: 8 leaves x 16 uplinks = 128 links, half of the 256 access links it starts from.
func TestFMFromAccessLinks(t *testing.T) {
	g := mustBuild(t, fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 4, hostsPerLeaf: 32, leafUp: 16}))
	tp := newTopo(g)
	side := make([]uint8, tp.n())
	for i := range side {
		side[i] = sideB
	}
	start := tp.evaluate(side)
	got := tp.evaluate(tp.refineFM(side))
	if start.gbps != 256*B || got.gbps != 128*B {
		t.Errorf("from %g to %g, want %g to %g", start.gbps, got.gbps, 256*B, 128*B)
	}
	if side[0] != sideB {
		t.Error("refineFM changed its input")
	}
}

// Refinement never makes a cut worse, from random placements of the 3-tier k=8 tree.
func TestFMNeverWorse(t *testing.T) {
	g := mustBuild(t, fatTree(treeParams{pods: 8, podLeaves: 4, podSpines: 4, hostsPerLeaf: 4, leafUp: 4, cores: 16, spineUp: 4}))
	tp := newTopo(g)
	side := make([]uint8, tp.n())
	for seed := 0; seed < 20; seed++ {
		for i := range side {
			side[i] = uint8((i*7 + seed*13 + i*i*seed) % 2)
		}
		before := tp.approx(tp.switchCut(side))
		after := tp.approx(tp.switchCut(tp.refineFM(side)))
		if after > before {
			t.Errorf("seed %d: %g -> %g", seed, before, after)
		}
	}
}
