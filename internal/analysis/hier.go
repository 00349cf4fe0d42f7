package analysis

import "sort"

// Hierarchical cuts for trees (candidate (b) of the upper bound). A fat tree's smallest balanced
// cut separates whole subtrees (Leiserson 1985: the capacity of a fat tree's channels grows
// towards the root, and a bisection of the leaves is cheapest along subtree boundaries), so the
// candidate removes the top level, takes the connected components below it (pods), fills side A
// with whole pods up to half the endpoints, splits one pod further by the same rule one level
// down when needed (at the bottom, leaf by leaf), and then places each switch above on the side
// where it has more link capacity, so that it cuts only its minority.

// comp is a connected piece of the fabric below some level.
type comp struct {
	sw  []int32 // its switches, in breadth-first order
	ep  int     // endpoints on them
	ext float64 // capacity of the links that leave it
}

type hier struct {
	t        *topo
	side     []uint8
	assigned []bool
	mark     []uint32
	seen     []uint32
	stamp    uint32
	byRatio  bool // fill the most constrained pieces (least capacity out per endpoint) first
	strict   bool // finish: side A only with more capacity to A than to everything else
}

func newHier(t *topo, byRatio, strict bool) *hier {
	n := t.n()
	h := &hier{t: t, side: make([]uint8, n), assigned: make([]bool, n), mark: make([]uint32, n), seen: make([]uint32, n), byRatio: byRatio, strict: strict}
	for i := range h.side {
		h.side[i] = sideB
	}
	return h
}

// treeCut is the candidate for the whole fabric: the pieces below level top (the pods when top
// is the top level, single leaves when it is 2).
func (t *topo) treeCut(top int32, byRatio, strict bool) []uint8 {
	h := newHier(t, byRatio, strict)
	all := make([]int32, t.n())
	for i := range all {
		all[i] = int32(i)
	}
	h.fill(all, top, t.half)
	h.finish()
	return h.side
}

// groupCut is the candidate for dragonfly+: whole groups first, a group split by its leaves.
func (t *topo) groupCut(byRatio bool) []uint8 {
	h := newHier(t, byRatio, false)
	index := map[string]int{}
	var cs []comp
	for s := range t.dev {
		gname := t.g.Devices[t.dev[s]].Group
		if gname == "" {
			continue
		}
		i, ok := index[gname]
		if !ok {
			i = len(cs)
			index[gname] = i
			cs = append(cs, comp{})
		}
		cs[i].sw = append(cs[i].sw, int32(s))
		cs[i].ep += int(t.epN[s])
	}
	for i := range cs {
		for _, s := range cs[i].sw {
			h.mark[s] = uint32(i + 1)
		}
		for _, s := range cs[i].sw {
			for k := t.start[s]; k < t.start[s+1]; k++ {
				if h.mark[t.nbr[k]] != uint32(i+1) {
					cs[i].ext += t.cap[k]
				}
			}
		}
	}
	for i := range h.mark {
		h.mark[i] = 0
	}
	h.stamp = uint32(len(cs)) + 1
	h.place(cs, int32(t.maxLevel)+1, t.half)
	h.finish()
	return h.side
}

// fill puts switches of scope on side A until need endpoints are there, using the pieces of
// scope below level top, and returns what is still needed (negative: one too many placed).
func (h *hier) fill(scope []int32, top int32, need int) int {
	for L := top; L >= 2 && need > 0; L-- {
		cs := h.comps(scope, L)
		if len(cs) == 0 {
			break
		}
		if len(cs) == 1 && len(cs[0].sw) == len(scope) {
			continue // nothing removed at this level: look one level down
		}
		return h.place(cs, L, need)
	}
	// Bottom: one leaf (or a laterally joined group of leaves) at a time.
	t := h.t
	for _, x := range scope {
		if need <= 0 {
			break
		}
		if h.assigned[x] || t.epN[x] == 0 {
			continue
		}
		w := int(t.epN[x])
		if w > need && 2*need < w {
			break // closer to balance without it
		}
		h.put(x)
		need -= w
	}
	return need
}

// place fills side A with whole pieces (pieces found below level L), then splits the first piece
// that did not fit.
func (h *hier) place(cs []comp, L int32, need int) int {
	if h.byRatio {
		sort.SliceStable(cs, func(i, j int) bool {
			ri, rj := ratio(cs[i]), ratio(cs[j])
			return ri < rj
		})
	}
	var split *comp
	for i := range cs {
		c := &cs[i]
		if c.ep == 0 || need <= 0 {
			continue
		}
		if c.ep <= need {
			for _, s := range c.sw {
				h.put(s)
			}
			need -= c.ep
		} else if split == nil {
			split = c
		}
	}
	if need > 0 && split != nil {
		need = h.fill(split.sw, L-1, need)
	}
	return need
}

func ratio(c comp) float64 {
	if c.ep == 0 {
		return 0
	}
	return c.ext / float64(c.ep)
}

func (h *hier) put(s int32) {
	h.side[s] = sideA
	h.assigned[s] = true
}

// comps returns the connected components of the switches of scope whose level is in [1, L),
// joined by links between such switches, in the order of their first switch in scope.
func (h *hier) comps(scope []int32, L int32) []comp {
	t := h.t
	h.stamp++
	st := h.stamp
	for _, s := range scope {
		if lv := t.level[s]; lv >= 1 && lv < L {
			h.mark[s] = st
		}
	}
	var out []comp
	for _, s := range scope {
		if h.mark[s] != st || h.seen[s] == st {
			continue
		}
		c := comp{sw: []int32{s}}
		h.seen[s] = st
		for head := 0; head < len(c.sw); head++ {
			x := c.sw[head]
			c.ep += int(t.epN[x])
			for k := t.start[x]; k < t.start[x+1]; k++ {
				y := t.nbr[k]
				if h.mark[y] != st {
					c.ext += t.cap[k]
					continue
				}
				if h.seen[y] != st {
					h.seen[y] = st
					c.sw = append(c.sw, y)
				}
			}
		}
		out = append(out, c)
	}
	return out
}

// finish fixes every switch with endpoints that fill did not take on side B, then places the
// rest, lowest level first, on the side where they have more capacity to switches already
// placed (B on a tie); strict counts the switches not yet placed as B, which keeps the level
// above a cut on side B (the cut then runs below it).
func (h *hier) finish() {
	t := h.t
	for s := range t.dev {
		if t.epN[s] > 0 {
			h.assigned[s] = true
		}
	}
	order := make([]int32, 0, t.n())
	for s := range t.dev {
		if !h.assigned[s] {
			order = append(order, int32(s))
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		li, lj := t.level[order[i]], t.level[order[j]]
		if li < 0 {
			li = 1 << 30
		}
		if lj < 0 {
			lj = 1 << 30
		}
		return li < lj
	})
	for _, x := range order {
		var a, b float64
		for k := t.start[x]; k < t.start[x+1]; k++ {
			if y := t.nbr[k]; h.assigned[y] && h.side[y] == sideA {
				a += t.cap[k]
			} else if h.assigned[y] || h.strict {
				b += t.cap[k]
			}
		}
		if a > b {
			h.side[x] = sideA
		}
		h.assigned[x] = true
	}
}
