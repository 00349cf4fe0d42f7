package analysis

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// A second proved lower bound, by enumeration: exact on two-tier fabrics whose spines fall into
// few classes, damaged ones included, where the routing bound of lower.go is loose (a spine
// short of one link lowers theta for every leaf, while the bisection loses only that link).
//
// The objective. For a placement of the switches on sides A and B, the best balanced cut with
// that placement costs
//
//	cut(placement) = (switch-to-switch capacity across) + (endpoints placed away from their switch)
//
// and side A must hold h = floor(N/2) endpoints: when the A switches hold nA of them, at least
// |nA - h| endpoints sit away from their switch, each paying its access link, at least rmin, the
// smallest endpoint rate. So every balanced cut costs at least
//
//	F(placement) = switchcut(placement) + rmin * |nA - h|,
//
// with equality for the best cut of that placement when every port runs at one rate (cut.go's
// evaluate). The bisection is min F over all placements when rates are equal, and at least it
// otherwise.
//
// The split. The switches are split into P, an independent set (no switch link between two of
// its members: the leaves of a two-tier tree, and the cores of a three-tier one) and Q, the rest
// (the spines). With the sides of Q fixed, a switch v of P costs
//
//	cA(v) = capacity from v to the Q switches on B   if v is on A,
//	cB(v) = capacity from v to the Q switches on A   if v is on B,
//
// independently of every other switch of P, and adds its endpoints e(v) to nA when on A. The
// minimum over the sides of P of sum cA/cB + rmin |nA - h| is then a knapsack over the endpoint
// count: a dynamic programme over nA in 0..N (the subset-sum recurrence; R. Bellman, "Dynamic
// Programming", Princeton 1957; for graph bisection with few "heavy" vertices the same
// enumerate-then-DP scheme is in the exact algorithms of T. N. Bui, S. Chaudhuri, F. T.
// Leighton, M. Sipser, "Graph bisection algorithms with good average case behavior",
// Combinatorica 7(2), 1987). P switches with equal e(v) form one knapsack item class: the best j
// of them on A are the j smallest cA - cB, so the programme steps over classes, not switches.
//
// Classes of Q. Enumerating every side of Q costs 2^|Q|; switches of Q are grouped and only the
// number a_i of each group i on side A is enumerated, prod (k_i + 1) cases for groups of k_i.
// For one case, the relaxation lets every P switch v pick for itself which members are on which
// side: cA(v) >= sum_i (sum of the k_i - a_i smallest capacities from v to members of group i),
// and cB(v) likewise with a_i. Links between Q switches of different groups count 0, and the
// endpoints on Q switches are known only as an interval [lo, hi] for nA. Every term is at most
// its value in any real placement with those counts, so the minimum over cases is a lower bound
// on min F: sound for any grouping. With twin groups (same endpoint count and the same
// capacity to every neighbour: false twins, never adjacent to each other) swapping two members is
// an automorphism of the whole objective, so the count alone fixes the value: the relaxation is
// exact, the Q-Q links are counted on a canonical placement (the first a_i members on A) and the
// bound is the exact min F. Twins first; when they are too many cases, one group per level (the
// spines of a damaged tree are near twins, so the per-switch choice loses little).
//
// Cost. Each case costs the P switches' adjacency plus the programme, at most N+1 states per
// class of equal e(v); the cases are capped by enumWorkBudget, so a fabric with many distinct
// spines (or a three-tier tree) simply keeps the routing bound.

// enumWorkBudget bounds the work of one enumeration (adjacency entries and programme steps); a
// variable so that the tests can shrink it.
var enumWorkBudget = 1.5e7

// enumResult is the enumeration bound.
type enumResult struct {
	gbps  float64
	exact bool // min F computed exactly (twin groups) with one endpoint rate: the bisection itself
	ok    bool
}

type enumGroup struct {
	members []int32
	epLo    []int // epLo[a]: fewest endpoints a members can hold (a smallest counts summed)
	epHi    []int
}

// pRow is a switch of P: its endpoint count and, per group it touches, the prefix sums of its
// sorted capacities to that group's members (zeros included for members it does not reach).
type pRow struct {
	ep     int
	groups []int32     // group indices
	prefix [][]float64 // prefix[j][a] = sum of the a smallest capacities to group groups[j]
}

// enumBound is the enumeration bound, or ok = false when the fabric is too large for it.
func enumBound(t *topo) enumResult {
	if len(t.eps) < 2 {
		return enumResult{}
	}
	inP := independentSet(t)
	var Q []int32
	for s := range t.dev {
		if !inP[s] {
			Q = append(Q, int32(s))
		}
	}
	if r := enumerate(t, inP, twinGroups(t, Q), true); r.ok {
		return r // min F itself, which no other grouping can exceed
	}
	// Relaxed: the level groups with the k most deviant members taken out as singletons, k as
	// large as the budget allows (each refusal costs one pass over the adjacency at most).
	level := levelGroups(t, Q, inP)
	cases := 1.0
	for _, g := range level {
		cases *= float64(len(g.members) + 1)
	}
	if cases*float64(len(t.dev)-len(Q)+1) > 2*enumWorkBudget {
		// Taking a member out never lowers the cases (k + 2 for a group of k + 1 becomes
		// 2(k + 1) for k and a singleton), and the symmetry halves them at most: no split fits
		// the budget when the plain level groups are twice over it.
		return enumResult{}
	}
	order := byDeviation(t, level)
	for k := min(len(order), 24); k >= 0; k-- {
		if r := enumerate(t, inP, splitOut(t, level, order[:k]), false); r.ok {
			return r
		}
	}
	return enumResult{}
}

// byDeviation orders the members of groups of two or more by how far each falls short of its
// group's best capacity to every P switch (sum over P of the group's largest capacity to it
// minus the member's), most deviant first: the members whose per-switch choice in the relaxation
// loses most, to be enumerated one by one.
func byDeviation(t *topo, groups []enumGroup) []int32 {
	type key struct{ g, p int32 }
	best := map[key]float64{}
	own := map[key]float64{} // per (member, P switch)
	gof := map[int32]int32{}
	for gi, g := range groups {
		if len(g.members) < 2 {
			continue
		}
		for _, m := range g.members {
			gof[m] = int32(gi)
			for k := t.start[m]; k < t.start[m+1]; k++ {
				own[key{m, t.nbr[k]}] += t.cap[k]
			}
		}
	}
	for k, c := range own {
		gk := key{gof[k.g], k.p}
		best[gk] = math.Max(best[gk], c)
	}
	dev := map[int32]float64{}
	for gk, b := range best {
		for _, m := range groups[gk.g].members {
			dev[m] += b - own[key{m, gk.p}]
		}
	}
	var out []int32
	for m := range gof {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if dev[out[i]] != dev[out[j]] {
			return dev[out[i]] > dev[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// splitOut is groups with the given members moved into groups of their own.
func splitOut(t *topo, groups []enumGroup, single []int32) []enumGroup {
	out := map[int32]bool{}
	for _, s := range single {
		out[s] = true
	}
	var res []enumGroup
	for _, g := range groups {
		var rest []int32
		for _, m := range g.members {
			if out[m] {
				res = append(res, enumGroup{members: []int32{m}})
			} else {
				rest = append(rest, m)
			}
		}
		if len(rest) > 0 {
			res = append(res, enumGroup{members: rest})
		}
	}
	return finishGroups(t, res)
}

// independentSet picks P greedily, lowest level first (leaves, then cores), so that on a tree the
// leaves are P and the spines are Q.
func independentSet(t *topo) []bool {
	order := make([]int32, t.n())
	for i := range order {
		order[i] = int32(i)
	}
	lv := func(s int32) int32 {
		if t.level[s] < 0 {
			return math.MaxInt32
		}
		return t.level[s]
	}
	sort.SliceStable(order, func(i, j int) bool { return lv(order[i]) < lv(order[j]) })
	inP := make([]bool, t.n())
	for _, s := range order {
		ok := true
		for k := t.start[s]; k < t.start[s+1]; k++ {
			if inP[t.nbr[k]] {
				ok = false
				break
			}
		}
		inP[s] = ok
	}
	return inP
}

// twinGroups groups Q by endpoint count and capacity to every neighbour.
func twinGroups(t *topo, Q []int32) []enumGroup {
	byKey := map[string]int{}
	var groups []enumGroup
	type nc struct {
		n int32
		c float64
	}
	var buf []nc
	var key []byte
	for _, s := range Q {
		buf = buf[:0]
		for k := t.start[s]; k < t.start[s+1]; k++ {
			buf = append(buf, nc{t.nbr[k], t.cap[k]})
		}
		sort.Slice(buf, func(i, j int) bool {
			if buf[i].n != buf[j].n {
				return buf[i].n < buf[j].n
			}
			return buf[i].c < buf[j].c
		})
		key = binary.LittleEndian.AppendUint32(key[:0], uint32(t.epN[s]))
		for _, x := range buf {
			key = binary.LittleEndian.AppendUint32(key, uint32(x.n))
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(x.c))
		}
		if gi, ok := byKey[string(key)]; ok {
			groups[gi].members = append(groups[gi].members, s)
			continue
		}
		byKey[string(key)] = len(groups)
		groups = append(groups, enumGroup{members: []int32{s}})
	}
	return finishGroups(t, groups)
}

// levelGroups puts together the Q switches of one level and one declared group that are joined
// through shared leaves (union-find over the Q neighbours of every level-1 switch of P): the
// spines of one two-tier tree, damaged or not, form one group; the spines of different pods of a
// three-tier tree do not, which keeps the case count, and the bound, meaningful.
func levelGroups(t *topo, Q []int32, inP []bool) []enumGroup {
	uf := fabric.NewUnionFind(t.n())
	key := func(s int32) string {
		return strconv.Itoa(int(t.level[s])) + "/" + t.g.Devices[t.dev[s]].Group
	}
	for s := range t.dev {
		if !inP[s] || t.level[s] != 1 {
			continue
		}
		first := int32(-1)
		for k := t.start[s]; k < t.start[s+1]; k++ {
			y := t.nbr[k]
			if inP[y] {
				continue
			}
			if first < 0 {
				first = y
			} else if key(y) == key(first) {
				uf.Union(y, first)
			}
		}
	}
	byRoot := map[int32]int{}
	var groups []enumGroup
	for _, s := range Q {
		r := uf.Find(s)
		if gi, ok := byRoot[r]; ok {
			groups[gi].members = append(groups[gi].members, s)
			continue
		}
		byRoot[r] = len(groups)
		groups = append(groups, enumGroup{members: []int32{s}})
	}
	return finishGroups(t, groups)
}

// finishGroups fills the endpoint intervals.
func finishGroups(t *topo, groups []enumGroup) []enumGroup {
	for gi := range groups {
		g := &groups[gi]
		eps := make([]int, len(g.members))
		for i, s := range g.members {
			eps[i] = int(t.epN[s])
		}
		sort.Ints(eps)
		k := len(eps)
		g.epLo = make([]int, k+1)
		g.epHi = make([]int, k+1)
		for a := 1; a <= k; a++ {
			g.epLo[a] = g.epLo[a-1] + eps[a-1]
			g.epHi[a] = g.epHi[a-1] + eps[k-a]
		}
	}
	return groups
}

// enumerate runs every case of the group counts and returns the least bound; twins says the
// groups are twin classes (the relaxation is exact and Q-Q links are counted).
func enumerate(t *topo, inP []bool, groups []enumGroup, twins bool) enumResult {
	N := len(t.eps)
	// With N even, a placement and its complement cost the same (the cut is symmetric and
	// |nA - h| = |(N - nA) - h| for h = N/2), and so do their relaxations: one group's count
	// stops at half its size, every case or its complement is still run. An odd-sized group
	// halves the cases exactly.
	limit := make([]int, len(groups))
	for gi, g := range groups {
		limit[gi] = len(g.members)
	}
	if N%2 == 0 && len(groups) > 0 {
		sym := 0
		for gi, g := range groups {
			if len(g.members)%2 == 1 {
				sym = gi
				break
			}
		}
		limit[sym] /= 2
	}
	cases := 1.0
	for _, l := range limit {
		cases *= float64(l + 1)
	}
	nP := 0
	for _, in := range inP {
		if in {
			nP++
		}
	}
	if cases*float64(nP+1) > enumWorkBudget { // a floor on the work, before building anything
		return enumResult{}
	}
	// Rows of P and the work of one case.
	groupOf := make([]int32, t.n())
	for i := range groupOf {
		groupOf[i] = -1
	}
	for gi, g := range groups {
		for _, s := range g.members {
			groupOf[s] = int32(gi)
		}
	}
	// The groups each P switch touches, in group order; what building the rows costs and what
	// one case costs at the least, checked before anything is built.
	stamp := make([]int32, len(groups))
	for i := range stamp {
		stamp[i] = -1
	}
	touchedOf := make([][]int32, t.n())
	build, perCase := 0.0, 0.0
	for s := range t.dev {
		if !inP[s] {
			continue
		}
		var tg []int32
		for k := t.start[s]; k < t.start[s+1]; k++ {
			if gi := groupOf[t.nbr[k]]; stamp[gi] != int32(s) {
				stamp[gi] = int32(s)
				tg = append(tg, gi)
			}
		}
		sort.Slice(tg, func(i, j int) bool { return tg[i] < tg[j] })
		touchedOf[s] = tg
		for _, gi := range tg {
			build += float64(len(groups[gi].members))
		}
		perCase += float64(len(tg) + 2)
	}
	if build+cases*perCase > enumWorkBudget {
		return enumResult{}
	}
	var rows []pRow
	capTo := map[int32]float64{}
	for s := range t.dev {
		if !inP[s] {
			continue
		}
		row := pRow{ep: int(t.epN[s])}
		clear(capTo)
		for k := t.start[s]; k < t.start[s+1]; k++ {
			capTo[t.nbr[k]] += t.cap[k]
		}
		for _, gi := range touchedOf[s] {
			ms := groups[gi].members
			cs := make([]float64, len(ms))
			for i, m := range ms {
				cs[i] = capTo[m]
			}
			sort.Float64s(cs)
			pre := make([]float64, len(cs)+1)
			for i, c := range cs {
				pre[i+1] = pre[i] + c
			}
			row.groups = append(row.groups, gi)
			row.prefix = append(row.prefix, pre)
		}
		rows = append(rows, row)
	}
	// Programme work: classes of equal endpoint count, each at most N+1 states times its size.
	byEp := map[int][]int{}
	var eps []int
	for i, r := range rows {
		if _, ok := byEp[r.ep]; !ok {
			eps = append(eps, r.ep)
		}
		byEp[r.ep] = append(byEp[r.ep], i)
	}
	sort.Ints(eps)
	states := 1.0
	for _, e := range eps {
		m := float64(len(byEp[e]))
		if e > 0 {
			perCase += math.Min(states, float64(N+1)) * (m + 1)
			states *= m + 1
		}
		perCase += m * math.Log2(m+1)
	}
	var qq [][3]float64 // Q-Q links between twin groups: (switch, switch, capacity), each once
	if twins {
		for s := range t.dev {
			if inP[s] {
				continue
			}
			for k := t.start[s]; k < t.start[s+1]; k++ {
				if y := t.nbr[k]; !inP[y] && int32(s) < y {
					qq = append(qq, [3]float64{float64(s), float64(y), t.cap[k]})
				}
			}
		}
		perCase += float64(len(qq))
	}
	if cases*perCase > enumWorkBudget {
		return enumResult{}
	}

	rmin := math.Inf(1)
	sameRate := true
	for _, e := range t.eps {
		if e.gbps != t.eps[0].gbps {
			sameRate = false
		}
		rmin = math.Min(rmin, e.gbps)
	}
	h := t.half
	counts := make([]int, len(groups))
	side := make([]uint8, t.n())
	dp := make([]float64, N+1)
	nx := make([]float64, N+1)
	for i := range dp {
		dp[i], nx[i] = math.Inf(1), math.Inf(1)
	}
	var reach, nreach []int
	seen := make([]bool, N+1)
	cA := make([]float64, len(rows))
	cB := make([]float64, len(rows))
	var delta []float64
	best := math.Inf(1)
	for {
		// Q's contribution: the Q-Q cut on the canonical placement and the interval of nA.
		base, lo, hi := 0.0, 0, 0
		for gi, g := range groups {
			lo += g.epLo[counts[gi]]
			hi += g.epHi[counts[gi]]
		}
		if twins {
			for gi, g := range groups {
				for i, m := range g.members {
					side[m] = sideB
					if i < counts[gi] {
						side[m] = sideA
					}
				}
			}
			for _, e := range qq {
				if side[int32(e[0])] != side[int32(e[1])] {
					base += e[2]
				}
			}
		}
		for i, r := range rows {
			a, b := 0.0, 0.0
			for j, gi := range r.groups {
				k, on := len(groups[gi].members), counts[gi]
				a += r.prefix[j][k-on] // v on A pays its links to the k - a_i members on B
				b += r.prefix[j][on]
			}
			cA[i], cB[i] = a, b
		}
		// The programme over nA (offset by the Q endpoints, handled at the end as an interval).
		for _, c := range reach {
			dp[c] = math.Inf(1)
		}
		reach = append(reach[:0], 0)
		dp[0] = base
		for _, e := range eps {
			idx := byEp[e]
			if e == 0 {
				add := 0.0
				for _, i := range idx {
					add += math.Min(cA[i], cB[i])
				}
				for _, c := range reach {
					dp[c] += add
				}
				continue
			}
			all := 0.0
			delta = delta[:0]
			for _, i := range idx {
				all += cB[i]
				delta = append(delta, cA[i]-cB[i])
			}
			sort.Float64s(delta)
			nreach = nreach[:0]
			for _, c := range reach {
				cost := all
				for j := 0; j <= len(delta) && c+j*e <= N; j++ {
					if j > 0 {
						cost += delta[j-1]
					}
					d := c + j*e
					if !seen[d] {
						seen[d] = true
						nreach = append(nreach, d)
					}
					if v := dp[c] + cost; v < nx[d] {
						nx[d] = v
					}
				}
			}
			for _, c := range reach {
				dp[c] = math.Inf(1)
			}
			for _, d := range nreach {
				dp[d], nx[d], seen[d] = nx[d], math.Inf(1), false
			}
			reach, nreach = nreach, reach
		}
		for _, c := range reach {
			gap := 0
			switch {
			case c+hi < h:
				gap = h - c - hi
			case c+lo > h:
				gap = c + lo - h
			}
			if v := dp[c] + rmin*float64(gap); v < best {
				best = v
			}
		}
		// Next case, mixed radix.
		gi := 0
		for ; gi < len(groups); gi++ {
			if counts[gi] < limit[gi] {
				counts[gi]++
				break
			}
			counts[gi] = 0
		}
		if gi == len(groups) {
			break
		}
	}
	return enumResult{gbps: best, exact: twins && sameRate, ok: !math.IsInf(best, 1)}
}
