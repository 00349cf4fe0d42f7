package asbuilt

import (
	"sort"
	"strconv"
	"strings"
)

// matcher maps floor devices onto design devices (fwd: floor -> design, rev: design -> floor;
// -1 where there is none), tier by tier from the nodes up.
type matcher struct {
	fl, de *fgraph

	fwd, rev         []int32
	nodeFwd, nodeRev []int32

	railSensitive   bool
	plural          []string          // floor leaf: its most common HCA device name
	sigma, sigmaInv map[string]string // floor device name <-> design device name
	designDevs      []string          // design HCA device names, natural order

	fs, ds *structure
	// chunk of each floor pod block: floor pods larger than any design pod are cut into
	// chunks of whole blocks that fit one.
	chunks   [][]int32 // floor blocks of each chunk
	chunkPod []int32   // chunk -> design pod, -1

	spineClass []int32                // design level-2 switch -> its class (by leaf neighbours), -1
	upper      map[int8]*levelClasses // the classes of each level above the leaves
}

const (
	// Weights are lexicographic: links kept first, then the tie-breakers below them.
	scaleKept = int64(1) << 32
	scaleAff  = int64(1) << 8
)

func newMatcher(fl, de *fgraph) *matcher {
	m := &matcher{fl: fl, de: de}
	m.fwd = minusOnes(len(fl.level))
	m.rev = minusOnes(len(de.level))
	m.nodeFwd = minusOnes(len(fl.nodes))
	m.nodeRev = minusOnes(len(de.nodes))
	return m
}

// minusOnes is n times -1, "none" in the maps between floor and design.
func minusOnes(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = -1
	}
	return out
}

func (m *matcher) pair(f, d int32) {
	m.fwd[f], m.rev[d] = d, f
}

func (m *matcher) run() {
	m.rails()
	var dRail, fRail func(int32) string
	if m.railSensitive {
		dRail, fRail = m.designRail, m.railOf
	}
	m.ds = structureOf(m.de, func(int32, int32) bool { return true }, dRail)
	m.fs = structureOf(m.fl, m.goodHCA, fRail)
	m.mapPods()
	m.mapBlocks()
	if m.de.hasSameLevel(1) {
		m.propagate(1)
	}
	m.mapNodes()
	m.mapUpper(2)
	switch {
	case m.de.maxLvl >= 3:
		m.planes()
		for lv := int8(3); lv <= m.de.maxLvl; lv++ {
			m.mapUpper(lv)
			m.exactByOrder(lv)
		}
	case m.de.hasSameLevel(2):
		m.propagate(2)
	default:
		m.exactByOrder(2)
	}
}

// hasSameLevel says whether switches of level lv are cabled to each other (dragonfly+ global
// links at level 2, torus links at level 1).
func (f *fgraph) hasSameLevel(lv int8) bool {
	for _, s := range f.atLevel(lv) {
		for _, x := range f.nbrs[s] {
			if f.level[x.d] == lv {
				return true
			}
		}
	}
	return false
}

// nameBonus is 1 when a floor device has the design device's name: among equal choices the
// fit then keeps the names where the floor already has the design's.
func (m *matcher) nameBonus(f, d int32) int64 {
	if m.fl.name(f) == m.de.name(d) {
		return 1
	}
	return 0
}

// ---- pods and blocks ----

// mapPods cuts floor pods larger than the largest design pod into chunks of whole blocks and
// assigns chunks to design pods (transport), by the links each could keep at most: node-leaf
// links up to the design pod's, leaf uplinks up to the design pod's.
func (m *matcher) mapPods() {
	maxLeaves := 0
	for _, p := range m.ds.pods {
		maxLeaves = max(maxLeaves, p.leaves)
	}
	type chunkInfo struct {
		blocks []int32
		podInfo
	}
	var chunks []chunkInfo
	for _, p := range m.fs.pods {
		cur := chunkInfo{}
		for _, b := range p.blocks {
			n := len(m.fs.blocks[b])
			if cur.leaves > 0 && cur.leaves+n > maxLeaves {
				chunks = append(chunks, cur)
				cur = chunkInfo{}
			}
			cur.blocks = append(cur.blocks, b)
			for _, l := range m.fs.blocks[b] {
				cur.leaves++
				cur.nodeCap += m.fs.nodeLinks[l]
				cur.upCap += m.fs.upLinks[l]
			}
		}
		if len(cur.blocks) > 0 {
			chunks = append(chunks, cur)
		}
	}
	designNames := map[string]int32{}
	for q, p := range m.ds.pods {
		for _, b := range p.blocks {
			for _, l := range m.ds.blocks[b] {
				designNames[m.de.name(l)] = int32(q)
			}
		}
	}
	cands := make([][]cand, len(chunks))
	for c, ch := range chunks {
		bonus := map[int32]int64{}
		for _, b := range ch.blocks {
			for _, l := range m.fs.blocks[b] {
				if q, ok := designNames[m.fl.name(l)]; ok {
					bonus[q]++
				}
			}
		}
		for q, p := range m.ds.pods {
			w := min(ch.nodeCap, p.nodeCap) + min(ch.upCap, p.upCap)
			w = w*scaleAff + bonus[int32(q)] + 1 // +1: a pod of leaves that keep nothing still takes a free pod
			cands[c] = append(cands[c], cand{class: int32(q), w: w})
		}
	}
	caps := make([]int32, len(m.ds.pods))
	for i := range caps {
		caps[i] = 1
	}
	m.chunkPod = transport(cands, caps)
	m.chunks = make([][]int32, len(chunks))
	for i, ch := range chunks {
		m.chunks[i] = ch.blocks
	}
}

// blockWeight is what floor block b could keep in design block B: on a rail-optimized design,
// each floor leaf's good node links up to the capacity of B's leaf of its rail; otherwise the
// leaves paired by size. A floor leaf whose name B has adds a tie-breaker.
func (m *matcher) blockWeight(b, bd int32) int64 {
	fb, db := m.fs.blocks[b], m.ds.blocks[bd]
	var kept, bonus int64
	if m.railSensitive {
		byRail := map[string]int32{}
		for _, l := range db {
			byRail[m.designRail(l)] = l
		}
		for _, l := range fb {
			if L, ok := byRail[m.railOf(l)]; ok {
				kept += min(m.fs.nodeLinks[l], m.ds.nodeLinks[L])
			}
		}
	} else {
		a, c := m.sizes(fb, m.fs), m.sizes(db, m.ds)
		for i := 0; i < len(a) && i < len(c); i++ {
			kept += min(a[i], c[i])
		}
	}
	names := map[string]bool{}
	for _, l := range db {
		names[m.de.name(l)] = true
	}
	for _, l := range fb {
		if names[m.fl.name(l)] {
			bonus++
		}
	}
	return kept*scaleAff + bonus + 1
}

func (m *matcher) sizes(leaves []int32, s *structure) []int64 {
	out := make([]int64, len(leaves))
	for i, l := range leaves {
		out[i] = s.nodeLinks[l]
	}
	sort.Slice(out, func(a, b int) bool { return out[a] > out[b] })
	return out
}

// designRail is the device name a design leaf serves ("" for none or several).
func (m *matcher) designRail(l int32) string {
	name := ""
	for _, x := range m.de.nbrs[l] {
		if m.de.level[x.d] == 0 {
			if name != "" && name != m.de.devName[x.d] {
				return ""
			}
			name = m.de.devName[x.d]
		}
	}
	return name
}

// mapBlocks assigns, within each chunk's design pod, floor blocks to design blocks (transport),
// then places each block's leaves: by rail on a rail-optimized design, by size otherwise.
// Blocks left over (a chunk with more blocks than its pod, or a chunk with no pod) take free
// design blocks anywhere; leaves left over take free design leaves of their block's pod.
func (m *matcher) mapBlocks() {
	blockTaken := make([]bool, len(m.ds.blocks))
	var leftover []int32
	for c, q := range m.chunkPod {
		if q < 0 {
			leftover = append(leftover, m.chunks[c]...)
			continue
		}
		dbs := m.ds.pods[q].blocks
		got := m.assignBlocks(m.chunks[c], dbs, blockTaken)
		for i, b := range m.chunks[c] {
			if got[i] < 0 {
				leftover = append(leftover, b)
			}
		}
	}
	if len(leftover) > 0 {
		var free []int32
		for b := range m.ds.blocks {
			if !blockTaken[b] {
				free = append(free, int32(b))
			}
		}
		m.assignBlocks(leftover, free, blockTaken)
	}
	// Leaves still without a place: a free design leaf of the pod their block went to.
	for _, l := range m.fl.atLevel(1) {
		if m.fwd[l] >= 0 || m.fs.blockOf[l] < 0 {
			continue
		}
		q := int32(-1)
		for _, other := range m.fs.blocks[m.fs.blockOf[l]] {
			if d := m.fwd[other]; d >= 0 && q < 0 {
				q = m.ds.podOf[d]
			}
		}
		if q < 0 {
			continue
		}
		for _, b := range m.ds.pods[q].blocks {
			for _, L := range m.ds.blocks[b] {
				if m.rev[L] < 0 && m.fwd[l] < 0 {
					m.pair(l, L)
				}
			}
		}
	}
}

// assignBlocks assigns floor blocks fbs to free design blocks among dbs and places their
// leaves; it returns each floor block's design block, or -1.
func (m *matcher) assignBlocks(fbs, dbs []int32, taken []bool) []int32 {
	var free []int32
	for _, b := range dbs {
		if !taken[b] {
			free = append(free, b)
		}
	}
	cands := make([][]cand, len(fbs))
	for i, b := range fbs {
		for k, bd := range free {
			cands[i] = append(cands[i], cand{class: int32(k), w: m.blockWeight(b, bd)})
		}
	}
	caps := make([]int32, len(free))
	for i := range caps {
		caps[i] = 1
	}
	got := transport(cands, caps)
	out := make([]int32, len(fbs))
	for i, b := range fbs {
		out[i] = -1
		if got[i] < 0 {
			continue
		}
		bd := free[got[i]]
		taken[bd] = true
		out[i] = bd
		m.placeLeaves(b, bd)
	}
	return out
}

func (m *matcher) placeLeaves(b, bd int32) {
	fb, db := m.fs.blocks[b], m.ds.blocks[bd]
	if m.railSensitive {
		byRail := map[string]int32{}
		for _, L := range db {
			byRail[m.designRail(L)] = L
		}
		for _, l := range fb {
			if L, ok := byRail[m.railOf(l)]; ok && m.rev[L] < 0 {
				m.pair(l, L)
			}
		}
		for _, l := range fb { // leaves of no known rail: a free leaf of the block
			for _, L := range db {
				if m.fwd[l] < 0 && m.rev[L] < 0 {
					m.pair(l, L)
				}
			}
		}
		return
	}
	a := append([]int32(nil), fb...)
	c := append([]int32(nil), db...)
	sort.SliceStable(a, func(i, j int) bool { return m.fs.nodeLinks[a[i]] > m.fs.nodeLinks[a[j]] })
	sort.SliceStable(c, func(i, j int) bool { return m.ds.nodeLinks[c[i]] > m.ds.nodeLinks[c[j]] })
	for i := 0; i < len(a) && i < len(c); i++ {
		m.pair(a[i], c[i])
	}
}

// leafClasses groups design leaves that are alike for the torus propagation: same node
// capacity.
func (m *matcher) leafClasses() []int32 {
	cls := minusOnes(len(m.de.level))
	ids := map[int64]int32{}
	for _, l := range m.de.atLevel(1) {
		k := m.ds.nodeLinks[l]
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
		}
		cls[l] = id
	}
	return cls
}

// ---- nodes ----

// mapNodes assigns floor nodes to design node slots (transport). Design nodes are alike when
// their HCAs reach the same design leaves in the same order of device names (a class: the slots
// of one scalable unit, or of one fat-tree leaf); a floor node's weight for a class is the HCA
// cables it keeps there (an HCA of device name x on a floor leaf mapped to the class's leaf for
// sigma(x)), then the cables that at least reach one of the class's leaves. Within a class, a
// node of the same name takes its namesake, the others the free slots in the order of their
// ports on the floor.
func (m *matcher) mapNodes() {
	de, fl := m.de, m.fl
	devIdx := map[string]int{}
	names := map[string]bool{}
	for i := range de.devName {
		if de.level[i] == 0 && !de.isSwitch(int32(i)) {
			names[de.devName[i]] = true
		}
	}
	m.designDevs = sortedNatural(names)
	for k, n := range m.designDevs {
		devIdx[n] = k
	}
	// Classes by signature: the design leaf of each device name.
	type slotRef struct {
		class int32
		k     int32
	}
	classOf := make([]int32, len(de.nodes))
	var classMembers [][]int32
	sigs := map[string]int32{}
	leafSlots := map[int32][]slotRef{}
	var sb strings.Builder
	for n := range de.nodes {
		sig := make([]int32, len(m.designDevs))
		for k := range sig {
			sig[k] = -1
		}
		for _, h := range de.nodes[n].hcas {
			for _, x := range de.nbrs[h] {
				if de.level[x.d] == 1 {
					sig[devIdx[de.devName[h]]] = x.d
				}
			}
		}
		sb.Reset()
		for _, v := range sig {
			sb.WriteString(itoa32(v))
			sb.WriteByte(',')
		}
		c, ok := sigs[sb.String()]
		if !ok {
			c = int32(len(classMembers))
			sigs[sb.String()] = c
			classMembers = append(classMembers, nil)
			for k, L := range sig {
				if L >= 0 {
					leafSlots[L] = append(leafSlots[L], slotRef{c, int32(k)})
				}
			}
		}
		classOf[n] = c
		classMembers[c] = append(classMembers[c], int32(n))
	}
	designNodeByName := map[string]int32{}
	for n := range de.nodes {
		designNodeByName[de.nodes[n].name] = int32(n)
	}
	cands := make([][]cand, len(fl.nodes))
	kept := map[int32]int64{}
	aff := map[int32]int64{}
	for n := range fl.nodes {
		clear(kept)
		clear(aff)
		for _, h := range fl.nodes[n].hcas {
			k := int32(-1)
			if y, ok := m.sigma[fl.devName[h]]; ok {
				k = int32(devIdx[y])
			}
			for _, x := range fl.nbrs[h] {
				L := m.fwd[x.d]
				if fl.level[x.d] != 1 || L < 0 {
					continue
				}
				for _, s := range leafSlots[L] {
					aff[s.class] += int64(x.n)
					if s.k == k {
						kept[s.class] += int64(x.n)
					}
				}
			}
		}
		bonusClass := int32(-1)
		if dn, ok := designNodeByName[fl.nodes[n].name]; ok {
			bonusClass = classOf[dn]
		}
		for c, a := range aff {
			w := kept[c]*scaleKept + a*scaleAff
			if c == bonusClass {
				w++
			}
			cands[n] = append(cands[n], cand{class: c, w: w})
		}
		sort.Slice(cands[n], func(a, b int) bool { return cands[n][a].class < cands[n][b].class })
	}
	caps := make([]int32, len(classMembers))
	for c := range caps {
		caps[c] = int32(len(classMembers[c]))
	}
	got := transport(cands, caps)
	// A floor node that keeps nothing where it could go (its leaves are not the design's, or
	// their classes are full) still takes a free slot if there is one: it keeps no cable, but
	// its HCAs keep their cables' ends and only the leaf ends move (matcher.moves), where
	// leaving it out would remove them all and add new ones.
	free := make([]int32, len(classMembers))
	for c := range free {
		free[c] = caps[c]
	}
	for _, c := range got {
		if c >= 0 {
			free[c]--
		}
	}
	var loose []int32
	for n, c := range got {
		if c < 0 && m.cabled(int32(n)) {
			loose = append(loose, int32(n))
		}
	}
	sort.SliceStable(loose, func(a, b int) bool { return naturalLess(fl.nodes[loose[a]].name, fl.nodes[loose[b]].name) })
	for c := int32(0); int(c) < len(free) && len(loose) > 0; c++ {
		for ; free[c] > 0 && len(loose) > 0; free[c]-- {
			got[loose[0]] = c
			loose = loose[1:]
		}
	}
	// Within each class: namesakes first; then floor nodes whose names number them (dgx001)
	// in the slot their number gives (numberedSlots), so an absent node's slot is left for
	// it; then the rest in the floor's order (natural order of their names, then of their
	// first HCA's port on its leaf), onto the free slots in the design's order.
	byClass := make([][]int32, len(classMembers))
	for n, c := range got {
		if c >= 0 {
			byClass[c] = append(byClass[c], int32(n))
		}
	}
	for c, fns := range byClass {
		for _, n := range fns {
			if dn, ok := designNodeByName[fl.nodes[n].name]; ok && classOf[dn] == int32(c) && m.nodeRev[dn] < 0 {
				m.pairNode(n, dn)
			}
		}
	}
	for n, dn := range m.numberedSlots(byClass, classMembers) {
		if m.nodeFwd[n] < 0 && m.nodeRev[dn] < 0 {
			m.pairNode(n, dn)
		}
	}
	for c, fns := range byClass {
		sort.SliceStable(fns, func(a, b int) bool {
			na, nb := fl.nodes[fns[a]].name, fl.nodes[fns[b]].name
			if na != nb {
				return naturalLess(na, nb)
			}
			return m.firstPort(fns[a]) < m.firstPort(fns[b])
		})
		var rest []int32
		for _, n := range fns {
			if m.nodeFwd[n] < 0 {
				rest = append(rest, n)
			}
		}
		i := 0
		for _, dn := range classMembers[c] {
			if i == len(rest) {
				break
			}
			if m.nodeRev[dn] < 0 {
				m.pairNode(rest[i], dn)
				i++
			}
		}
	}
}

// numberedSlots places floor nodes by the numbers their names end in: in each class, the
// offset C for which the most of its floor nodes' numbers x have x - C among the class's design
// node indexes (ties: the offset that places the most nodes over all classes, then the
// smallest), and each such node in slot x - C. Names that end in no number, or a class where
// no offset places two nodes, are left to the floor's order.
func (m *matcher) numberedSlots(byClass [][]int32, members [][]int32) map[int32]int32 {
	num := func(n int32) (int, bool) {
		name := m.fl.nodes[n].name
		i := len(name)
		for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
			i--
		}
		if i == len(name) || len(name)-i > 9 {
			return 0, false
		}
		v, err := strconv.Atoi(name[i:])
		return v, err == nil
	}
	perClass := make([]map[int]int, len(byClass))
	total := map[int]int{}
	for c, fns := range byClass {
		perClass[c] = map[int]int{}
		for _, n := range fns {
			x, ok := num(n)
			if !ok {
				continue
			}
			for _, d := range members[c] {
				perClass[c][x-int(d)]++
				total[x-int(d)]++
			}
		}
	}
	// holes(off) counts, over all classes, the empty slots below the last node that offset
	// places: a floor is built in slot order (the generator's), so the offset that leaves the
	// fewest holes (an absent node's) reads its names right (dgx001 in the first slot, not
	// the second, when dgx032 of 32 is the one absent).
	holeMemo := map[int]int{}
	holes := func(off int) int {
		if h, ok := holeMemo[off]; ok {
			return h
		}
		h := 0
		for c, fns := range byClass {
			in := map[int]bool{}
			for _, d := range members[c] {
				in[int(d)] = true
			}
			placed, last := 0, -1
			for _, n := range fns {
				if x, ok := num(n); ok && in[x-off] {
					placed++
					last = max(last, x-off)
				}
			}
			for _, d := range members[c] {
				if int(d) <= last {
					h++
				}
			}
			h -= placed
		}
		holeMemo[off] = h
		return h
	}
	out := map[int32]int32{}
	for c, fns := range byClass {
		// A class where the best offset places fewer than half its nodes shows no numbering.
		most := 0
		for _, k := range perClass[c] {
			most = max(most, k)
		}
		if 2*most < len(fns) {
			continue
		}
		best, bestN := 0, 1
		for off, k := range perClass[c] {
			if k < most {
				continue
			}
			better := k > bestN
			if k == bestN && k > 1 {
				switch {
				case total[off] != total[best]:
					better = total[off] > total[best]
				case holes(off) != holes(best):
					better = holes(off) < holes(best)
				default:
					better = off < best
				}
			}
			if better {
				best, bestN = off, k
			}
		}
		if bestN < 2 {
			continue
		}
		slot := map[int]int32{}
		for _, d := range members[c] {
			slot[int(d)] = d
		}
		for _, n := range fns {
			if x, ok := num(n); ok {
				if d, ok := slot[x-best]; ok {
					out[n] = d
				}
			}
		}
	}
	return out
}

// cabled says whether a floor node has a cable on any of its HCAs.
func (m *matcher) cabled(n int32) bool {
	for _, h := range m.fl.nodes[n].hcas {
		if len(m.fl.g.LinksOf(h)) > 0 {
			return true
		}
	}
	return false
}

// firstPort is the floor port of a node's first HCA cable on a leaf (its slot, as the floor
// numbers slots), for the order of nodes within a class.
func (m *matcher) firstPort(n int32) int {
	g := m.fl.g
	for _, h := range m.fl.nodes[n].hcas {
		if links := g.LinksOf(h); len(links) > 0 {
			l := &g.Links[links[0]]
			if l.A == h {
				return l.PortB
			}
			return l.PortA
		}
	}
	return 1 << 30
}

// pairNode maps a floor node onto a design node and its HCAs by device name (sigma).
func (m *matcher) pairNode(n, dn int32) {
	m.nodeFwd[n], m.nodeRev[dn] = dn, n
	byDev := map[string]int32{}
	for _, h := range m.de.nodes[dn].hcas {
		byDev[m.de.devName[h]] = h
	}
	for _, h := range m.fl.nodes[n].hcas {
		if y, ok := m.sigma[m.fl.devName[h]]; ok {
			if dh, ok := byDev[y]; ok && m.rev[dh] < 0 {
				m.pair(h, dh)
			}
		}
	}
}

func itoa32(v int32) string {
	if v < 0 {
		return "-"
	}
	var b [12]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(b[i:])
}
