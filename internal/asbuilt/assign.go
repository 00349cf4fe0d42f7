package asbuilt

// cand is a class an item may take and what taking it is worth.
type cand struct {
	class int32
	w     int64
}

// transport assigns items to classes so that the total weight is the largest possible: class c
// takes at most caps[c] items, an item takes at most one class among its candidates (cands[i],
// each weight > 0), and an item may stay out (weight 0). It returns each item's class, or -1.
//
// The algorithm is the Hungarian method (Kuhn 1955, "The Hungarian method for the assignment
// problem", Naval Research Logistics Quarterly 2; Munkres 1957, "Algorithms for the assignment
// and transportation problems", J. SIAM 5) in its successive-shortest-path form, with classes of
// any capacity in place of single columns (the transportation problem of the same papers): items
// are added one at a time, and each is placed along the augmenting path of largest gain in the
// residual graph of the classes (item i enters class c0, an item of c0 moves to c1, ..., the
// last into a class with room or out). By the method's invariant the assignment of the items
// added so far is a largest one, so the residual graph has no cycle of positive gain and
// Bellman-Ford finds the best path. Two facts keep it near linear on fabrics:
//   - If the item's best class has room, entering it directly is a largest augmentation: any
//     other path enters some class c and continues with moves from full classes, whose total
//     gain is at most 0, or the assignment before the item would not have been a largest one.
//     Fabrics mostly take this path.
//   - Candidates are sparse (a node reaches the few leaves its HCAs are cabled to), so a path
//     search visits few classes and members.
func transport(cands [][]cand, caps []int32) []int32 {
	n := len(cands)
	assign := make([]int32, n)
	assignW := make([]int64, n)
	for i := range assign {
		assign[i] = -1
	}
	members := make([][]int32, len(caps))
	pos := make([]int32, n) // position of an item in its class's members
	load := make([]int32, len(caps))
	put := func(i, c int32, w int64) {
		assign[i], assignW[i] = c, w
		pos[i] = int32(len(members[c]))
		members[c] = append(members[c], i)
		load[c]++
	}
	take := func(i int32) {
		c := assign[i]
		p := pos[i]
		last := members[c][len(members[c])-1]
		members[c][p] = last
		pos[last] = p
		members[c] = members[c][:len(members[c])-1]
		load[c]--
		assign[i] = -1
	}
	weightOf := func(i, c int32) int64 {
		for _, x := range cands[i] {
			if x.class == c {
				return x.w
			}
		}
		return 0
	}

	const none = int64(-1 << 62)
	dist := make([]int64, len(caps))
	for i := range dist {
		dist[i] = none
	}
	type step struct {
		item int32 // the item that moves into the class on the path
		from int32 // the class it leaves (-1: the new item)
	}
	parent := make([]step, len(caps))
	var touched []int32
	inQueue := make([]bool, len(caps))

	for it := 0; it < n; it++ {
		i := int32(it)
		if len(cands[i]) == 0 {
			continue
		}
		best := none
		for _, x := range cands[i] {
			best = max(best, x.w)
		}
		direct := int32(-1)
		for _, x := range cands[i] {
			if x.w == best && load[x.class] < caps[x.class] {
				direct = x.class
				break
			}
		}
		if direct >= 0 {
			put(i, direct, best)
			continue
		}
		// Bellman-Ford (queue-based) over the classes from the new item.
		var queue []int32
		for _, x := range cands[i] {
			if caps[x.class] == 0 {
				continue
			}
			if dist[x.class] == none {
				touched = append(touched, x.class)
			}
			if x.w > dist[x.class] {
				dist[x.class] = x.w
				parent[x.class] = step{item: i, from: -1}
				if !inQueue[x.class] {
					inQueue[x.class] = true
					queue = append(queue, x.class)
				}
			}
		}
		sinkGain, sinkItem, sinkFrom := int64(0), int32(-1), int32(-1)
		budget := 4 * (len(caps) + 1) * (n + 1) // a guard; the invariant makes it unreachable
		for h := 0; h < len(queue) && budget > 0; h++ {
			c := queue[h]
			inQueue[c] = false
			if load[c] < caps[c] {
				continue // a class with room ends a path
			}
			for _, j := range members[c] {
				budget--
				wjc := assignW[j]
				// j leaves the fabric's assignment: the path ends there.
				if g := dist[c] - wjc; g > sinkGain {
					sinkGain, sinkItem, sinkFrom = g, j, c
				}
				for _, x := range cands[j] {
					d := x.class
					if d == c || caps[d] == 0 {
						continue
					}
					g := dist[c] - wjc + x.w
					if dist[d] == none {
						touched = append(touched, d)
					}
					if g > dist[d] {
						dist[d] = g
						parent[d] = step{item: j, from: c}
						if !inQueue[d] {
							inQueue[d] = true
							queue = append(queue, d)
						}
					}
				}
			}
		}
		// The best end: a class with room, or an item leaving.
		end, endGain := int32(-1), sinkGain
		for _, c := range touched {
			if load[c] < caps[c] && dist[c] > endGain {
				end, endGain = c, dist[c]
			}
		}
		if endGain > 0 {
			// Walk the path back from its end, moving each item into the class after it.
			var c int32
			if end >= 0 {
				c = end
			} else {
				take(sinkItem)
				c = sinkFrom
			}
			for guard := 0; guard <= len(caps); guard++ {
				p := parent[c]
				if p.from < 0 {
					w := weightOf(p.item, c)
					put(p.item, c, w)
					break
				}
				take(p.item)
				w := weightOf(p.item, c)
				put(p.item, c, w)
				c = p.from
			}
		}
		for _, c := range touched {
			dist[c] = none
			inQueue[c] = false
		}
		touched = touched[:0]
	}
	return assign
}
