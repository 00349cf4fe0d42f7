package analysis

import "sort"

// Geodesic sweeps (candidate (c) of the upper bound), for fabrics with no hierarchy to split
// along: tori and meshes, where every switch is a leaf. For two switches u and v, order the
// switches by d(u,x) - d(v,x), closest to u first, and cut the order at the prefix that costs
// least (switch links crossing, plus the imbalance paid in access links). This is the
// "bisector" of u and v in the graph metric; on a k-ary n-cube with v the antipode of u along
// one axis it is the planar cut through 2*k^(n-1) links, the torus bisection (Dally & Towles,
// "Principles and Practices of Interconnection Networks", 2004, section 3.3). Ties in the key
// (the two slabs equidistant from u and v) are broken by breadth-first order inside the tied
// set, so a prefix takes one connected slab rather than interleaving two.
//
// Pairs tried: up to three seeds u (switch 0, then each time the switch farthest from the seeds
// so far), and for each seed its neighbours (on a torus of even side a neighbour v already gives
// the planar cut: d(u,x) - d(v,x) is -1 on one half of the axis and +1 on the other), the ends of
// the geodesic rays through them (go away from u turning as little as possible until the
// distance stops growing: the axis antipode on a torus), and the farthest switch. At most 33
// pairs per seed.

const (
	sweepSeeds   = 3
	sweepRays    = 16
	sweepMaxKeys = 1 << 30
)

type sweeper struct {
	t                *topo
	du, dv           []int32
	queue            []int32
	key              []int32
	order            []int32
	inRun, inA, mark []bool
	bestSide         []uint8
	bestVal          float64
}

// sweepCut returns the best sweep found, or nil when there is nothing to sweep.
func (t *topo) sweepCut() []uint8 {
	n := t.n()
	if n < 2 {
		return nil
	}
	w := &sweeper{
		t: t, du: make([]int32, n), dv: make([]int32, n), key: make([]int32, n), order: make([]int32, n),
		inRun: make([]bool, n), inA: make([]bool, n), mark: make([]bool, n), bestVal: -1,
	}
	minDist := make([]int32, n)
	for i := range minDist {
		minDist[i] = sweepMaxKeys
	}
	seed := int32(0)
	for si := 0; si < sweepSeeds; si++ {
		w.queue = t.bfs(seed, w.du, w.queue)
		for i, d := range w.du {
			if d >= 0 && d < minDist[i] {
				minDist[i] = d
			}
		}
		for _, v := range w.targets(seed) {
			w.queue = t.bfs(v, w.dv, w.queue)
			w.sweep()
		}
		// Next seed: the switch farthest from every seed so far (reachable from the last one).
		next, far := int32(-1), int32(0)
		for i, d := range minDist {
			if d != sweepMaxKeys && d > far {
				next, far = int32(i), d
			}
		}
		if next < 0 || far == 0 {
			break
		}
		seed = next
		w.queue = t.bfs(seed, w.du, w.queue)
	}
	return w.bestSide
}

// targets lists the v for seed u (w.du holds distances from u): its neighbours, the ends of the
// rays through them, and the farthest switch.
func (w *sweeper) targets(u int32) []int32 {
	t := w.t
	var out []int32
	seen := map[int32]bool{}
	add := func(v int32) {
		if v != u && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	rays := 0
	for k := t.start[u]; k < t.start[u+1] && rays < sweepRays; k++ {
		first := t.nbr[k]
		if seen[first] {
			continue
		}
		rays++
		add(first)
		add(w.ray(u, first))
	}
	far, fd := int32(-1), int32(-1)
	for i, d := range w.du {
		if d > fd {
			far, fd = int32(i), d
		}
	}
	if far >= 0 {
		add(far)
	}
	return out
}

// ray walks away from u through first, at each step to the next switch that turns least (has
// the fewest common neighbours with the switch before, other than the current one), and returns
// where the distance from u stops growing.
func (w *sweeper) ray(u, first int32) int32 {
	t := w.t
	prev, cur := u, first
	for steps := 0; steps < t.n(); steps++ {
		next, fewest := int32(-1), -1
		for k := t.start[prev]; k < t.start[prev+1]; k++ {
			w.mark[t.nbr[k]] = true
		}
		for k := t.start[cur]; k < t.start[cur+1]; k++ {
			y := t.nbr[k]
			if w.du[y] != w.du[cur]+1 {
				continue
			}
			common := 0
			for j := t.start[y]; j < t.start[y+1]; j++ {
				if z := t.nbr[j]; w.mark[z] && z != cur {
					common++
				}
			}
			if next < 0 || common < fewest {
				next, fewest = y, common
			}
		}
		for k := t.start[prev]; k < t.start[prev+1]; k++ {
			w.mark[t.nbr[k]] = false
		}
		if next < 0 {
			return cur
		}
		prev, cur = cur, next
	}
	return cur
}

// sweep orders the switches by du - dv and keeps the cheapest prefix.
func (w *sweeper) sweep() {
	t := w.t
	n := t.n()
	for i := 0; i < n; i++ {
		w.order[i] = int32(i)
		switch {
		case w.du[i] < 0 && w.dv[i] < 0:
			w.key[i] = sweepMaxKeys
		case w.du[i] < 0:
			w.key[i] = sweepMaxKeys - 1
		case w.dv[i] < 0:
			w.key[i] = -sweepMaxKeys
		default:
			w.key[i] = w.du[i] - w.dv[i]
		}
	}
	sort.SliceStable(w.order, func(i, j int) bool { return w.key[w.order[i]] < w.key[w.order[j]] })
	// Ties: breadth-first order inside each run of equal keys.
	for i := 0; i < n; {
		j := i + 1
		for j < n && w.key[w.order[j]] == w.key[w.order[i]] {
			j++
		}
		if j-i > 2 {
			w.bfsRun(w.order[i:j])
		}
		i = j
	}
	// Cheapest prefix.
	for i := range w.inA {
		w.inA[i] = false
	}
	cut, nA := 0.0, 0
	best, bestLen := t.approx(0, 0), 0
	for i, x := range w.order {
		for k := t.start[x]; k < t.start[x+1]; k++ {
			if w.inA[t.nbr[k]] {
				cut -= t.cap[k]
			} else {
				cut += t.cap[k]
			}
		}
		w.inA[x] = true
		nA += int(t.epN[x])
		if v := t.approx(cut, nA); v < best {
			best, bestLen = v, i+1
		}
	}
	if w.bestVal >= 0 && best >= w.bestVal {
		return
	}
	w.bestVal = best
	if w.bestSide == nil {
		w.bestSide = make([]uint8, n)
	}
	for i := range w.bestSide {
		w.bestSide[i] = sideB
	}
	for _, x := range w.order[:bestLen] {
		w.bestSide[x] = sideA
	}
}

// bfsRun reorders run (switches with equal keys) in breadth-first order of the subgraph they
// induce, starting from each not yet reached member in turn.
func (w *sweeper) bfsRun(run []int32) {
	t := w.t
	for _, x := range run {
		w.inRun[x] = true
	}
	out := make([]int32, 0, len(run))
	for _, s := range run {
		if !w.inRun[s] {
			continue
		}
		w.inRun[s] = false
		head := len(out)
		out = append(out, s)
		for ; head < len(out); head++ {
			x := out[head]
			for k := t.start[x]; k < t.start[x+1]; k++ {
				if y := t.nbr[k]; w.inRun[y] {
					w.inRun[y] = false
					out = append(out, y)
				}
			}
		}
	}
	copy(run, out)
}
