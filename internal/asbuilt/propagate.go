package asbuilt

import "sort"

// propagate places the floor switches of level lv that are cabled to each other (dragonfly+
// spines with their global links, torus switches) within their classes so that those links are
// kept: a seed takes the member of its class that suits it best, and every switch reached from
// placed ones, breadth first, takes the free member of its class that keeps the most of its
// links to them. Ties go, for a torus, to the member at distance 2 from the most placed switches
// that are at distance 2 on the floor (the orientation of the grid); for dragonfly+ spines to
// the member whose global links reach the same groups in the same numbers; then to a namesake.
// This is the classic seed-and-extend of graph matching; it keeps every link when the floor is
// the design or a part of it in the same plan, and its result is checked against the bound.
func (m *matcher) propagate(lv int8) {
	fl, de := m.fl, m.de
	var floorCls, designCls []int32
	if lv == 2 {
		lc := m.upper[2]
		floorCls, designCls = lc.floor, lc.design
	} else {
		designCls = m.leafClasses()
		floorCls = minusOnes(len(fl.level))
		for _, s := range fl.atLevel(lv) {
			if d := m.fwd[s]; d >= 0 {
				floorCls[s] = designCls[d]
				m.fwd[s], m.rev[d] = -1, -1
			}
		}
	}
	same := func(g *fgraph, d int32) []nb {
		var out []nb
		for _, x := range g.nbrs[d] {
			if g.level[x.d] == lv {
				out = append(out, x)
			}
		}
		return out
	}
	freeOf := map[int32][]int32{}
	for _, d := range de.atLevel(lv) {
		if c := designCls[d]; c >= 0 && m.rev[d] < 0 {
			freeOf[c] = append(freeOf[c], d)
		}
	}
	// Design pods of the classes, for the dragonfly profile.
	podOfClass := map[int32]int32{}
	if lv == 2 {
		for _, d := range de.atLevel(2) {
			if c := designCls[d]; c >= 0 {
				podOfClass[c] = m.ds.podOf[d]
			}
		}
	}
	profile := func(s int32) map[int32]int64 { // floor: design pod -> global links
		out := map[int32]int64{}
		for _, x := range same(fl, s) {
			if c := floorCls[x.d]; c >= 0 {
				out[podOfClass[c]] += int64(x.n)
			}
		}
		return out
	}
	dprofile := func(d int32) map[int32]int64 {
		out := map[int32]int64{}
		for _, x := range same(de, d) {
			out[m.ds.podOf[x.d]] += int64(x.n)
		}
		return out
	}
	twoHop := func(g *fgraph, d int32) map[int32]bool {
		out := map[int32]bool{}
		for _, x := range same(g, d) {
			for _, y := range same(g, x.d) {
				if y.d != d {
					out[y.d] = true
				}
			}
		}
		for _, x := range same(g, d) {
			delete(out, x.d)
		}
		return out
	}

	common := func(g *fgraph, a, b int32) int {
		n := 0
		for _, x := range same(g, a) {
			if x.d != b && g.mult(x.d, b) > 0 {
				n++
			}
		}
		return n
	}
	sig := func(g *fgraph, d int32) string { return profileKey(g.profile(d, lv)) }

	items := fl.atLevel(lv)
	sort.SliceStable(items, func(a, b int) bool { return len(same(fl, items[a])) > len(same(fl, items[b])) })
	placedNbrs := map[int32]int{}
	done := make(map[int32]bool, len(items))
	place := func(u int32) {
		c := floorCls[u]
		if c < 0 {
			return
		}
		placed := map[int32]int32{} // design neighbour -> links to it
		var from []int32            // floor neighbours placed
		var cands []int32
		for _, x := range same(fl, u) {
			if d := m.fwd[x.d]; d >= 0 {
				placed[d] += x.n
				from = append(from, x.d)
				for _, y := range same(de, d) {
					if designCls[y.d] == c && m.rev[y.d] < 0 {
						cands = append(cands, y.d)
					}
				}
			}
		}
		if len(cands) == 0 {
			cands = freeOf[c]
		}
		var fTwo map[int32]bool
		var fProf map[int32]int64
		if lv == 1 {
			fTwo = twoHop(fl, u)
		} else {
			fProf = profile(u)
		}
		fSig := sig(fl, u)
		best, bestW := int32(-1), int64(-1)
		seen := map[int32]bool{}
		for _, y := range cands {
			if m.rev[y] >= 0 || seen[y] {
				continue
			}
			seen[y] = true
			var kept int64
			for d, n := range placed {
				kept += int64(min(n, de.mult(y, d)))
			}
			// Local invariants: the same multiset of link counts, and as many common
			// neighbours with each placed neighbour (on a torus, what tells an axis of 3
			// switches, whose neighbours close a triangle, from one of 4 or more).
			var inv int64
			if sig(de, y) == fSig {
				inv++
			}
			for _, v := range from {
				if common(fl, u, v) == common(de, y, m.fwd[v]) {
					inv++
				}
			}
			var tie int64
			if lv == 1 {
				dTwo := twoHop(de, y)
				for w := range fTwo {
					if d := m.fwd[w]; d >= 0 && dTwo[d] {
						tie++
					}
				}
			} else {
				for q, n := range dprofile(y) {
					tie += min(n, fProf[q])
				}
			}
			w := kept*scaleKept + inv*(scaleKept/64) + tie*scaleAff + m.nameBonus(u, y)
			if w > bestW {
				best, bestW = y, w
			}
		}
		if best >= 0 {
			m.pair(u, best)
		}
	}
	// Most-constrained first: the next switch is the one with the most placed neighbours (a
	// seed, the first by degree, when none has any).
	for range items {
		next, most := int32(-1), -1
		for _, u := range items {
			if !done[u] && placedNbrs[u] > most {
				next, most = u, placedNbrs[u]
			}
		}
		done[next] = true
		place(next)
		if m.fwd[next] >= 0 {
			for _, x := range same(fl, next) {
				placedNbrs[x.d]++
			}
		}
	}
	if lv == 2 {
		m.exactByOrder(2)
	}
}
