package analysis

import (
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// A third proved lower bound, for damaged fabrics too large to enumerate (three tiers, or two
// tiers with many distinct spines): degradation from a completion.
//
// Argument. Let X be any set of extra links between switches of the fabric, and G + X the fabric
// with them. A balanced cut of G is a balanced cut of G + X, and its capacity in G + X is its
// capacity in G plus that of the links of X it crosses, at most cap(X). So
//
//	bisection(G) >= bisection(G + X) - cap(X) >= VLB(G + X) - cap(X),
//
// with VLB the routing bound of lower.go, for every X: the choice of X affects only how good the
// bound is, never whether it holds. (This is the edge-deletion monotonicity of cut capacities
// used for fault-tolerant networks, e.g. F. T. Leighton, B. M. Maggs, R. K. Sitaraman, "On the
// fault tolerance of some popular bounded-degree networks", SIAM J. Computing 27(5), 1998.)
//
// Completion. X puts back what looks missing from a regular tree: per level L, every switch of
// L short of the largest up-capacity among the switches of L it shares upper neighbours with
// (its pod) gets links, one at a time, to the upper switch of that pod that is short of the
// largest down-capacity and has the fewest links to it already. On a tree with links missing
// this restores the standard tree, whose VLB is exact, and the bound is its bisection less the
// missing capacity; a half-cabled expansion costs its missing half, which the enumeration does
// better on two tiers (the best of the bounds is reported).

// degradeBound returns VLB(G + X) - cap(X), and ok = false when X is empty (nothing to restore).
func degradeBound(t *topo) (float64, bool) {
	if len(t.eps) < 2 || t.maxLevel < 2 {
		return 0, false
	}
	type add struct {
		a, b int32 // local switches
		gbps float64
	}
	var X []add
	links := map[[2]int32]int{} // existing and added links between two switches
	for s := range t.dev {
		for k := t.start[s]; k < t.start[s+1]; k++ {
			links[[2]int32{int32(s), t.nbr[k]}]++
		}
	}
	for L := int32(1); L < int32(t.maxLevel); L++ {
		// Pods: switches of L joined through a common upper neighbour (union-find).
		uf := fabric.NewUnionFind(t.n())
		up := make(map[int32]float64)   // up-capacity of switches of L
		down := make(map[int32]float64) // down-capacity (from L) of switches of L+1
		rate := map[int32]float64{}     // the rate of a switch's links across the two levels
		firstLow := map[int32]int32{}   // an L switch below each upper switch
		for s := range t.dev {
			if t.level[s] != L {
				continue
			}
			x := int32(s)
			up[x] += 0
			for k := t.start[s]; k < t.start[s+1]; k++ {
				if y := t.nbr[k]; t.level[y] == L+1 {
					up[x] += t.cap[k]
					down[y] += t.cap[k]
					rate[x], rate[y] = t.cap[k], t.cap[k]
				}
			}
		}
		for s := range t.dev {
			if t.level[s] != L {
				continue
			}
			for k := t.start[s]; k < t.start[s+1]; k++ {
				if y := t.nbr[k]; t.level[y] == L+1 {
					if f, ok := firstLow[y]; ok {
						uf.Union(int32(s), f)
					} else {
						firstLow[y] = int32(s)
					}
				}
			}
		}
		pods := map[int32]*struct{ low, high []int32 }{}
		podOf := func(r int32) *struct{ low, high []int32 } {
			p := pods[r]
			if p == nil {
				p = &struct{ low, high []int32 }{}
				pods[r] = p
			}
			return p
		}
		for s := range t.dev {
			x := int32(s)
			switch t.level[s] {
			case L:
				podOf(uf.Find(x)).low = append(podOf(uf.Find(x)).low, x)
			case L + 1:
				if f, ok := firstLow[x]; ok {
					podOf(uf.Find(f)).high = append(podOf(uf.Find(f)).high, x)
				}
			}
		}
		roots := make([]int32, 0, len(pods))
		for r := range pods {
			roots = append(roots, r)
		}
		sort.Slice(roots, func(i, j int) bool { return roots[i] < roots[j] })
		for _, r := range roots {
			p := pods[r]
			if len(p.low) < 2 || len(p.high) == 0 {
				continue
			}
			maxUp, maxDown := 0.0, 0.0
			for _, x := range p.low {
				maxUp = max(maxUp, up[x])
			}
			for _, y := range p.high {
				maxDown = max(maxDown, down[y])
			}
			for _, x := range p.low {
				for up[x] < maxUp {
					best := int32(-1)
					for _, y := range p.high {
						if down[y] >= maxDown || rate[y] != rate[x] {
							continue
						}
						if best < 0 || links[[2]int32{x, y}] < links[[2]int32{x, best}] ||
							(links[[2]int32{x, y}] == links[[2]int32{x, best}] && down[y] < down[best]) {
							best = y
						}
					}
					if best < 0 || rate[x] <= 0 || up[x]+rate[x] > maxUp {
						break
					}
					X = append(X, add{x, best, rate[x]})
					links[[2]int32{x, best}]++
					links[[2]int32{best, x}]++
					up[x] += rate[x]
					down[best] += rate[x]
				}
			}
			// The same from above: an upper switch short of the pod's largest down-capacity
			// (every lower switch may be short alike, when each lost one uplink) gets links
			// from the lower switches with the fewest links to it.
			for _, y := range p.high {
				for down[y] < maxDown {
					best := int32(-1)
					for _, x := range p.low {
						if rate[x] != rate[y] {
							continue
						}
						if best < 0 || links[[2]int32{x, y}] < links[[2]int32{best, y}] ||
							(links[[2]int32{x, y}] == links[[2]int32{best, y}] && up[x] < up[best]) {
							best = x
						}
					}
					if best < 0 || rate[y] <= 0 || down[y]+rate[y] > maxDown {
						break
					}
					X = append(X, add{best, y, rate[y]})
					links[[2]int32{best, y}]++
					links[[2]int32{y, best}]++
					up[best] += rate[y]
					down[y] += rate[y]
				}
			}
		}
	}
	if len(X) == 0 {
		return 0, false
	}
	// G + X as a topo: the same switches and endpoints, the rows rebuilt with the extra entries,
	// the extra links appended to a copy of the graph's link list (the routing bound reads their
	// rates there).
	g2 := *t.g
	g2.Links = append(make([]fabric.Link, 0, len(t.g.Links)+len(X)), t.g.Links...)
	capX := 0.0
	extra := make([][]int32, t.n()) // per switch: indexes into X
	for i, x := range X {
		g2.Links = append(g2.Links, fabric.Link{A: t.dev[x.a], B: t.dev[x.b], RateGbps: x.gbps, Cable: -1})
		extra[x.a] = append(extra[x.a], int32(i))
		extra[x.b] = append(extra[x.b], int32(i))
		capX += x.gbps
	}
	t2 := *t
	t2.g = &g2
	n := t.n()
	t2.start = make([]int32, n+1)
	t2.nbr = make([]int32, 0, len(t.nbr)+2*len(X))
	t2.cap = make([]float64, 0, len(t.nbr)+2*len(X))
	t2.lnk = make([]int32, 0, len(t.nbr)+2*len(X))
	for s := 0; s < n; s++ {
		t2.nbr = append(t2.nbr, t.nbr[t.start[s]:t.start[s+1]]...)
		t2.cap = append(t2.cap, t.cap[t.start[s]:t.start[s+1]]...)
		t2.lnk = append(t2.lnk, t.lnk[t.start[s]:t.start[s+1]]...)
		for _, i := range extra[s] {
			other := X[i].b
			if other == int32(s) {
				other = X[i].a
			}
			t2.nbr = append(t2.nbr, other)
			t2.cap = append(t2.cap, X[i].gbps)
			t2.lnk = append(t2.lnk, int32(len(t.g.Links))+i)
		}
		t2.start[s+1] = int32(len(t2.nbr))
	}
	lo := lowerBoundOf(&t2, false, nil) // the completion is a regular tree: its top tier is the right M
	if v := lo.gbps - capX; v > 0 {
		return v, true
	}
	return 0, false
}
