package analysis

import (
	"math"
	"strconv"
	"testing"
)

func TestLatticeStep(t *testing.T) {
	for _, c := range []struct {
		rates []float64
		want  float64
	}{
		{[]float64{400, 400}, 400},
		{[]float64{400, 200, 800}, 200},
		{[]float64{400, 100}, 100},
		{[]float64{400, 250}, 50},
		{[]float64{53.125, 400}, 3.125}, // binary fractions are exact: gcd(425/8, 3200/8) = 25/8
		{[]float64{}, 0},
		{[]float64{400, 0}, 0},
	} {
		tp := &topo{}
		for i, r := range c.rates {
			if i%2 == 0 {
				tp.cap = append(tp.cap, r)
			} else {
				tp.eps = append(tp.eps, endpoint{gbps: r})
			}
		}
		if got := latticeStep(tp); got != c.want {
			t.Errorf("rates %v: step %g, want %g", c.rates, got, c.want)
		}
	}
}

// A proved bound snaps to the lattice point it proves; float noise either side of a lattice point
// never moves it to the next one.
func TestSnapLower(t *testing.T) {
	for _, c := range []struct{ x, g, want float64 }{
		{28799.999971200003, 400, 28800}, // 2/3 * 43200, the 6x6x6 torus of the issue
		{51199.9999488, 400, 51200},
		{28800.0000001, 400, 28800}, // noise above a lattice point: not lifted to 29200
		{28800, 400, 28800},
		{28801, 400, 29200}, // a real 1 Gb/s above proves the next cut: every cut is a multiple of 400
		{19664.5, 400, 20000},
		{0, 400, 0},
		{-1, 400, 0},
		{1000, 0, 1000 * (1 - latticeSlack)},
	} {
		if got := snapLower(c.x, c.g); got != c.want {
			t.Errorf("snapLower(%v, %g) = %v, want %v", c.x, c.g, got, c.want)
		}
	}
	if got := snapCut(25199.999999999996, 400); got != 25200 {
		t.Errorf("snapCut: %v", got)
	}
}

// Ratios print exactly when they end within 6 decimals, else with 4, rounded the way that keeps
// them true.
func TestRatioRounding(t *testing.T) {
	for _, c := range []struct {
		p, q     float64
		down, up float64
	}{
		{64, 63, 1.0158, 1.0159},
		{25200, 25600, 0.984375, 0.984375}, // 63/64 ends within 6 decimals: exact
		{31, 32, 0.96875, 0.96875},
		{4, 3, 1.3333, 1.3334},
		{2, 3, 0.6666, 0.6667},
		{1, 1, 1, 1},
		{0, 5, 0, 0},
		{51200, 51200, 1, 1},
		{53.125, 400, 0.1328, 0.1329}, // not whole numbers: the big.Rat path
		{1, 0, 0, 0},
	} {
		d, u := ratioDown(c.p, c.q), ratioUp(c.p, c.q)
		if d != c.down || u != c.up {
			t.Errorf("%g/%g: down %v up %v, want %v and %v", c.p, c.q, d, u, c.down, c.up)
		}
		for _, v := range []float64{d, u} {
			if s := strconv.FormatFloat(v, 'g', -1, 64); len(s) > 8 {
				t.Errorf("%g/%g: %s has noise", c.p, c.q, s)
			}
		}
	}
	for _, c := range []struct{ x, want float64 }{
		{1.0158730158730158, 1.0159},
		{2.0000000000000004, 2}, // noise of a division, not a ratio above 2
		{2.00005, 2.00005},      // 5 decimals: exact
		{2.0000051, 2.0001},
		{0.96875, 0.96875},
		{1, 1},
		{0, 0},
	} {
		if got := roundUpPlaces(c.x); got != c.want {
			t.Errorf("roundUpPlaces(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	for _, c := range []struct{ x, want float64 }{
		{0.4959677410000001, 0.495967741},
		{5.5890625, 5.5890625},
		{1.2335069444444444, 1.23350694},
		{123456789012, 123456789000},
		{math.Inf(1), math.Inf(1)},
		{0, 0},
	} {
		if got := roundSignificant(c.x); got != c.want {
			t.Errorf("roundSignificant(%v) = %v, want %v", c.x, got, c.want)
		}
	}
}

// Through Analyze: the 6x6x6 torus proves exactly its planar cut, and the ratio comes from the
// rounded values.
func TestAnalyzeNumbersExact(t *testing.T) {
	_, r := analyze(t, torus3D(6, 1))
	if r.BisectionLowerGbps != 28800 || r.BisectionUpperGbps != 28800 || r.BisectionRatio != 0.6666 {
		t.Errorf("lower %v upper %v ratio %v, want 28800, 28800, 0.6666", r.BisectionLowerGbps, r.BisectionUpperGbps, r.BisectionRatio)
	}
	_, r = analyze(t, fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 28}))
	for _, s := range r.PerSwitch {
		if v := strconv.FormatFloat(s.Oversubscription, 'g', -1, 64); len(v) > 8 {
			t.Errorf("%s: oversubscription %s", s.Name, v)
		}
	}
	if r.MaxOversubscription != 1.1429 { // 32/28 up
		t.Errorf("max oversubscription %v, want 1.1429", r.MaxOversubscription)
	}
}
