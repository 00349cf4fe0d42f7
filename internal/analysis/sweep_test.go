package analysis

import "testing"

// The sweeps alone find the planar cut of an even torus, 2k^2 links, whatever the switch order.
func TestSweepTorusPlanarCut(t *testing.T) {
	for _, k := range []int{4, 6, 8} {
		spec := torus3D(k, 1)
		// Reverse the declaration order so that index order is no help.
		for i, j := 0, len(spec.Switches)-1; i < j; i, j = i+1, j-1 {
			spec.Switches[i], spec.Switches[j] = spec.Switches[j], spec.Switches[i]
		}
		tp := newTopo(mustBuild(t, spec))
		v := tp.evaluate(tp.sweepCut())
		// (For k = 4 the 32 access links of half the endpoints tie with the planar cut.)
		if want := float64(2*k*k) * B; v.gbps != want || (k > 4 && len(v.moved) != 0) {
			t.Errorf("k=%d: sweep cut %g with %d moved endpoints, want %g", k, v.gbps, len(v.moved), want)
		}
	}
}
