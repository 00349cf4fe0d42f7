package asbuilt

import (
	"sort"
	"strings"
)

// keptMax bounds, per design tier (keyed by the tier's pair of levels), the floor cables any
// level-preserving assignment could keep, from relaxations that drop every other tier:
//
//   - node-leaf: the least of (a) a transport of floor leaves to design leaf classes, a floor
//     leaf keeping at most the HCA links of its k most common device names where its design
//     leaf serves k device names (one on a rail-optimized design: an HCA keeps its name), up to
//     the design leaf's capacity; (b) a transport of floor nodes to design node classes, each
//     keeping at most sortedMin of its per-leaf HCA counts against the slot's;
//   - between levels a < b: the least of the transports of either level's switches to the other
//     design level's classes, each keeping at most sortedMin of its per-neighbour link counts;
//   - within a level (dragonfly+ global, torus): the least of half the sum, over floor switches,
//     of the best sortedMin against any design switch, and the sum over pairs of floor pods of
//     min(floor links, the most links any pair of design pods has), which holds for
//     assignments that keep a pod within a pod (a pod's own leaf-spine links outnumber what
//     splitting it could gain between pods in the generator's designs).
//
// Each relaxation only drops constraints, so each is an upper bound; the least of them is one.
func (m *matcher) keptMax() map[[2]int8]int64 {
	fl, de := m.fl, m.de
	out := map[[2]int8]int64{}
	pairs := map[[2]int8]bool{}
	for i := range de.g.Links {
		l := &de.g.Links[i]
		pairs[levelPair(de.level[l.A], de.level[l.B])] = true
	}
	for p := range pairs {
		switch {
		case p[0] == 0 && p[1] == 1:
			out[p] = min(m.leafSideBound(), m.nodeSideBound())
		case p[0] == p[1]:
			out[p] = m.sameLevelBound(p[0])
		default:
			out[p] = min(sideBound(fl, de, p[1], p[0]), sideBound(fl, de, p[0], p[1]))
		}
	}
	return out
}

func levelPair(a, b int8) [2]int8 {
	if a > b {
		a, b = b, a
	}
	return [2]int8{a, b}
}

func profileKey(p []int32) string {
	var sb strings.Builder
	for _, v := range p {
		sb.WriteString(itoa32(v))
		sb.WriteByte(',')
	}
	return sb.String()
}

// classBound solves the transport of items (each a descending multiset of link counts) to
// classes of design devices with multisets, weight sortedMin, and returns the total.
func classBound(items [][]int32, designs [][]int32) int64 {
	ids := map[string]int32{}
	var reps [][]int32
	var caps []int32
	for _, d := range designs {
		k := profileKey(d)
		id, ok := ids[k]
		if !ok {
			id = int32(len(reps))
			ids[k] = id
			reps = append(reps, d)
			caps = append(caps, 0)
		}
		caps[id]++
	}
	return bestTransport(items, len(reps), caps, func(i int, c int32) int64 { return sortedMin(items[i], reps[c]) })
}

// bestTransport is transport over dense weights, returning the total weight.
func bestTransport[T any](items []T, classes int, caps []int32, w func(i int, c int32) int64) int64 {
	cands := make([][]cand, len(items))
	for i := range items {
		for c := int32(0); c < int32(classes); c++ {
			if v := w(i, c); v > 0 {
				cands[i] = append(cands[i], cand{class: c, w: v})
			}
		}
	}
	got := transport(cands, caps)
	var total int64
	for i, c := range got {
		if c >= 0 {
			total += w(i, c)
		}
	}
	return total
}

// sideBound: floor switches of level lv to design switches of level lv, each keeping at most
// sortedMin of its link counts to level other against the design switch's.
func sideBound(fl, de *fgraph, lv, other int8) int64 {
	var items, designs [][]int32
	for _, s := range fl.atLevel(lv) {
		if p := fl.profile(s, other); len(p) > 0 {
			items = append(items, p)
		}
	}
	for _, d := range de.atLevel(lv) {
		designs = append(designs, de.profile(d, other))
	}
	return classBound(items, designs)
}

// leafSideBound: a floor leaf keeps at most the HCA links of its k most common device names on
// a design leaf that serves k names, up to that leaf's HCA links.
func (m *matcher) leafSideBound() int64 {
	fl, de := m.fl, m.de
	type key struct {
		cap int64
		k   int
	}
	ids := map[key]int32{}
	var keys []key
	var caps []int32
	for _, L := range de.atLevel(1) {
		var capL int64
		names := map[string]bool{}
		for _, x := range de.nbrs[L] {
			if de.level[x.d] == 0 {
				capL += int64(x.n)
				names[de.devName[x.d]] = true
			}
		}
		k := key{capL, len(names)}
		id, ok := ids[k]
		if !ok {
			id = int32(len(keys))
			ids[k] = id
			keys = append(keys, k)
			caps = append(caps, 0)
		}
		caps[id]++
	}
	var counts [][]int64 // per floor leaf: HCA links per device name, descending
	for _, l := range fl.atLevel(1) {
		c := map[string]int64{}
		for _, x := range fl.nbrs[l] {
			if fl.level[x.d] == 0 {
				c[fl.devName[x.d]] += int64(x.n)
			}
		}
		if len(c) == 0 {
			continue
		}
		v := make([]int64, 0, len(c))
		for _, n := range c {
			v = append(v, n)
		}
		sort.Slice(v, func(a, b int) bool { return v[a] > v[b] })
		counts = append(counts, v)
	}
	return bestTransport(counts, len(keys), caps, func(i int, c int32) int64 {
		var s int64
		for j := 0; j < keys[c].k && j < len(counts[i]); j++ {
			s += counts[i][j]
		}
		return min(s, keys[c].cap)
	})
}

// nodeSideBound: a floor node keeps at most sortedMin of its per-leaf HCA link counts against
// its slot's.
func (m *matcher) nodeSideBound() int64 {
	per := func(g *fgraph, n int) []int32 {
		c := map[int32]int32{}
		for _, h := range g.nodes[n].hcas {
			for _, x := range g.nbrs[h] {
				if g.level[x.d] == 1 {
					c[x.d] += x.n
				}
			}
		}
		out := make([]int32, 0, len(c))
		for _, v := range c {
			out = append(out, v)
		}
		sort.Slice(out, func(a, b int) bool { return out[a] > out[b] })
		return out
	}
	var items, designs [][]int32
	for n := range m.fl.nodes {
		if p := per(m.fl, n); len(p) > 0 {
			items = append(items, p)
		}
	}
	for n := range m.de.nodes {
		designs = append(designs, per(m.de, n))
	}
	return classBound(items, designs)
}

// sameLevelBound bounds the links among switches of one level (see keptMax).
func (m *matcher) sameLevelBound(lv int8) int64 {
	fl, de := m.fl, m.de
	var perDev int64
	var designs [][]int32
	seen := map[string]bool{}
	for _, d := range de.atLevel(lv) {
		p := de.profile(d, lv)
		if k := profileKey(p); !seen[k] {
			seen[k] = true
			designs = append(designs, p)
		}
	}
	for _, s := range fl.atLevel(lv) {
		p := fl.profile(s, lv)
		var best int64
		for _, d := range designs {
			best = max(best, sortedMin(p, d))
		}
		perDev += best
	}
	perDev /= 2

	// Pods: floor links per pair of floor pods, capped by the most any design pod pair has.
	podPairs := func(g *fgraph, s *structure) map[[2]int32]int64 {
		out := map[[2]int32]int64{}
		for _, a := range g.atLevel(lv) {
			for _, x := range g.nbrs[a] {
				if g.level[x.d] != lv || x.d < a {
					continue
				}
				pa, pb := s.podOf[a], s.podOf[x.d]
				if pa < 0 || pb < 0 {
					continue
				}
				if pa > pb {
					pa, pb = pb, pa
				}
				out[[2]int32{pa, pb}] += int64(x.n)
			}
		}
		return out
	}
	var maxCross, maxWithin int64
	for k, n := range podPairs(de, m.ds) {
		if k[0] == k[1] {
			maxWithin = max(maxWithin, n)
		} else {
			maxCross = max(maxCross, n)
		}
	}
	var perPod int64
	for k, n := range podPairs(fl, m.fs) {
		if k[0] == k[1] {
			perPod += min(n, maxWithin)
		} else {
			perPod += min(n, maxCross)
		}
	}
	// Links at level lv whose ends are in no pod are bounded by the per-device bound alone.
	return min(perDev, perPod+m.podlessSameLevel(lv))
}

func (m *matcher) podlessSameLevel(lv int8) int64 {
	var n int64
	for _, a := range m.fl.atLevel(lv) {
		for _, x := range m.fl.nbrs[a] {
			if m.fl.level[x.d] == lv && x.d > a && (m.fs.podOf[a] < 0 || m.fs.podOf[x.d] < 0) {
				n += int64(x.n)
			}
		}
	}
	return n
}
