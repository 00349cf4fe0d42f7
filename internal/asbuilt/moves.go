package asbuilt

import "sort"

// moves decides which floor cables that are not kept are moved, and onto which design link, so
// that a technician can do it (DESIGN.md, "The as-built fabric"): a moved cable keeps one end
// on the floor port it is on and takes a design link of its own tier at that end's device, so
// the end that moves goes to a device of the kind it leaves (a spine end to a spine, a leaf end
// to a leaf, an HCA end to an HCA) and the end that stays keeps its port and that port's role.
//
// Among such choices it takes as many moves as there can be, which is the fewest cable ends a
// technician handles: with K kept, the F-K floor cables and D-K design links left over are each
// moved (one end unplugged, one plugged) or removed and added (two ends each), so the ends
// handled are 2(F-K) + 2(D-K) - 2M for M moves. M is a largest matching of the bipartite graph
// of left-over floor cables and free design links (an edge where the design link is of the
// cable's tier at the image of one of its ends), found by Hopcroft and Karp's algorithm
// ("An n^{5/2} algorithm for maximum matchings in bipartite graphs", SIAM J. Comput. 2(4),
// 1973), seeded greedily with the cable's lower-tier end staying (an HCA keeps its cable and the
// leaf end moves; a leaf keeps its uplink and the spine end moves), which is the common case.
//
// keptBy maps floor links to the design link each keeps (-1: none) and designFrom the reverse;
// both are filled in for the moves; moveStay says which end of each moved floor link stays (1:
// A, 2: B).
func (m *matcher) moves(keptBy, designFrom []int32, designMoved []bool) []int8 {
	fl, de := m.fl, m.de
	fg, dg := fl.g, de.g
	moveStay := make([]int8, len(fg.Links))
	// Free design links at each design device, by the level of their far end.
	type key struct {
		d  int32
		lv int8
	}
	free := map[key][]int32{}
	for li := range dg.Links {
		if designFrom[li] >= 0 {
			continue
		}
		l := &dg.Links[li]
		free[key{l.A, de.level[l.B]}] = append(free[key{l.A, de.level[l.B]}], int32(li))
		if l.B != l.A {
			free[key{l.B, de.level[l.A]}] = append(free[key{l.B, de.level[l.A]}], int32(li))
		}
	}
	if len(free) == 0 {
		return moveStay
	}
	// Left: floor links not kept with a candidate; adj: the free links at the lower end's image
	// (that end stays), then at the upper end's.
	type left struct {
		link  int32
		sides [2]int8 // moveStay value of each list
		lists [2][]int32
	}
	var ls []left
	for i := range fg.Links {
		if keptBy[i] >= 0 {
			continue
		}
		l := &fg.Links[i]
		lo, hi, sLo, sHi := l.A, l.B, int8(1), int8(2)
		if !lowerIsA(fl, l) {
			lo, hi, sLo, sHi = hi, lo, sHi, sLo
		}
		x := left{link: int32(i), sides: [2]int8{sLo, sHi}}
		if d := m.fwd[lo]; d >= 0 && de.level[d] == fl.level[lo] {
			x.lists[0] = free[key{d, fl.level[hi]}]
		}
		if d := m.fwd[hi]; d >= 0 && de.level[d] == fl.level[hi] {
			x.lists[1] = free[key{d, fl.level[lo]}]
		}
		if len(x.lists[0])+len(x.lists[1]) > 0 {
			ls = append(ls, x)
		}
	}
	adj := func(u int32, k int) (int32, bool) {
		if k < len(ls[u].lists[0]) {
			return ls[u].lists[0][k], true
		}
		k -= len(ls[u].lists[0])
		if k < len(ls[u].lists[1]) {
			return ls[u].lists[1][k], true
		}
		return -1, false
	}
	matchL, matchR := hopcroftKarp(len(ls), len(dg.Links), adj)
	// Which end stays, and per staying device and tier the cables and links, to pair again in
	// port order (any cable of the group can take any link of it): the k-th lowest floor port
	// that stays takes the k-th lowest design port, so moves go in the order of the ports.
	type group struct {
		cables []int32 // floor links
		links  []int32 // design links
	}
	groups := map[key]*group{}
	stayDev := func(u int32, v int32) (int32, int8) {
		l := &fg.Links[ls[u].link]
		for k := 0; k < 2; k++ {
			for _, x := range ls[u].lists[k] {
				if x == v {
					e := l.A
					if ls[u].sides[k] == 2 {
						e = l.B
					}
					return e, ls[u].sides[k]
				}
			}
		}
		return -1, 0
	}
	var order []key
	for u := range ls {
		v := matchL[u]
		if v < 0 {
			continue
		}
		e, side := stayDev(int32(u), v)
		fli := ls[u].link
		moveStay[fli] = side
		other := fg.Links[fli].B
		if side == 2 {
			other = fg.Links[fli].A
		}
		k := key{e, fl.level[other]}
		g := groups[k]
		if g == nil {
			g = &group{}
			groups[k] = g
			order = append(order, k)
		}
		g.cables = append(g.cables, fli)
		g.links = append(g.links, v)
	}
	_ = matchR
	portAt := func(l int32, side int8) int {
		if side == 1 {
			return fg.Links[l].PortA
		}
		return fg.Links[l].PortB
	}
	for _, k := range order {
		g := groups[k]
		D := m.fwd[k.d]
		sort.SliceStable(g.cables, func(a, b int) bool {
			return portAt(g.cables[a], moveStay[g.cables[a]]) < portAt(g.cables[b], moveStay[g.cables[b]])
		})
		dport := func(li int32) int {
			l := &dg.Links[li]
			if l.A == D {
				return l.PortA
			}
			return l.PortB
		}
		sort.SliceStable(g.links, func(a, b int) bool { return dport(g.links[a]) < dport(g.links[b]) })
		for i, fli := range g.cables {
			li := g.links[i]
			keptBy[fli] = li
			designFrom[li] = fli
			designMoved[li] = true
		}
	}
	return moveStay
}

// hopcroftKarp is a largest matching of a bipartite graph of nl left and nr right vertices
// whose edges adj lists (adj(u, k) is u's k-th neighbour, false past the last), seeded greedily
// in adjacency order (Hopcroft and Karp 1973: phases of shortest augmenting paths, found by a
// breadth-first layering and vertex-disjoint depth-first searches along it).
func hopcroftKarp(nl, nr int, adj func(u int32, k int) (int32, bool)) (matchL, matchR []int32) {
	matchL, matchR = minusOnes(nl), minusOnes(nr)
	for u := int32(0); u < int32(nl); u++ {
		for k := 0; ; k++ {
			v, ok := adj(u, k)
			if !ok {
				break
			}
			if matchR[v] < 0 {
				matchL[u], matchR[v] = v, u
				break
			}
		}
	}
	const inf = int32(1 << 30)
	dist := make([]int32, nl)
	next := make([]int, nl)
	var queue []int32
	bfs := func() bool {
		queue = queue[:0]
		for u := range dist {
			if matchL[u] < 0 {
				dist[u] = 0
				queue = append(queue, int32(u))
			} else {
				dist[u] = inf
			}
		}
		found := false
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for k := 0; ; k++ {
				v, ok := adj(u, k)
				if !ok {
					break
				}
				w := matchR[v]
				if w < 0 {
					found = true
				} else if dist[w] == inf {
					dist[w] = dist[u] + 1
					queue = append(queue, w)
				}
			}
		}
		return found
	}
	var dfs func(u int32) bool
	dfs = func(u int32) bool {
		for ; ; next[u]++ {
			v, ok := adj(u, next[u])
			if !ok {
				break
			}
			w := matchR[v]
			if w < 0 || (dist[w] == dist[u]+1 && dfs(w)) {
				matchL[u], matchR[v] = v, u
				next[u]++
				return true
			}
		}
		dist[u] = inf
		return false
	}
	for bfs() {
		clear(next)
		for u := int32(0); u < int32(nl); u++ {
			if matchL[u] < 0 {
				dfs(u)
			}
		}
	}
	return matchL, matchR
}
