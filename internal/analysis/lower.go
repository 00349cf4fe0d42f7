package analysis

import (
	"math"
	"sort"
)

// The lower bound on the bisection: a routing that carries every hose traffic matrix at a rate
// theta proves that no balanced cut is smaller than theta times the traffic a bisection must carry.
//
// Routing. Two-phase Valiant load balancing (L. G. Valiant, "A scheme for fast parallel
// communication", SIAM J. Computing 11(2), 1982; for the hose model, R. Zhang-Shen and
// N. McKeown, "Designing a predictable Internet backbone with Valiant load-balancing", IWQoS
// 2005) through the top tier. M is the set of switches at the highest level (every switch of a
// torus, where every switch is a leaf), and pi a fixed distribution on M, proportional to each
// switch's total link capacity. A unit of traffic from endpoint s to endpoint t goes, for every m
// in M, a share pi(m) of it:
//
//	phase 1: from s to m along shortest switch paths, splitting at every switch over the links
//	         to neighbours one step closer to m in proportion to their rates (ECMP); HCAs are
//	         never transit, so the path is s's access link and then switches only;
//	phase 2: from m to t along the reverse of t's phase-1 paths to m.
//
// Load. Let a_e(s) be the fraction of s's phase-1 traffic that crosses the directed link e, and
// b_e(t) the fraction of t's phase-1 traffic that crosses the reverse of e. The pair (s, t) puts
// T(s,t) * (a_e(s) + b_e(t)) on e, so for any traffic matrix T
//
//	load_e(T) = sum_s a_e(s) * rowsum_s(T) + sum_t b_e(t) * colsum_t(T).
//
// Hose model: every endpoint x sends and receives at most its port rate B_x. Then
// load_e(T) <= sum_s a_e(s) B_s + sum_t b_e(t) B_t = P1(e) + P1(rev e), where P1 is the load of
// phase 1 when every endpoint sends B_x: one fixed flow, computed once. Hence the routing carries
// theta * T for every hose matrix T with theta = min(1, min_e cap_e / (P1(e) + P1(rev e))).
// Access links: s -> leaf carries at most B_s and leaf -> t at most B_t, never above their rate,
// so only switch-to-switch links can make theta smaller than 1.
//
// Cut. Let (A, B) be a balanced cut, |A| = h = floor(N/2) endpoints (switches anywhere, an
// endpoint on either side of its leaf). Pair the endpoints of A with h endpoints of B, the i-th
// largest rate of A with the i-th largest of B, each pair sending min of the two rates: that is
// a hose matrix (every row and column has at most one entry, within the port's rate), and all of
// it goes from A to B, so every unit of it crosses an A -> B link at least once. With theta * T
// routed within capacities, capacity(A -> B) >= theta * |T|. The i-th largest rate of a set of h
// is at least the (h-i+1)-th smallest rate of the whole fabric, so |T| >= D, the sum of the h
// smallest endpoint rates (h * B when all ports run at B). Therefore
//
//	every balanced cut has capacity(A -> B) >= theta * D = BisectionLowerGbps.
//
// With every port at B and N even, D = N*B/2 is FullBisectionGbps. For odd N no balanced cut can
// exceed h*B (the endpoints of the smaller side), so the ratio to N*B/2 stays below 1.
//
// Tightness. On a two- or three-tier fat tree with d links down and u up per leaf, theta = u/d
// (for u <= d) and the pod or leaf cut meets it; on a k x k x k torus with even k, VLB on each
// ring crosses 2 links per cut and theta = 4/k, so theta * N*B/2 = 2k^2 * B, the planar cut. A
// bound from uniform all-to-all traffic alone (intermediates = endpoints) is loose by a factor 2
// on a fat tree, because half of every leaf's all-to-all traffic stays in the lower half: the
// hose argument above does not depend on where the traffic goes.
//
// Cost. All endpoints of a switch share every path after their access link, so phase 1 is pushed
// per switch: one breadth-first search and one pass in decreasing distance per m in M, |M| *
// O(E). Switches of M with no endpoints that are twins (same switch neighbours) share the search:
// the flow towards the whole class is pushed once and only the last hop is split per member (the
// 1,024 cores of a 65,536-endpoint fat tree form 32 classes).

// lowerResult is the bound and the link that sets it.
type lowerResult struct {
	theta float64
	gbps  float64 // theta * D
	link  int32   // the binding link (index into g.Links), -1 when theta is 1 or 0
}

// lowerBound computes theta over the top tier, and, on small fabrics where that is below 1, also
// over every switch (another valid choice of M; the better of two sound bounds is sound).
func lowerBound(t *topo) lowerResult {
	res := lowerResult{link: -1}
	if len(t.eps) < 2 {
		return res
	}
	var top []int32
	for s := range t.dev {
		if t.level[s] >= 1 && int(t.level[s]) == t.maxLevel {
			top = append(top, int32(s))
		}
	}
	res.theta, res.link = t.vlbTheta(top)
	if res.theta < 1 && t.n() <= 512 && t.maxLevel > 1 {
		var all []int32
		for s := range t.dev {
			if t.level[s] >= 1 {
				all = append(all, int32(s))
			}
		}
		if th, l := t.vlbTheta(all); th > res.theta {
			res.theta, res.link = th, l
		}
	}
	res.gbps = snapDown(res.theta * t.smallestHalf())
	return res
}

// snapDown rounds a bound computed in floating point to a micro-Gb/s grid, forgiving a relative
// rounding error of 1e-12 (a sum of thousands of shares of a rate loses a few ulps): 12799.99...96
// is reported as the 12800 it stands for. Nothing physical is that precise.
func snapDown(x float64) float64 {
	return math.Floor(x*1e6*(1+1e-12)) / 1e6
}

// smallestHalf is D, the sum of the floor(N/2) smallest endpoint rates.
func (t *topo) smallestHalf() float64 {
	rates := make([]float64, len(t.eps))
	for i, e := range t.eps {
		rates[i] = e.gbps
	}
	sort.Float64s(rates)
	sum := 0.0
	for _, r := range rates[:t.half] {
		sum += r
	}
	return sum
}

// vlbTheta returns theta for VLB through the intermediates M, and the binding link. It is 0 when
// some endpoint cannot reach some intermediate (then no bound is proved).
func (t *topo) vlbTheta(M []int32) (float64, int32) {
	if len(M) == 0 {
		return 0, -1
	}
	n := t.n()
	// pi(m) proportional to m's total link capacity (switch links and endpoint links).
	pi := make([]float64, n)
	total := 0.0
	for _, m := range M {
		c := t.epGbps[m]
		for k := t.start[m]; k < t.start[m+1]; k++ {
			c += t.cap[k]
		}
		pi[m] = c
		total += c
	}
	if total == 0 {
		return 0, -1
	}
	for _, m := range M {
		pi[m] /= total
	}

	p1 := make([]float64, 2*len(t.g.Links)) // phase-1 load per directed link: 2l is A->B, 2l+1 is B->A
	dist := make([]int32, n)
	flow := make([]float64, n)
	inClass := make([]bool, n)
	rsum := make([]float64, n) // per member: the rate sum of the current switch's links to it
	var queue []int32
	classes := t.twinClasses(M, func(s int32) bool { return t.epN[s] == 0 })
	for _, c := range classes {
		r := c[0]
		w := 0.0
		for _, m := range c {
			w += pi[m]
			inClass[m] = true
		}
		queue = t.bfs(r, dist, queue)
		for s := range flow {
			flow[s] = 0
			if t.epN[s] > 0 {
				if dist[s] < 0 {
					return 0, -1 // an endpoint that cannot reach an intermediate
				}
				flow[s] = w * t.epGbps[s]
			}
		}
		for qi := len(queue) - 1; qi >= 1; qi-- { // farthest first; queue[0] is r
			x := queue[qi]
			f := flow[x]
			if f == 0 {
				continue
			}
			if dist[x] == 1 && len(c) > 1 {
				t.lastHopToClass(x, f/w, pi, inClass, rsum, p1)
				continue
			}
			want := dist[x] - 1
			sum := 0.0
			for k := t.start[x]; k < t.start[x+1]; k++ {
				if dist[t.nbr[k]] == want {
					sum += t.cap[k]
				}
			}
			for k := t.start[x]; k < t.start[x+1]; k++ {
				if y := t.nbr[k]; dist[y] == want {
					share := f * t.cap[k] / sum
					p1[t.dirIndex(x, k)] += share
					flow[y] += share
				}
			}
		}
		for _, m := range c {
			inClass[m] = false
		}
	}

	theta, link := 1.0, int32(-1)
	for li := range t.g.Links {
		load := p1[2*li] + p1[2*li+1]
		if load == 0 {
			continue
		}
		if q := t.g.Links[li].RateGbps / load; q < theta {
			theta, link = q, int32(li)
		}
	}
	return theta, link
}

// lastHopToClass splits the flow of switch x, adjacent to every member of a twin class, over its
// links to each member m: member m receives unit*pi(m), spread over x's links to m by rate.
func (t *topo) lastHopToClass(x int32, unit float64, pi []float64, inClass []bool, rsum, p1 []float64) {
	for k := t.start[x]; k < t.start[x+1]; k++ {
		if y := t.nbr[k]; inClass[y] {
			rsum[y] += t.cap[k]
		}
	}
	for k := t.start[x]; k < t.start[x+1]; k++ {
		if y := t.nbr[k]; inClass[y] {
			p1[t.dirIndex(x, k)] += unit * pi[y] * t.cap[k] / rsum[y]
		}
	}
	for k := t.start[x]; k < t.start[x+1]; k++ {
		rsum[t.nbr[k]] = 0
	}
}

// dirIndex is the index in a per-directed-link array of the adjacency entry k of switch x, used
// in the direction away from x.
func (t *topo) dirIndex(x int32, k int32) int32 {
	li := t.lnk[k]
	if t.g.Links[li].A == t.dev[x] {
		return 2 * li
	}
	return 2*li + 1
}
