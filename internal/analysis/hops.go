package analysis

// hops fills MaxSwitchHops and HopsWitness: the switch-to-switch links on the longest of the
// shortest paths between two endpoints, i.e. the diameter of the switch graph restricted to leaf
// pairs (a leaf being a switch with an endpoint). HCAs never forward, so paths run over switches
// only, and two endpoints on one leaf are 0 hops apart.
//
// Exact, by breadth-first search (Moore 1959) from every leaf; leaves that are twins (same
// multiset of switch neighbours, e.g. every leaf of a pod of a fat tree) are at the same distance
// from every other switch, so one search per twin class suffices. The distance between two twins
// is 2, which the search from the class's first member sees too. A 65,536-endpoint three-tier
// fat tree has 2,048 leaves but 64 classes.
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
	dist := make([]int32, t.n())
	var queue []int32
	best := -1
	for _, c := range t.twinClasses(leaves, nil) {
		src := c[0]
		queue = t.bfs(src, dist, queue)
		for _, x := range leaves {
			if x == src || dist[x] < 0 {
				continue
			}
			if int(dist[x]) > best {
				best = int(dist[x])
				r.MaxSwitchHops = best
				r.HopsWitness = [2]string{t.epName(firstEp[src]), t.epName(firstEp[x])}
			}
		}
	}
}
