package analysis

import (
	"bytes"
	"fmt"
)

// The fat-tree engine of OpenSM 3.3 (opensm/osm_ucast_ftree.c in linux-rdma/opensm, tag 3.3.23;
// E. Zahavi, "Fat-tree routing and node ordering providing contention free traffic for MPI
// global collectives", J. Parallel Distrib. Comput. 72(11), 2012, describes the idea), reproduced
// step for step for the configuration the provider writes: root_guid_file names the top tier,
// cn_guid_file names every cabled HCA port, LMC 0, quasi_ftree_indexing and connect_roots off.
//
//   - Ranks are switch-hop distances from the roots (fabric_rank_from_roots); the leaf rank is
//     the rank of the switch of the first compute node, and every compute node's switch must
//     have it (fabric_mark_leaf_switches), or ftree fails and OpenSM falls back.
//   - Indexing: a breadth-first walk from the first leaf in node-GUID map order gives every
//     switch a tuple (fabric_make_indexing, bfs_fabric_indexing, fabric_get_new_tuple) and sorts
//     port groups (all links from one switch to one neighbour) by the neighbour's tuple.
//   - Leaves are routed in tuple order, each leaf's compute nodes in port order, with dummy
//     targets padding every leaf to the most compute nodes on any leaf (fabric_route_to_cns).
//     Each target goes up the least-loaded group (counter_down, bubble-sorted in place, the
//     order kept between targets) and its least-loaded port, and down from every switch it
//     reaches through the group with the least counter_up
//     (fabric_route_downgoing_by_going_up, fabric_route_upgoing_by_going_down).
//
// The counters and the group orders persist across targets, which is why the routes depend on
// the order in which the targets are routed and cannot be computed per pair.

type ftPort struct {
	num, remote          uint8
	counterUp, counterDn uint32
}

type ftGroup struct {
	remoteSw  int32 // -1 for an HCA port
	remoteEp  int32 // the endpoint, for an HCA port
	ports     []ftPort
	counterUp uint32
	counterDn uint32
}

type ftSwitch struct {
	rank             uint32
	tuple            [8]uint8
	isLeaf           bool
	down, up, sib    []*ftGroup
	counterUpChanged bool
	minCounterDown   uint32
	// caOnly: every down group leads to an HCA and there are no siblings, so routing down
	// from here only reports that a route exists (a leaf of a fat tree).
	caOnly bool
}

type ftree struct {
	n   *rnet
	sw  []ftSwitch
	lft []uint8 // the current target's forwarding entry per switch
	hop []uint8 // the current target's hop count per switch (ftree's own hops[])
	out lftTable
	// touched lists the switches whose lft/hop were set for the current target.
	touched []int32
	dummy   bool
}

const ftUnranked = 0xffffffff

// ftreeLFTs routes the fabric with ftree; an error says why OpenSM's ftree would refuse it
// (and fall back to the next engine).
func ftreeLFTs(n *rnet, roots []int32) (lftTable, error) {
	f := &ftree{n: n, sw: make([]ftSwitch, len(n.dev))}
	if len(n.dev) < 2 {
		return lftTable{}, fmt.Errorf("needs at least 2 switches")
	}
	if len(n.eps) < 2 {
		return lftTable{}, fmt.Errorf("needs at least 2 HCAs")
	}
	if len(roots) == 0 {
		return lftTable{}, notModelled{"ftree without root_guid_file ranks the switches from the HCAs, which is not modelled"}
	}
	for s := range f.sw {
		f.sw[s].rank = ftUnranked
		for i := range f.sw[s].tuple {
			f.sw[s].tuple[i] = 0xff
		}
	}
	// fabric_rank_from_roots: roots in file order, then breadth first.
	queue := make([]int32, 0, len(n.dev))
	for _, r := range roots {
		f.sw[r].rank = 0
		queue = append(queue, r)
	}
	maxRank := uint32(0)
	for h := 0; h < len(queue); h++ {
		x := queue[h]
		for p := 1; p <= n.nports[x]; p++ {
			y := n.peer[x][p].sw
			if y < 0 {
				continue
			}
			if f.sw[y].rank > f.sw[x].rank+1 {
				f.sw[y].rank = f.sw[x].rank + 1
				maxRank = f.sw[y].rank
				queue = append(queue, y)
			}
		}
	}
	if maxRank == 0 {
		return lftTable{}, fmt.Errorf("every switch is a root")
	}
	// fabric_populate_ports: groups per neighbour and direction, ports in port order. Unranked
	// switches were removed from the fabric (fabric_remove_unranked_sw).
	for s := range f.sw {
		fs := &f.sw[s]
		if fs.rank == ftUnranked {
			continue
		}
		for p := 1; p <= n.nports[s]; p++ {
			pr := n.peer[s][p]
			switch {
			case pr.ep >= 0:
				fs.down = append(fs.down, &ftGroup{remoteSw: -1, remoteEp: pr.ep, ports: []ftPort{{num: uint8(p), remote: uint8(n.eps[pr.ep].port)}}})
			case pr.sw >= 0 && pr.sw != int32(s):
				r := &f.sw[pr.sw]
				if r.rank == ftUnranked {
					continue
				}
				list := &fs.down
				switch {
				case fs.rank > r.rank:
					list = &fs.up
				case fs.rank == r.rank:
					list = &fs.sib
				}
				var g *ftGroup
				for _, x := range *list {
					if x.remoteSw == pr.sw {
						g = x
						break
					}
				}
				if g == nil {
					g = &ftGroup{remoteSw: pr.sw, remoteEp: -1}
					*list = append(*list, g)
				}
				g.ports = append(g.ports, ftPort{num: uint8(p), remote: uint8(pr.rport)})
			}
		}
	}
	// Leaf rank: the switch of the first compute node in the HCA map (node-GUID order); every
	// compute node must hang on a switch of that rank. All endpoints are compute nodes here.
	leafRank := f.sw[n.eps[0].sw].rank
	for _, e := range n.eps {
		if r := f.sw[e.sw].rank; r != leafRank {
			return lftTable{}, fmt.Errorf("HCAs hang on switches of rank %d and %d; every compute node must hang on the leaf rank", leafRank, r)
		}
		f.sw[e.sw].isLeaf = true
	}
	if leafRank+1 < 2 || leafRank+1 > 8 {
		return lftTable{}, fmt.Errorf("fat tree rank %d is outside 2-8", leafRank+1)
	}
	for s := range f.sw {
		fs := &f.sw[s]
		fs.caOnly = len(fs.down) > 0 && len(fs.sib) == 0
		for _, g := range fs.down {
			fs.caOnly = fs.caOnly && g.remoteSw < 0
		}
	}
	if err := f.index(leafRank); err != nil {
		return lftTable{}, err
	}
	// fabric_create_leaf_switch_array: switches of leaf rank sorted by tuple, from the first to
	// the last real leaf.
	var all []int32
	for _, s := range n.order {
		if f.sw[s].rank == leafRank {
			all = append(all, s)
		}
	}
	sortInt32(all, func(a, b int32) bool { return f.tupleLess(a, b) })
	first, last := len(all), 0
	for i, s := range all {
		if f.sw[s].isLeaf {
			if i < first {
				first = i
			}
			last = i
		}
	}
	if first >= last {
		return lftTable{}, fmt.Errorf("fewer than two leaf switches")
	}
	leaves := all[first : last+1]
	maxCN := 0
	for _, s := range leaves {
		c := 0
		for _, g := range f.sw[s].down {
			if g.remoteSw < 0 {
				c++
			}
		}
		if c > maxCN {
			maxCN = c
		}
	}

	f.lft = make([]uint8, len(n.dev))
	f.hop = make([]uint8, len(n.dev))
	for i := range f.lft {
		f.lft[i], f.hop[i] = noPort, noPort
	}
	f.out = newLFTTable(len(n.dev), len(n.eps))
	// fabric_route_to_cns
	for _, s := range leaves {
		routed := 0
		for _, g := range f.sw[s].down {
			if g.remoteSw >= 0 {
				continue
			}
			e := g.remoteEp
			f.dummy = false
			f.set(s, g.ports[0].num, 1)
			f.downByUp(s, -1, true, 1)
			for _, t := range f.touched {
				f.out.set(t, e, f.lft[t])
			}
			f.reset()
			routed++
		}
		for j := routed; j < maxCN; j++ {
			f.dummy = true
			f.hop[s] = 1
			f.touched = append(f.touched, s)
			f.downByUp(s, -1, true, 1)
			f.reset()
		}
	}
	return f.out, nil
}

func (f *ftree) set(s int32, port uint8, hops uint8) {
	if f.lft[s] == noPort && f.hop[s] == noPort {
		f.touched = append(f.touched, s)
	}
	f.lft[s] = port
	f.hop[s] = hops
}

func (f *ftree) reset() {
	for _, t := range f.touched {
		f.lft[t], f.hop[t] = noPort, noPort
	}
	f.touched = f.touched[:0]
}

func (f *ftree) tupleLess(a, b int32) bool {
	return bytes.Compare(f.sw[a].tuple[:], f.sw[b].tuple[:]) < 0
}

// tupleCmp compares the switches behind two groups; HCA groups compare equal (OpenSM would
// read an HCA as a switch here, which the fabrics it accepts never make it do).
func (f *ftree) tupleCmp(a, b *ftGroup) int {
	if a.remoteSw < 0 || b.remoteSw < 0 {
		return 0
	}
	return bytes.Compare(f.sw[a.remoteSw].tuple[:], f.sw[b.remoteSw].tuple[:])
}

// index is fabric_make_indexing without quasi_ftree_indexing: from the first leaf in switch
// map order only.
func (f *ftree) index(leafRank uint32) error {
	byTuple := map[[8]uint8]int32{}
	var start int32 = -1
	for _, s := range f.n.order {
		if f.sw[s].isLeaf {
			start = s
			break
		}
	}
	if start < 0 {
		return fmt.Errorf("no leaf switch")
	}
	fs := &f.sw[start]
	if leafRank >= 8 {
		return fmt.Errorf("leaf rank %d too deep", leafRank)
	}
	var t [8]uint8
	for i := range t {
		t[i] = 0xff
	}
	t[0] = uint8(fs.rank)
	for i := 1; i <= int(leafRank); i++ {
		t[i] = 0
	}
	fs.tuple = t
	byTuple[t] = start
	newTuple := func(from [8]uint8, down bool) ([8]uint8, error) {
		tmp := from
		var vi int
		if down {
			tmp[0]++
			vi = int(from[0]) + 1
		} else {
			tmp[0]--
			vi = int(from[0])
		}
		for i := 0; i < 0xff; i++ {
			tmp[vi] = uint8(i)
			if _, taken := byTuple[tmp]; !taken {
				return tmp, nil
			}
		}
		return tmp, fmt.Errorf("out of switch indexes")
	}
	queue := []int32{start}
	for h := 0; h < len(queue); h++ {
		s := queue[h]
		sw := &f.sw[s]
		if sw.rank < leafRank {
			for _, g := range sw.down {
				if g.remoteSw < 0 || f.sw[g.remoteSw].tuple[0] != 0xff {
					continue
				}
				nt, err := newTuple(sw.tuple, true)
				if err != nil {
					return err
				}
				f.sw[g.remoteSw].tuple = nt
				byTuple[nt] = g.remoteSw
				queue = append(queue, g.remoteSw)
			}
			f.sortGroups(sw.down)
		}
		if sw.rank != 0 {
			for _, g := range sw.up {
				if f.sw[g.remoteSw].tuple[0] != 0xff {
					continue
				}
				nt, err := newTuple(sw.tuple, false)
				if err != nil {
					return err
				}
				f.sw[g.remoteSw].tuple = nt
				byTuple[nt] = g.remoteSw
				queue = append(queue, g.remoteSw)
			}
			f.sortGroups(sw.up)
		}
	}
	return nil
}

func (f *ftree) sortGroups(gs []*ftGroup) {
	// qsort by remote tuple; tuples are unique, so stability does not matter.
	for i := 1; i < len(gs); i++ {
		for j := i; j > 0 && f.tupleCmp(gs[j], gs[j-1]) < 0; j-- {
			gs[j], gs[j-1] = gs[j-1], gs[j]
		}
	}
}

func (f *ftree) cmpUp(a, b *ftGroup) int {
	if d := int(int32(a.counterUp - b.counterUp)); d > 0 {
		return 1
	} else if d < 0 {
		return -1
	}
	return f.tupleCmp(a, b)
}

func (f *ftree) cmpDown(a, b *ftGroup) int {
	if d := int(int32(a.counterDn - b.counterDn)); d > 0 {
		return 1
	} else if d < 0 {
		return -1
	}
	if a.remoteSw >= 0 && b.remoteSw >= 0 {
		if d := int32(f.sw[a.remoteSw].minCounterDown - f.sw[b.remoteSw].minCounterDown); d > 0 {
			return 1
		}
	}
	return f.tupleCmp(a, b)
}

// bubble is OpenSM's bubble sort: passes until one makes no swap, each pass one shorter.
func bubble(gs []*ftGroup, cmp func(a, b *ftGroup) int) {
	swapped := true
	for i := 0; swapped; i++ {
		swapped = false
		for j := 1; j < len(gs)-i; j++ {
			if cmp(gs[j], gs[j-1]) < 0 {
				gs[j-1], gs[j] = gs[j], gs[j-1]
				swapped = true
			}
		}
	}
}

func minUpPort(g *ftGroup) *ftPort {
	m := &g.ports[0]
	for i := 1; i < len(g.ports); i++ {
		if g.ports[i].counterUp < m.counterUp {
			m = &g.ports[i]
		}
	}
	return m
}

func minDownPort(g *ftGroup) *ftPort {
	m := &g.ports[0]
	for i := 1; i < len(g.ports); i++ {
		if g.ports[i].counterDn < m.counterDn {
			m = &g.ports[i]
		}
	}
	return m
}

// upByDown is fabric_route_upgoing_by_going_down: from switch s, set the route towards the
// target on every lower switch that has none or a longer one, and recurse downwards.
func (f *ftree) upByDown(s, prev int32, hops uint8) bool {
	sw := &f.sw[s]
	if len(sw.down) == 0 {
		return false
	}
	if sw.caOnly && !sw.counterUpChanged {
		return true // the loop below would only find HCA groups
	}
	if sw.counterUpChanged {
		bubble(sw.down, f.cmpUp)
		sw.counterUpChanged = false
	}
	if len(sw.sib) > 0 {
		bubble(sw.sib, f.cmpUp)
	}
	created := false
	k := len(sw.down)
	if !f.dummy {
		k += len(sw.sib)
	}
	for i := 0; i < k; i++ {
		var g *ftGroup
		if i < len(sw.down) {
			g = sw.down[i]
		} else {
			g = sw.sib[i-len(sw.down)]
		}
		if g.remoteSw < 0 {
			created = true
			continue
		}
		if prev >= 0 && g.remoteSw == prev {
			continue
		}
		r := g.remoteSw
		if least := f.hop[r]; least != noPort && hops+1 >= least {
			continue // (OpenSM picks the port first; the choice has no side effect)
		}
		p := minUpPort(g)
		f.set(r, p.remote, hops+1)
		routed := f.upByDown(r, -1, hops+1)
		created = created || routed
		if routed {
			p.counterUp++
			g.counterUp++
			sw.counterUpChanged = true
		}
	}
	return created
}

func (f *ftree) recalcMinCounterDown(s int32) {
	m := uint32(1 << 30)
	for _, g := range f.sw[s].down {
		if g.counterDn < m {
			m = g.counterDn
		}
	}
	f.sw[s].minCounterDown = m
}

// downByUp is fabric_route_downgoing_by_going_up without reverse hops (only I/O nodes get
// them, and the provider declares none).
func (f *ftree) downByUp(s, prev int32, main bool, hops uint8) bool {
	created := f.upByDown(s, prev, hops)
	sw := &f.sw[s]
	if sw.rank == 0 || len(sw.up) == 0 {
		return created // (a ranked non-root always has a switch above it; kept for safety)
	}
	bubble(sw.up, f.cmpDown)
	minGroup := sw.up[0]
	minPort := minDownPort(minGroup)
	if main {
		r := minGroup.remoteSw
		minGroup.counterDn++
		minPort.counterDn++
		if minGroup.counterDn == f.sw[r].minCounterDown+1 {
			f.recalcMinCounterDown(r)
		}
		if f.lft[r] == noPort || hops+1 < f.hop[r] {
			f.set(r, minPort.remote, hops+1)
		}
		created = f.downByUp(r, s, main, hops+1) || created
	}
	first := 0
	if main {
		first = 1
	}
	for i := first; i < len(sw.up); i++ {
		g := sw.up[i]
		r := g.remoteSw
		if f.lft[r] != noPort && hops+1 >= f.hop[r] {
			continue
		}
		p := minDownPort(g)
		f.set(r, p.remote, hops+1)
		if f.downByUp(r, s, false, hops+1) {
			created = true
		}
	}
	if len(sw.sib) > 0 {
		bubble(sw.sib, f.cmpDown)
	}
	for i := 0; i < len(sw.sib); i++ {
		g := sw.sib[i]
		r := g.remoteSw
		if f.lft[r] != noPort && hops+1 >= f.hop[r] {
			continue
		}
		p := minDownPort(g)
		f.set(r, p.remote, hops+1)
		routed := f.downByUp(r, s, false, hops+1)
		created = created || routed
		if routed {
			// OpenSM counts this on the first up group and on the sibling's port.
			minGroup.counterDn++
			p.counterDn++
		}
	}
	return created
}
