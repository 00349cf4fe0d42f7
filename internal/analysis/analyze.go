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
	r.Tiers = t.maxLevel
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
	switch {
	case len(t.eps) < 2:
		r.BisectionRatio = 1 // nothing to bisect
	case r.FullBisectionGbps > 0:
		r.BisectionRatio = r.BisectionLowerGbps / r.FullBisectionGbps
	}
	if w != nil {
		r.AllReduce = allReduce(&r, w)
	}
	return r
}
