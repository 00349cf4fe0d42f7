package analysis

import "fmt"

// The minhop and updn engines of OpenSM 3.3 (opensm/osm_ucast_mgr.c, osm_ucast_updn.c,
// osm_switch.c in linux-rdma/opensm, tag 3.3.23) share one forwarding-table builder and differ
// only in the hop table it reads:
//
//   - minhop: hops[s][t][p] = 1 + (shortest switch-hop distance from the switch behind port p
//     to switch t), relaxed to a fixed point (osm_ucast_mgr_build_lid_matrices).
//   - updn: a breadth-first search from every switch t that never takes a down-then-up turn,
//     where "up" means towards a lower rank (distance from the root switches), ties broken by
//     the larger node GUID (updn_bfs_by_node, updn_get_dir). Reproduced step by step, including
//     re-queueing a switch that gets a new per-port entry after it left the queue.
//
// ucast_mgr_build_lfts then routes, on every switch independently, the end ports in one global
// order: switches in node-GUID map order, stably sorted by how many end ports they carry (most
// first), each switch's end ports in port order (sort_ports_by_switch_load). For each end port
// the switch picks, among its ports with the least hop count to the end port's switch, the one
// that already carries the fewest end-port routes, the lowest port number on a tie
// (osm_switch_recommend_path with LMC 0, no port_shifting, no scatter_ports: the defaults).
// LID values never enter the choice, so the model does not need OpenSM's LID assignment.

// candSets holds, per switch, the distinct sets of least-hop ports it has towards the switches
// that carry endpoints: set[s][t] indexes ports[s]; -1 when t is unreachable (or t == s).
type candSets struct {
	ports [][][]uint8 // per switch: the interned sets, ports ascending
	set   [][]int16   // per switch, per target switch
}

func newCandSets(n *rnet) *candSets {
	c := &candSets{ports: make([][][]uint8, len(n.dev)), set: make([][]int16, len(n.dev))}
	for s := range n.dev {
		c.set[s] = make([]int16, len(n.dev))
		for t := range c.set[s] {
			c.set[s][t] = -1
		}
	}
	return c
}

// interner maps a port set (as a 256-bit set) to its index in ports[s].
type interner struct{ idx []map[[4]uint64]int16 }

func (c *candSets) add(in *interner, s int32, t int32, ports []uint8) error {
	if len(ports) == 0 {
		return nil
	}
	var key [4]uint64
	for _, p := range ports {
		key[p>>6] |= 1 << (p & 63)
	}
	m := in.idx[s]
	if m == nil {
		m = map[[4]uint64]int16{}
		in.idx[s] = m
	}
	id, ok := m[key]
	if !ok {
		if len(c.ports[s]) >= 1<<15-1 {
			return fmt.Errorf("switch has too many distinct least-hop port sets")
		}
		id = int16(len(c.ports[s]))
		m[key] = id
		c.ports[s] = append(c.ports[s], append([]uint8(nil), ports...))
	}
	c.set[s][t] = id
	return nil
}

// targets are the switches that carry at least one endpoint: only their hop tables matter.
func (n *rnet) targets() []int32 {
	has := make([]bool, len(n.dev))
	var out []int32
	for _, e := range n.eps {
		if !has[e.sw] {
			has[e.sw] = true
		}
	}
	for s := range has {
		if has[s] {
			out = append(out, int32(s))
		}
	}
	return out
}

// minhopSets computes the least-hop port sets of minhop: port p of s is a candidate towards t
// when the switch behind it is one hop nearer to t.
func minhopSets(n *rnet) (*candSets, error) {
	c := newCandSets(n)
	in := &interner{idx: make([]map[[4]uint64]int16, len(n.dev))}
	dist := make([]int32, len(n.dev))
	queue := make([]int32, 0, len(n.dev))
	var buf []uint8
	for _, t := range n.targets() {
		for i := range dist {
			dist[i] = -1
		}
		dist[t] = 0
		queue = append(queue[:0], t)
		for h := 0; h < len(queue); h++ {
			x := queue[h]
			for p := 1; p <= n.nports[x]; p++ {
				if y, ok := n.toSwitch(x, p); ok && dist[y] < 0 {
					dist[y] = dist[x] + 1
					queue = append(queue, y)
				}
			}
		}
		for _, s := range queue[1:] {
			buf = buf[:0]
			for p := 1; p <= n.nports[s]; p++ {
				if y, ok := n.toSwitch(s, p); ok && dist[y] == dist[s]-1 {
					buf = append(buf, uint8(p))
				}
			}
			if err := c.add(in, s, t, buf); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// updnSets computes updn's least-hop port sets from its up/down breadth-first searches. rank is
// each switch's distance from the nearest root (updn_subn_rank); unranked switches keep
// 0xffffffff as in OpenSM.
func updnSets(n *rnet, roots []int32) (*candSets, error) {
	if len(roots) == 0 {
		return nil, fmt.Errorf("updn has no root switches")
	}
	const unranked = 0xffffffff
	rank := make([]uint32, len(n.dev))
	for i := range rank {
		rank[i] = unranked
	}
	var queue []int32
	for _, s := range n.order { // roots are queued in switch map order
		for _, r := range roots {
			if r == s {
				rank[s] = 0
				queue = append(queue, s)
				break
			}
		}
	}
	for h := 0; h < len(queue); h++ {
		x := queue[h]
		for p := 1; p <= n.nports[x]; p++ {
			if y := n.peer[x][p].sw; y >= 0 && rank[y] > rank[x]+1 {
				rank[y] = rank[x] + 1
				queue = append(queue, y)
			}
		}
	}
	const up, down = 0, 1
	dirOf := func(cur, rem int32) int {
		cr, rr := rank[cur], rank[rem]
		switch {
		case cr == 0 && rr == 0:
			return up
		case cr < rr:
			return down
		case cr > rr:
			return up
		case n.guid[cur] > n.guid[rem]:
			return up
		}
		return down
	}

	c := newCandSets(n)
	in := &interner{idx: make([]map[[4]uint64]int16, len(n.dev))}
	// hop[s][p] for the current target; least[s] = hops[lid][0].
	hop := make([][]uint8, len(n.dev))
	for s := range hop {
		hop[s] = make([]uint8, n.nports[s]+1)
	}
	least := make([]uint8, len(n.dev))
	dir := make([]int, len(n.dev))
	visited := make([]bool, len(n.dev))
	var buf []uint8
	for _, t := range n.targets() {
		for s := range hop {
			for p := range hop[s] {
				hop[s][p] = noPort
			}
			least[s] = noPort
			visited[s] = false
		}
		hop[t][0], least[t] = 0, 0
		dir[t] = up
		queue = append(queue[:0], t)
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			visited[u] = false
			cur := dir[u]
			for pn := 1; pn <= n.nports[u]; pn++ {
				pr := n.peer[u][pn]
				r := pr.sw
				if r < 0 {
					continue
				}
				next := dirOf(u, r)
				if cur == down && next == up {
					continue
				}
				m := least[u]
				if m == noPort {
					continue // never queued without a hop count; kept for safety
				}
				if m+1 < hop[r][pr.rport] {
					hop[r][pr.rport] = m + 1
					if least[r] > m+1 {
						least[r] = m + 1
					}
					if !visited[r] {
						dir[r] = next
						visited[r] = true
						queue = append(queue, r)
					}
				}
			}
		}
		for s := range n.dev {
			if int32(s) == t || least[s] == noPort {
				continue
			}
			buf = buf[:0]
			for p := 1; p <= n.nports[s]; p++ {
				if _, ok := n.toSwitch(int32(s), p); ok && hop[s][p] == least[s] {
					buf = append(buf, uint8(p))
				}
			}
			if err := c.add(in, int32(s), t, buf); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

// portOrder is the order in which ucast_mgr_build_lfts routes the end ports.
func portOrder(n *rnet) []int32 {
	sw := append([]int32(nil), n.order...)
	endports := make([]int, len(n.dev))
	for s := range n.dev {
		for p := 1; p <= n.nports[s]; p++ {
			if n.peer[s][p].ep >= 0 {
				endports[s]++
			}
		}
	}
	sortInt32(sw, func(a, b int32) bool { return endports[a] > endports[b] })
	out := make([]int32, 0, len(n.eps))
	for _, s := range sw {
		for p := 1; p <= n.nports[s]; p++ {
			if e := n.peer[s][p].ep; e >= 0 {
				out = append(out, e)
			}
		}
	}
	return out
}

// buildLFTs runs ucast_mgr_build_lfts over the candidate sets: the port of every switch
// towards every endpoint.
func buildLFTs(n *rnet, c *candSets) lftTable {
	order := portOrder(n)
	out := newLFTTable(len(n.dev), len(n.eps))
	var count []uint32
	var curMin []uint32
	var pos []int
	for s := range n.dev {
		count = resetU32(count, n.nports[s]+1)
		sets := c.ports[s]
		curMin = resetU32(curMin, len(sets))
		if cap(pos) < len(sets) {
			pos = make([]int, len(sets))
		}
		pos = pos[:len(sets)]
		for i := range pos {
			pos[i] = 0
		}
		for _, e := range order {
			ep := &n.eps[e]
			if ep.sw == int32(s) {
				out.set(int32(s), e, uint8(ep.swPort))
				continue
			}
			id := c.set[s][ep.sw]
			if id < 0 {
				continue
			}
			// The least-loaded port, lowest number on a tie. Counts only grow, so the ports
			// before pos[id] are all above curMin[id]: the scan resumes where it stopped and
			// restarts with a fresh minimum when it runs off the end.
			set := sets[id]
			for {
				if pos[id] == len(set) {
					m := count[set[0]]
					for _, p := range set[1:] {
						if count[p] < m {
							m = count[p]
						}
					}
					curMin[id], pos[id] = m, 0
				}
				p := set[pos[id]]
				if count[p] == curMin[id] {
					out.set(int32(s), e, p)
					count[p]++
					break
				}
				pos[id]++
			}
		}
	}
	return out
}

func resetU32(a []uint32, n int) []uint32 {
	if cap(a) < n {
		return make([]uint32, n)
	}
	a = a[:n]
	for i := range a {
		a[i] = 0
	}
	return a
}
