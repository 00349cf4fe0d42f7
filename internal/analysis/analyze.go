package analysis

import "github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"

// Analyze computes the whole Result for a graph; w may be nil (no all-reduce estimate). It never
// fails: a fabric in pieces or without endpoints gets the numbers that are true of it (a lower
// bound of 0 when some endpoint cannot reach the top tier, no cut with fewer than two endpoints),
// and the graph builder's problems say what is wrong. The graph is not modified.
func Analyze(g *fabric.Graph, w *Workload) Result {
	r := Result{Oversubscription: map[string]float64{}, Worst: map[string]SwitchLoad{}}
	if g == nil {
		return r
	}
	t := newTopo(g)
	r.Endpoints = len(t.eps)
	r.Switches = t.n()
	r.Links = len(g.Links)
	r.Tiers = switchTiers(t) // oversub.go: declared roles, else levels
	r.PortRateGbps = t.rate
	for _, e := range t.eps {
		r.FullBisectionGbps += e.gbps
	}
	r.FullBisectionGbps /= 2

	oversubscription(t, &r)
	hops(t, &r)

	lo := lowerBound(t)
	r.BisectionLowerGbps = lo.gbps
	if lo.link >= 0 && lo.theta < 1 {
		l := &g.Links[lo.link]
		r.BottleneckLink = [2]string{g.Devices[l.A].Name, g.Devices[l.B].Name}
	}
	r.Cut = upperBound(t)
	r.BisectionUpperGbps = r.Cut.CapacityGbps
	r.BisectionLowerMethod = "valiant"
	// The best of two sound bounds: the enumeration (lower_enum.go) is exact on two-tier fabrics
	// with few spine classes, damaged ones included; it is not needed when the routing bound
	// already meets the witness.
	step := latticeStep(t)
	if snapLower(lo.gbps, step) < snapCut(r.BisectionUpperGbps, step) {
		if e := enumBound(t); e.ok && e.gbps > r.BisectionLowerGbps {
			r.BisectionLowerGbps = e.gbps
			r.BisectionLowerMethod = "enumeration"
			if e.exact {
				r.BisectionLowerMethod = "exact enumeration"
			}
		}
	}
	present(t, &r, step)
	if w != nil {
		r.AllReduce = allReduce(&r, w, gpusOf(t, w))
		presentAllReduce(r.AllReduce)
	}
	return r
}
