package analysis

import "math/bits"

// hops fills MaxSwitchHops and HopsWitness: the switch-to-switch links on the longest of the
// shortest paths between two endpoints, i.e. the diameter of the switch graph restricted to leaf
// pairs (a leaf being a switch with an endpoint). HCAs never forward, so paths run over switches
// only, and two endpoints on one leaf are 0 hops apart.
//
// Exact, by breadth-first search (Moore 1959) from every leaf, 64 at a time (multiBFS). Leaves
// that are twins (same multiset of switch neighbours, e.g. every leaf of a pod of a fat tree)
// are at the same distance from every other switch, so one search per twin class suffices; the
// distance between two twins is 2, which the search from the class's first member sees too. A
// 65,536-endpoint three-tier fat tree has 2,048 leaves but 64 classes.
func hops(t *topo, r *Result) {
	var leaves []int32
	for s := range t.dev {
		if t.epN[s] > 0 {
			leaves = append(leaves, int32(s))
		}
	}
	if len(t.eps) >= 2 {
		// Two endpoints on one leaf: 0 hops, the answer when nothing is farther.
		for i := 1; i < len(t.eps); i++ {
			if t.eps[i].sw == t.eps[0].sw {
				r.HopsWitness = [2]string{t.epName(0), t.epName(i)}
				break
			}
		}
	}
	firstEp := make([]int, t.n())
	for i := range firstEp {
		firstEp[i] = -1
	}
	for i, e := range t.eps {
		if firstEp[e.sw] < 0 {
			firstEp[e.sw] = i
		}
	}
	classes := t.twinClasses(leaves, nil)
	srcs := make([]int32, len(classes))
	for i, c := range classes {
		srcs[i] = c[0]
	}
	ms := newMultiBFS(t.n())
	best := 0
	for lo := 0; lo < len(srcs); lo += 64 {
		batch := srcs[lo:min(lo+64, len(srcs))]
		far, target := ms.run(t, batch)
		for i, src := range batch {
			if target[i] >= 0 && far[i] > best {
				best = far[i]
				r.MaxSwitchHops = best
				r.HopsWitness = [2]string{t.epName(firstEp[src]), t.epName(firstEp[target[i]])}
			}
		}
	}
}

// multiBFS runs breadth-first searches from up to 64 sources at once, one bit per source
// (multi-source BFS after Then et al., "The more the merrier: efficient multi-source graph
// traversal", PVLDB 8(4), 2014): each level is one pass over the adjacency that ORs the neighbours'
// frontier words, so 64 searches cost about as much as one.
type multiBFS struct {
	seen, frontier, next []uint64
	far                  [64]int
	target               [64]int32
}

func newMultiBFS(n int) *multiBFS {
	return &multiBFS{seen: make([]uint64, n), frontier: make([]uint64, n), next: make([]uint64, n)}
}

// run returns, for each source, the greatest distance to a switch with endpoints other than
// itself and the first such switch (in index order) at that distance; -1 when none is reached.
func (m *multiBFS) run(t *topo, srcs []int32) ([64]int, [64]int32) {
	for i := range m.seen {
		m.seen[i], m.frontier[i] = 0, 0
	}
	for i := range srcs {
		m.far[i], m.target[i] = 0, -1
	}
	for i, s := range srcs {
		m.seen[s] |= 1 << uint(i)
		m.frontier[s] |= 1 << uint(i)
	}
	for level := 1; ; level++ {
		active := false
		for x := range m.next {
			var f uint64
			for k := t.start[x]; k < t.start[x+1]; k++ {
				f |= m.frontier[t.nbr[k]]
			}
			f &^= m.seen[x]
			m.next[x] = f
			if f == 0 {
				continue
			}
			active = true
			m.seen[x] |= f
			if t.epN[x] == 0 {
				continue
			}
			for w := f; w != 0; w &= w - 1 {
				i := bits.TrailingZeros64(w)
				if level > m.far[i] {
					m.far[i], m.target[i] = level, int32(x)
				}
			}
		}
		if !active {
			return m.far, m.target
		}
		m.frontier, m.next = m.next, m.frontier
	}
}
