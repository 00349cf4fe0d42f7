package analysis

import "github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"

// Analyze computes the whole Result for a graph; w may be nil (no all-reduce estimate). It never
// fails: a fabric in pieces or without endpoints gets the numbers that are true of it (a lower
// bound of 0 when some endpoint cannot reach the top tier, no cut with fewer than two endpoints),
// and the graph builder's problems say what is wrong. The graph is not modified.
//
// Sources. Oversubscription is the down:up capacity ratio of a fat tree's switches (C. E.
// Leiserson, "Fat-trees: universal networks for hardware-efficient supercomputing", IEEE Trans.
// Computers C-34(10):892-901, 1985, doi:10.1109/TC.1985.6312192); worst hops by breadth-first
// search (E. F. Moore, "The shortest path through a maze", 1959). The bisection's lower bound is
// the best of a two-phase Valiant load-balancing routing under the hose model (L. G. Valiant, "A
// scheme for fast parallel communication", SIAM J. Computing 11(2):350-361, 1982,
// doi:10.1137/0211027), an enumeration of switch placements solved as a knapsack (after T. N.
// Bui, S. Chaudhuri, F. T. Leighton, M. Sipser, Combinatorica 7(2), 1987,
// doi:10.1007/BF02579448) and a completion of a damaged tree; its upper bound is a concrete cut
// refined by Fiduccia-Mattheyses ("A linear-time heuristic for improving network partitions",
// 19th Design Automation Conference, 1982, doi:10.1109/DAC.1982.1585498). The all-reduce
// estimates are bandwidth terms of the ring and its hierarchical variant (P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce
// algorithms for clusters of workstations", JPDC 69(2):117-124, 2009,
// doi:10.1016/j.jpdc.2008.09.002). The files named in the package doc give each argument.
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
	r.FullBisectionGbps = t.smallestHalf() // full.go: floor(N/2) ports, not N/2

	oversubscription(t, &r)
	hops(t, &r)

	// The best of four sound bounds, the cheap ones first, each tried only while the bound is
	// below the witness (r.Cut): the routing bound through the top tier (lower.go); the
	// enumeration (lower_enum.go), exact on two-tier fabrics with few spine classes, damaged ones
	// included; degradation from a completion (lower_degrade.go), for damaged three-tier trees;
	// and the routing bound through the other tiers (lower.go, on its own work budget).
	r.Cut = upperBound(t)
	r.BisectionUpperGbps = r.Cut.CapacityGbps
	step := latticeStep(t)
	open := func() bool {
		return snapLower(r.BisectionLowerGbps, step) < snapCut(r.BisectionUpperGbps, step) && r.BisectionLowerMethod != "exact enumeration"
	}
	lo := lowerBoundOf(t, false, nil)
	r.BisectionLowerGbps, r.BisectionLowerMethod = lo.gbps, "valiant"
	if open() {
		if e := enumBound(t); e.ok && e.gbps > r.BisectionLowerGbps {
			r.BisectionLowerGbps, r.BisectionLowerMethod = e.gbps, "enumeration"
			if e.exact {
				r.BisectionLowerMethod = "exact enumeration"
			}
		}
	}
	if open() {
		if d, ok := degradeBound(t); ok && d > r.BisectionLowerGbps {
			r.BisectionLowerGbps, r.BisectionLowerMethod = d, "degradation"
		}
	}
	if open() && lo.theta < 1 {
		if all := lowerBoundOf(t, true, &lo); all.theta > lo.theta {
			lo = all
			if all.gbps > r.BisectionLowerGbps {
				r.BisectionLowerGbps, r.BisectionLowerMethod = all.gbps, "valiant"
			}
		}
	}
	if lo.link >= 0 && lo.theta < 1 {
		l := &g.Links[lo.link]
		r.BottleneckLink = [2]string{g.Devices[l.A].Name, g.Devices[l.B].Name}
	}
	present(t, &r, step)
	if w != nil {
		r.AllReduce = allReduce(&r, w, gpusOf(t, w))
		presentAllReduce(r.AllReduce)
	}
	return r
}
