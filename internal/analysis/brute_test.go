package analysis

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// bruteBisection enumerates every balanced cut of a tiny graph: every subset of switches for side
// A and every choice of floor(N/2) endpoints (HCA ports) for side A, and returns the least A->B
// capacity. It shares no code with the package.
func bruteBisection(g *fabric.Graph) float64 {
	swIdx := map[int32]int{}
	for d := range g.Devices {
		if g.Devices[d].Kind == fabric.KindSwitch && g.AdjStart[d+1] > g.AdjStart[d] {
			swIdx[int32(d)] = len(swIdx)
		}
	}
	S := len(swIdx)
	type edge struct {
		a, b int // vertex bits: switches 0..S-1, endpoints S..
		gbps float64
	}
	var edges []edge
	N := 0
	for _, l := range g.Links {
		if l.A == l.B {
			continue
		}
		da, db := g.Devices[l.A].Kind, g.Devices[l.B].Kind
		switch {
		case da == fabric.KindSwitch && db == fabric.KindSwitch:
			edges = append(edges, edge{swIdx[l.A], swIdx[l.B], l.RateGbps})
		case da == fabric.KindHCA:
			edges = append(edges, edge{S + N, swIdx[l.B], l.RateGbps})
			N++
		default:
			edges = append(edges, edge{S + N, swIdx[l.A], l.RateGbps})
			N++
		}
	}
	h := N / 2
	best := math.Inf(1)
	for epMask := uint32(0); epMask < 1<<N; epMask++ {
		if bits.OnesCount32(epMask) != h {
			continue
		}
		for swMask := uint32(0); swMask < 1<<S; swMask++ {
			m := swMask | epMask<<S
			c := 0.0
			for _, e := range edges {
				if (m>>e.a)&1 != (m>>e.b)&1 {
					c += e.gbps
				}
			}
			if c < best {
				best = c
			}
		}
	}
	return best
}

// On tiny random wirings (up to 6 switches and 12 endpoints, parallel links and loops, possibly
// in pieces) the proved lower bound is at most the true bisection and the witness at least it.
func TestBruteForceBounds(t *testing.T) {
	cat := catalog.Default()
	rng := rand.New(rand.NewPCG(1, 2))
	tight, lowTight, total := 0, 0, 0
	for i := 0; i < 300; i++ {
		spec := randomSpec(rng, 6, 12)
		g, _ := fabric.Build(spec, cat)
		r := Analyze(g, nil)
		checkSound(t, g, r)
		if r.Endpoints < 2 {
			continue
		}
		truth := bruteBisection(g)
		total++
		if r.BisectionLowerGbps > truth+1e-6 || r.BisectionUpperGbps < truth-1e-6 {
			t.Fatalf("case %d: lower %g, true %g, upper %g (%d switches, %d endpoints, %d links)", i, r.BisectionLowerGbps, truth, r.BisectionUpperGbps, r.Switches, r.Endpoints, r.Links)
		}
		if r.BisectionUpperGbps <= truth+1e-6 {
			tight++
		}
		if r.BisectionLowerGbps >= truth-1e-6 {
			lowTight++
		}
	}
	if tight != total {
		t.Errorf("with exhaustive search the upper bound is exact, but only in %d of %d", tight, total)
	}
	t.Logf("lower bound exact in %d of %d random graphs", lowTight, total)
}

// The same without the exhaustive search: the heuristics (access links, pod split, sweeps, FM)
// alone are still sound; how often they find the optimum is logged.
func TestBruteForceHeuristicUpper(t *testing.T) {
	defer func(v int) { exhaustiveBelow = v }(exhaustiveBelow)
	exhaustiveBelow = 0
	cat := catalog.Default()
	rng := rand.New(rand.NewPCG(3, 4))
	tight, total := 0, 0
	for i := 0; i < 300; i++ {
		g, _ := fabric.Build(randomSpec(rng, 6, 12), cat)
		r := Analyze(g, nil)
		checkSound(t, g, r)
		if r.Endpoints < 2 {
			continue
		}
		truth := bruteBisection(g)
		total++
		if r.BisectionUpperGbps < truth-1e-6 {
			t.Fatalf("case %d: upper %g below the true %g", i, r.BisectionUpperGbps, truth)
		}
		if r.BisectionUpperGbps <= truth+1e-6 {
			tight++
		}
	}
	t.Logf("heuristic upper bound exact in %d of %d random graphs", tight, total)
}
