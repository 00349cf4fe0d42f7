package analysis

// The upper bound on the bisection is the capacity of a concrete balanced cut, the witness: the
// smallest found among
//
//	(a) "access links": every switch on side B and floor(N/2) endpoints alone on side A, so the
//	    cut is their access links (N/2 * B);
//	(b) "pod split" / "group split": whole subtrees (hier.go), tried in the fabric's own order
//	    and with the least connected pieces first; groups first when switches declare them;
//	(c) "geodesic sweep" (sweep.go), when every switch is a leaf (tori, meshes) or the fabric is
//	    small;
//	(d) Fiduccia-Mattheyses refinement (fm.go) of the best of those, kept when it is smaller
//	    ("refined <method>").
//
// Every candidate is a switch placement; evaluate turns it into the best balanced cut with that
// placement, moving endpoints across where needed, and gives its exact capacity.

const sweepAlwaysBelow = 64 // switches: below this the sweeps are cheap enough to always try

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
	if t.maxLevel >= 2 {
		try(t.treeCut(false), "pod split")
		try(t.treeCut(true), "pod split")
	}
	if t.hasGroups() {
		try(t.groupCut(false), "group split")
		try(t.groupCut(true), "group split")
	}
	if t.maxLevel <= 1 || t.n() < sweepAlwaysBelow {
		try(t.sweepCut(), "geodesic sweep")
	}
	try(t.refineFM(bestSide), "refined "+bestMethod)

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
