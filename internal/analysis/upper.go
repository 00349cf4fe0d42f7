package analysis

import "math/bits"

// The upper bound on the bisection is the capacity of a concrete balanced cut, the witness: the
// smallest found among
//
//	(a) "access links": every switch on side B and floor(N/2) endpoints alone on side A, so the
//	    cut is their access links (N/2 * B);
//	(b) "pod split" / "group split": whole subtrees (hier.go) below each level, tried in the
//	    fabric's own order and with the least connected pieces first, with the switches above
//	    placed by majority or kept on side B; groups first when switches declare them;
//	(c) "geodesic sweep" (sweep.go), when every switch is a leaf (tori, meshes) or the fabric is
//	    small;
//	(d) Fiduccia-Mattheyses refinement (fm.go) of the best of those, kept when it is smaller
//	    ("refined <method>");
//	(e) "exhaustive": on fabrics of at most 16 switches, every placement of the switches, in
//	    Gray-code order so that each step flips one switch and costs its degree. With one port
//	    rate this is the exact bisection, since evaluate places the endpoints optimally.
//
// Every candidate is a switch placement; evaluate turns it into the best balanced cut with that
// placement, moving endpoints across where needed, and gives its exact capacity.

const sweepAlwaysBelow = 64 // switches: below this the sweeps are cheap enough to always try

// exhaustiveBelow: up to this many switches, try every placement (a variable so that the tests
// can check the heuristics alone).
var exhaustiveBelow = 16

func upperBound(t *topo) Cut {
	c := Cut{EndpointsA: t.half, EndpointsB: len(t.eps) - t.half, Method: "none"}
	if len(t.eps) < 2 {
		c.SwitchesB = make([]string, 0, t.n())
		for s := range t.dev {
			c.SwitchesB = append(c.SwitchesB, t.name(int32(s)))
		}
		c.SwitchesA = []string{}
		c.MovedEndpoints = []string{}
		return c
	}
	var (
		bestSide   []uint8
		best       cutValue
		bestMethod string
	)
	try := func(side []uint8, method string) {
		if side == nil {
			return
		}
		v := t.evaluate(side)
		if bestSide == nil || v.gbps < best.gbps-fmEps*(1+best.gbps) {
			bestSide, best, bestMethod = side, v, method
		}
	}
	all := make([]uint8, t.n())
	for i := range all {
		all[i] = sideB
	}
	try(all, "access links")
	for top := t.maxLevel; top >= 2; top-- {
		for _, byRatio := range []bool{false, true} {
			for _, strict := range []bool{false, true} {
				try(t.treeCut(int32(top), byRatio, strict), "pod split")
			}
		}
	}
	if t.hasGroups() {
		try(t.groupCut(false), "group split")
		try(t.groupCut(true), "group split")
	}
	if t.maxLevel <= 1 || t.n() < sweepAlwaysBelow {
		try(t.sweepCut(), "geodesic sweep")
	}
	try(t.refineFM(bestSide), "refined "+bestMethod)
	if t.n() <= exhaustiveBelow {
		try(t.exhaustiveCut(), "exhaustive")
	}

	c.Method = bestMethod
	c.CapacityGbps = best.gbps
	c.CrossingLinks = best.links
	c.SwitchesA, c.SwitchesB = []string{}, []string{}
	for s, sd := range bestSide {
		if sd == sideA {
			c.SwitchesA = append(c.SwitchesA, t.name(int32(s)))
		} else {
			c.SwitchesB = append(c.SwitchesB, t.name(int32(s)))
		}
	}
	c.MovedEndpoints = make([]string, len(best.moved))
	for i, e := range best.moved {
		c.MovedEndpoints[i] = t.epName(e)
		if bestSide[t.eps[e].sw] == sideB {
			c.MovedToA++
		}
	}
	return c
}

func (t *topo) hasGroups() bool {
	for _, d := range t.dev {
		if t.g.Devices[d].Group != "" {
			return true
		}
	}
	return false
}

// exhaustiveCut returns the switch placement of least approx cost among all 2^n.
func (t *topo) exhaustiveCut() []uint8 {
	n := t.n()
	side := make([]uint8, n)
	for i := range side {
		side[i] = sideB
	}
	best := make([]uint8, n)
	copy(best, side)
	cut, nA := 0.0, 0
	bestVal := t.approx(cut, nA)
	for i := uint64(1); i < 1<<uint(n); i++ {
		x := int32(bits.TrailingZeros64(i)) // Gray code: step i flips the bit of its lowest set bit
		for k := t.start[x]; k < t.start[x+1]; k++ {
			if side[t.nbr[k]] == side[x] {
				cut += t.cap[k]
			} else {
				cut -= t.cap[k]
			}
		}
		if side[x] == sideA {
			nA -= int(t.epN[x])
		} else {
			nA += int(t.epN[x])
		}
		side[x] ^= 1
		if v := t.approx(cut, nA); v < bestVal-fmEps*(1+bestVal) {
			bestVal = v
			copy(best, side)
		}
	}
	return best
}
