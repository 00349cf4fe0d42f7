package analysis

import "math"

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
// D is FullBisectionGbps (full.go): h*B when every port runs at B, whatever the parity of N, so
// a routing with theta = 1 proves a ratio of exactly 1.
//
// Tightness. On a two- or three-tier fat tree with d links down and u up per leaf, theta = u/d
// (for u <= d) and the pod or leaf cut meets it; on a k x k x k torus with even k, VLB on each
// ring crosses 2 links per cut and theta = 4/k, so theta * N*B/2 = 2k^2 * B, the planar cut. The
// choice of M matters: with the endpoints as intermediates (a bound from uniform all-to-all
// traffic) every uplink of a fat tree carries phase-1 traffic both up (its leaf's) and down
// (everyone's towards its leaf), and theta comes out near 1/2 on a non-blocking tree (400/750
// on the 512-GPU example, lower_test.go); with the top tier as M phase 1 only climbs.
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

// lowerWorkBudget bounds the extra searches (in adjacency entries visited) spent on other
// choices of M once the top tier has proved theta < 1 and neither the enumeration nor the
// degradation bound closed the gap (analyze.go): some 0.4 s of one core.
const lowerWorkBudget = 1.5e8

// lowerTopBudget bounds the work of the first choice, the top tier. Beyond it (a torus of more
// than about 25^3 switches, where every switch is in M and none are twins) M is thinned to every
// j-th twin class: VLB through fewer intermediates is still a routing, so the bound stays sound,
// only lower (on a 6x6x6 torus thinned by 4 it proves half the planar cut; see the test). At
// about 2.5 ns an entry the budget is some 5 s of one core. A variable so that the tests can
// force the thinning.
var lowerTopBudget = 2e9

// lowerBoundOf computes theta with M = the top tier and, when others is set, that proves less
// than 1 and the budget allows, with M = each lower tier and M = every switch: each choice is a
// valid routing, so the best of them is a sound bound. The top tier is right for fat trees; a
// lower tier or all switches can be better when the top tier is thin or lopsided (a spine lost,
// a core that hangs off one spine). top, when given, is the top tier's result already computed
// (then only the other choices run).
func lowerBoundOf(t *topo, others bool, top *lowerResult) lowerResult {
	res := lowerResult{link: -1}
	if len(t.eps) < 2 {
		return res
	}
	tier := func(keep func(lv int32) bool) []int32 {
		var out []int32
		for s := range t.dev {
			if lv := t.level[s]; lv >= 1 && keep(lv) {
				out = append(out, int32(s))
			}
		}
		return out
	}
	choices := [][]int32{tier(func(lv int32) bool { return int(lv) == t.maxLevel })}
	for L := t.maxLevel - 1; L >= 2; L-- {
		choices = append(choices, tier(func(lv int32) bool { return lv == int32(L) }))
	}
	if t.maxLevel > 1 {
		choices = append(choices, tier(func(int32) bool { return true }))
	}
	work := 0.0
	for i, M := range choices {
		if i == 0 && top != nil {
			res = *top
			continue
		}
		classes := t.twinClasses(M, func(s int32) bool { return t.epN[s] == 0 })
		if cost := float64(len(classes)) * float64(len(t.nbr)+t.n()); i == 0 && cost > lowerTopBudget {
			M, classes = thin(classes, int(math.Ceil(cost/lowerTopBudget)))
		}
		if i > 0 {
			if res.theta >= 1 || !others {
				break
			}
			work += float64(len(classes)) * float64(len(t.nbr)+t.n())
			if work > lowerWorkBudget {
				break
			}
		}
		if th, l := t.vlbTheta(M, classes); i == 0 || th > res.theta+1e-9 {
			res.theta, res.link = th, l
		}
	}
	res.theta = snapTheta(res.theta)
	res.gbps = res.theta * t.smallestHalf()
	return res
}

// thin keeps every stride-th class, and returns the kept members and classes.
func thin(classes [][]int32, stride int) ([]int32, [][]int32) {
	var M []int32
	var kept [][]int32
	for i := 0; i < len(classes); i += stride {
		kept = append(kept, classes[i])
		M = append(M, classes[i]...)
	}
	return M, kept
}

// snapTheta rounds theta down to a grid of 1e-9 after forgiving an absolute floating-point error
// of 1e-12: a link's load is a sum of thousands of shares and can come out a few ulps high, which
// would turn the exact 1 of a 4 x 4 x 4 torus into 0.9999999999999997. The forgiven error is far
// below any physical meaning (1e-12 of a port is 0.4 mb/s).
func snapTheta(theta float64) float64 {
	return math.Floor(theta*1e9+1e-3) / 1e9
}

// smallestHalf is D, the sum of the floor(N/2) smallest endpoint rates: the full bisection
// (full.go).
func (t *topo) smallestHalf() float64 {
	rates := make([]float64, len(t.eps))
	for i, e := range t.eps {
		rates[i] = e.gbps
	}
	return FullBisection(rates)
}

// vlbTheta returns theta for VLB through the intermediates M, and the binding link. It is 0 when
// some endpoint cannot reach some intermediate (then no bound is proved).
func (t *topo) vlbTheta(M []int32, classes [][]int32) (float64, int32) {
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

	p1 := make([]float64, len(t.nbr)) // phase-1 load per adjacency entry, i.e. per directed link
	dist := make([]int32, n)
	flow := make([]float64, n)
	inClass := make([]bool, n)
	rsum := make([]float64, n) // per member: the rate sum of the current switch's links to it
	var sp shortestPaths
	for _, c := range classes {
		r := c[0]
		w := 0.0
		for _, m := range c {
			w += pi[m]
			inClass[m] = true
		}
		sp.run(t, r, dist)
		for s := range flow {
			flow[s] = 0
			if t.epN[s] > 0 {
				if dist[s] < 0 {
					return 0, -1 // an endpoint that cannot reach an intermediate
				}
				flow[s] = w * t.epGbps[s]
			}
		}
		for qi := len(sp.queue) - 1; qi >= 1; qi-- { // farthest first; queue[0] is r
			x := sp.queue[qi]
			f := flow[x]
			if f == 0 {
				continue
			}
			if dist[x] == 1 && len(c) > 1 {
				t.lastHopToClass(x, f/w, pi, inClass, rsum, p1)
				continue
			}
			next := sp.next[sp.nextStart[qi]:sp.nextStart[qi+1]]
			sum := 0.0
			for _, k := range next {
				sum += t.cap[k]
			}
			for _, k := range next {
				share := f * t.cap[k] / sum
				p1[k] += share
				flow[t.nbr[k]] += share
			}
		}
		for _, m := range c {
			inClass[m] = false
		}
	}

	// Load(u->v) = P1(u->v) + P1(v->u): phase 2 mirrors phase 1.
	load := make([]float64, len(t.g.Links))
	for k, l := range p1 {
		load[t.lnk[k]] += l
	}
	theta, link := 1.0, int32(-1)
	for li, ld := range load {
		if ld == 0 {
			continue
		}
		if q := t.g.Links[li].RateGbps / ld; q < theta {
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
			p1[k] += unit * pi[y] * t.cap[k] / rsum[y]
		}
	}
	for k := t.start[x]; k < t.start[x+1]; k++ {
		rsum[t.nbr[k]] = 0
	}
}

// shortestPaths is a breadth-first search that also records, for every switch, its adjacency
// entries towards the source (to a neighbour one step closer): the ECMP next hops, gathered in
// the same pass so that pushing flow back costs only those entries.
type shortestPaths struct {
	queue     []int32 // switches in the order reached
	nextStart []int32 // next hops of queue[i] are next[nextStart[i]:nextStart[i+1]]
	next      []int32 // adjacency entries
}

func (sp *shortestPaths) run(t *topo, src int32, dist []int32) {
	for i := range dist {
		dist[i] = -1
	}
	sp.queue = append(sp.queue[:0], src)
	sp.nextStart = sp.nextStart[:0]
	sp.next = sp.next[:0]
	dist[src] = 0
	for head := 0; head < len(sp.queue); head++ {
		x := sp.queue[head]
		sp.nextStart = append(sp.nextStart, int32(len(sp.next)))
		dx := dist[x]
		for k := t.start[x]; k < t.start[x+1]; k++ {
			y := t.nbr[k]
			switch dy := dist[y]; {
			case dy < 0:
				dist[y] = dx + 1
				sp.queue = append(sp.queue, y)
			case dy == dx-1:
				sp.next = append(sp.next, k)
			}
		}
	}
	sp.nextStart = append(sp.nextStart, int32(len(sp.next)))
}
