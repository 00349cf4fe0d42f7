package analysis

// Fiduccia-Mattheyses refinement (C. M. Fiduccia and R. M. Mattheyses, "A linear-time heuristic
// for improving network partitions", 19th Design Automation Conference, 1982) of a cut at switch
// granularity: endpoints move with their switch. A pass moves every switch once, each time the
// unlocked switch of highest gain (decrease of the switch-link capacity crossing) whose move keeps
// the balance within tolerance, locks it, updates the gains of its neighbours, and at the end
// rolls back to the best prefix of moves. Gains are link rates, not small integers, so a pair of
// indexed binary heaps stands in for the paper's bucket lists (O(log n) instead of O(1) a move).
//
// Balance: side A should hold h = floor(N/2) endpoints. A move is allowed when the imbalance
// |nA - h| afterwards is within the weight of the heaviest switch or no worse than before; the
// prefix kept is the one that minimises the switch cut plus the imbalance paid in access links
// (the objective of approx), so an imbalanced intermediate state is only a step on the way.

const (
	fmMaxPasses = 8
	fmEps       = 1e-9
)

func (t *topo) refineFM(side []uint8) []uint8 {
	n := t.n()
	if n < 2 {
		return side
	}
	side = append([]uint8(nil), side...)
	tol := 1
	for _, w := range t.epN {
		if int(w) > tol {
			tol = int(w)
		}
	}
	gain := make([]float64, n)
	pos := make([]int32, n)
	heaps := [2]*gainHeap{{gain: gain, pos: pos}, {gain: gain, pos: pos}}
	moves := make([]int32, 0, n)
	for pass := 0; pass < fmMaxPasses; pass++ {
		cut, nA := t.switchCut(side)
		start := t.approx(cut, nA)
		for s := 0; s < n; s++ {
			g := 0.0
			for k := t.start[s]; k < t.start[s+1]; k++ {
				if side[t.nbr[k]] != side[s] {
					g += t.cap[k]
				} else {
					g -= t.cap[k]
				}
			}
			gain[s] = g
		}
		heaps[0].reset(n)
		heaps[1].reset(n)
		for s := 0; s < n; s++ {
			heaps[side[s]].push(int32(s))
		}
		moves = moves[:0]
		best, bestLen := start, 0
		for {
			x := t.pickMove(heaps, nA, tol)
			if x < 0 {
				break
			}
			from := side[x]
			heaps[from].remove(x)
			cut -= gain[x]
			if from == sideA {
				nA -= int(t.epN[x])
			} else {
				nA += int(t.epN[x])
			}
			side[x] = 1 - from
			for k := t.start[x]; k < t.start[x+1]; k++ {
				y := t.nbr[k]
				if pos[y] < 0 {
					continue // locked
				}
				if side[y] == from {
					gain[y] += 2 * t.cap[k]
				} else {
					gain[y] -= 2 * t.cap[k]
				}
				heaps[side[y]].fix(y)
			}
			moves = append(moves, x)
			if v := t.approx(cut, nA); v < best-fmEps*(1+best) {
				best, bestLen = v, len(moves)
			}
		}
		for i := len(moves) - 1; i >= bestLen; i-- {
			side[moves[i]] ^= 1
		}
		if bestLen == 0 {
			break
		}
	}
	return side
}

// pickMove returns the allowed move of highest gain, or -1. Each side offers the best of its
// first fmLookahead switches (in gain order) whose move keeps the balance; the paper takes the
// head of the bucket list only, but with switches of very different weights (leaves, and spines
// with no endpoints) a blocked head should not end the pass.
func (t *topo) pickMove(heaps [2]*gainHeap, nA, tol int) int32 {
	x := int32(-1)
	limit := max(tol, abs(nA-t.half))
	for from := 0; from < 2; from++ {
		h := heaps[from]
		y := h.bestAllowed(func(y int32) bool {
			after := nA + int(t.epN[y])
			if from == int(sideA) {
				after = nA - int(t.epN[y])
			}
			return abs(after-t.half) <= limit
		})
		if y < 0 {
			continue
		}
		if x < 0 || h.gain[y] > h.gain[x] || (h.gain[y] == h.gain[x] && y < x) {
			x = y
		}
	}
	return x
}

const fmLookahead = 16

// bestAllowed returns the first switch in heap order, among the first fmLookahead, that ok
// accepts, or -1. It walks the heap's top levels breadth-first by gain without popping.
func (h *gainHeap) bestAllowed(ok func(int32) bool) int32 {
	if len(h.items) == 0 {
		return -1
	}
	if ok(h.items[0]) {
		return h.items[0]
	}
	// Small best-first search over heap positions.
	frontier := []int{0}
	best := int32(-1)
	for seen := 0; len(frontier) > 0 && seen < fmLookahead; seen++ {
		// Pop the frontier position of highest key.
		bi := 0
		for i := 1; i < len(frontier); i++ {
			if h.less(frontier[i], frontier[bi]) {
				bi = i
			}
		}
		p := frontier[bi]
		frontier = append(frontier[:bi], frontier[bi+1:]...)
		if y := h.items[p]; p != 0 && ok(y) {
			best = y
			break
		}
		for _, c := range []int{2*p + 1, 2*p + 2} {
			if c < len(h.items) {
				frontier = append(frontier, c)
			}
		}
	}
	return best
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// gainHeap is an indexed binary max-heap of switches keyed by gain (ties: lower index first, so
// the refinement is deterministic). pos is shared by the two heaps of a pass since a switch is in
// at most one; -1 means in neither (locked).
type gainHeap struct {
	items []int32
	gain  []float64
	pos   []int32
}

func (h *gainHeap) reset(n int) {
	h.items = h.items[:0]
	for i := 0; i < n && i < len(h.pos); i++ {
		h.pos[i] = -1
	}
}

func (h *gainHeap) less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	return h.gain[a] > h.gain[b] || (h.gain[a] == h.gain[b] && a < b)
}

func (h *gainHeap) swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.pos[h.items[i]] = int32(i)
	h.pos[h.items[j]] = int32(j)
}

func (h *gainHeap) push(x int32) {
	h.items = append(h.items, x)
	h.pos[x] = int32(len(h.items) - 1)
	h.up(len(h.items) - 1)
}

func (h *gainHeap) remove(x int32) {
	i := int(h.pos[x])
	last := len(h.items) - 1
	if i != last {
		h.swap(i, last)
	}
	h.items = h.items[:last]
	h.pos[x] = -1
	if i != last {
		h.down(i)
		h.up(i)
	}
}

func (h *gainHeap) fix(x int32) {
	i := int(h.pos[x])
	h.down(i)
	h.up(i)
}

func (h *gainHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h *gainHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h.less(r, l) {
			c = r
		}
		if !h.less(c, i) {
			return
		}
		h.swap(i, c)
		i = c
	}
}
