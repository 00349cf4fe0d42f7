package asbuilt

import (
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// structure is how a fabric's leaves group: blocks (leaves that share nodes: a scalable unit of
// a rail-optimized fabric, one leaf of a fat tree whose nodes sit on one leaf) and pods (blocks
// and the level-2 switches that serve them: a 3-tier pod, a dragonfly+ group, the whole of a
// 2-tier tree).
type structure struct {
	blockOf []int32   // per device: its block (leaves only), -1
	blocks  [][]int32 // leaves of each block, in device order
	podOf   []int32   // per device: its pod (leaves and level-2 switches), -1
	pods    []podInfo
	// per leaf: HCA links that can be kept (all for the design; good ones for the floor) and
	// links to level 2
	nodeLinks, upLinks []int64
}

type podInfo struct {
	blocks  []int32
	leaves  int
	spines  int
	nodeCap int64 // node-leaf links (floor: the keepable ones)
	upCap   int64 // leaf-to-level-2 links
}

// structureOf finds blocks and pods. On a rail-optimized design (rail says which rail a leaf
// serves; nil otherwise) a block is the leaves one set of nodes reaches, one per rail: leaves
// are joined pair by pair, the pairs that share the most nodes (through cables that can be kept)
// first, and never so that a block would hold two leaves of one rail, so a node cabled across
// two scalable units by mistake cannot merge them, a rail swap (whose cables are not good) adds
// nothing, and a damaged unit still holds together. Elsewhere a block is one leaf: the nodes of
// a fat-tree, dragonfly+ or torus switch sit on it alone.
func structureOf(g *fgraph, good func(h, l int32) bool, rail func(l int32) string) *structure {
	n := len(g.level)
	s := &structure{blockOf: make([]int32, n), podOf: make([]int32, n), nodeLinks: make([]int64, n), upLinks: make([]int64, n)}
	leaves := g.atLevel(1)
	uf := fabric.NewUnionFind(n)
	if rail != nil {
		pairs := map[[2]int32]int32{}
		var mine []int32
		for ni := range g.nodes {
			mine = mine[:0]
			for _, h := range g.nodes[ni].hcas {
				for _, x := range g.nbrs[h] {
					if g.level[x.d] == 1 && good(h, x.d) {
						mine = append(mine, x.d)
					}
				}
			}
			sort.Slice(mine, func(a, b int) bool { return mine[a] < mine[b] })
			mine = dedup(mine)
			for a := range mine {
				for b := a + 1; b < len(mine); b++ {
					pairs[[2]int32{mine[a], mine[b]}]++
				}
			}
		}
		type pc struct {
			p [2]int32
			c int32
		}
		order := make([]pc, 0, len(pairs))
		for p, c := range pairs {
			order = append(order, pc{p, c})
		}
		sort.Slice(order, func(a, b int) bool {
			if order[a].c != order[b].c {
				return order[a].c > order[b].c
			}
			return order[a].p[0] < order[b].p[0] || order[a].p[0] == order[b].p[0] && order[a].p[1] < order[b].p[1]
		})
		rails := map[int32]map[string]bool{}
		for _, l := range leaves {
			rails[l] = map[string]bool{rail(l): true}
		}
		for _, x := range order {
			ra, rb := uf.Find(x.p[0]), uf.Find(x.p[1])
			if ra == rb {
				continue
			}
			clash := false
			for r := range rails[rb] {
				if rails[ra][r] {
					clash = true
					break
				}
			}
			if clash {
				continue
			}
			uf.Union(ra, rb)
			root := uf.Find(ra)
			merged := rails[ra]
			for r := range rails[rb] {
				merged[r] = true
			}
			delete(rails, ra)
			delete(rails, rb)
			rails[root] = merged
		}
	}
	for i := range s.blockOf {
		s.blockOf[i], s.podOf[i] = -1, -1
	}
	root := map[int32]int32{}
	for _, l := range leaves {
		r := uf.Find(l)
		b, ok := root[r]
		if !ok {
			b = int32(len(s.blocks))
			root[r] = b
			s.blocks = append(s.blocks, nil)
		}
		s.blockOf[l] = b
		s.blocks[b] = append(s.blocks[b], l)
		for _, x := range g.nbrs[l] {
			switch {
			case g.level[x.d] == 0 && good(x.d, l):
				s.nodeLinks[l] += int64(x.n)
			case g.level[x.d] == 2:
				s.upLinks[l] += int64(x.n)
			}
		}
	}
	// Pods: blocks joined by the level-2 switches their leaves share.
	pu := fabric.NewUnionFind(n)
	for _, bl := range s.blocks {
		for _, l := range bl[1:] {
			pu.Union(bl[0], l)
		}
	}
	for _, sp := range g.atLevel(2) {
		for _, x := range g.nbrs[sp] {
			if g.level[x.d] == 1 {
				pu.Union(sp, x.d)
			}
		}
	}
	proot := map[int32]int32{}
	for b, bl := range s.blocks {
		r := pu.Find(bl[0])
		p, ok := proot[r]
		if !ok {
			p = int32(len(s.pods))
			proot[r] = p
			s.pods = append(s.pods, podInfo{})
		}
		pi := &s.pods[p]
		pi.blocks = append(pi.blocks, int32(b))
		for _, l := range bl {
			s.podOf[l] = p
			pi.leaves++
			pi.nodeCap += s.nodeLinks[l]
			pi.upCap += s.upLinks[l]
		}
	}
	for _, sp := range g.atLevel(2) {
		if p, ok := proot[pu.Find(sp)]; ok {
			s.podOf[sp] = p
			s.pods[p].spines++
		}
	}
	return s
}

func dedup(xs []int32) []int32 {
	out := xs[:0]
	for i, x := range xs {
		if i == 0 || x != xs[i-1] {
			out = append(out, x)
		}
	}
	return out
}
