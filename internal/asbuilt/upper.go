package asbuilt

import (
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// upperClasses groups the design switches of level lv that serve the same lower devices with
// the same number of links each (the spines of one pod, the cores of one plane): any of a class
// keeps the same links for a given mapping of the level below. It returns each design device's
// class (-1 elsewhere) and the members of each class.
func (m *matcher) upperClasses(lv int8) ([]int32, [][]int32) {
	de := m.de
	cls := minusOnes(len(de.level))
	var members [][]int32
	ids := map[string]int32{}
	var sb strings.Builder
	for _, s := range de.atLevel(lv) {
		sb.Reset()
		for _, x := range de.nbrs[s] {
			if de.level[x.d] == lv-1 {
				sb.WriteString(itoa32(x.d))
				sb.WriteByte('x')
				sb.WriteString(itoa32(x.n))
				sb.WriteByte(',')
			}
		}
		id, ok := ids[sb.String()]
		if !ok {
			id = int32(len(members))
			ids[sb.String()] = id
			members = append(members, nil)
		}
		cls[s] = id
		members[id] = append(members[id], s)
	}
	return cls, members
}

// mapUpper assigns the floor switches of level lv to classes of design switches (transport) by
// the links they keep to the level below, as it is mapped: a floor switch s with n links to a
// floor device mapped to L keeps min(n, D) of them in a class whose members have D links to L.
// Then the cables that reach the class at all, then a namesake in the class, break ties. The
// exact member of the class is chosen after (planes, propagate, exactByOrder).
func (m *matcher) mapUpper(lv int8) {
	de, fl := m.de, m.fl
	dcls, members := m.upperClasses(lv)
	if lv == 2 {
		m.spineClass = dcls
	}
	type clsN struct {
		c int32
		n int32
	}
	lowerTo := map[int32][]clsN{}
	for c, ms := range members {
		for _, x := range de.nbrs[ms[0]] {
			if de.level[x.d] == lv-1 {
				lowerTo[x.d] = append(lowerTo[x.d], clsN{int32(c), x.n})
			}
		}
	}
	byName := map[string]int32{}
	for c, ms := range members {
		for _, d := range ms {
			byName[de.name(d)] = int32(c)
		}
	}
	items := fl.atLevel(lv)
	cands := make([][]cand, len(items))
	kept, aff := map[int32]int64{}, map[int32]int64{}
	for i, s := range items {
		clear(kept)
		clear(aff)
		for _, x := range fl.nbrs[s] {
			L := m.fwd[x.d]
			if fl.level[x.d] != lv-1 || L < 0 {
				continue
			}
			for _, cn := range lowerTo[L] {
				kept[cn.c] += int64(min(x.n, cn.n))
				aff[cn.c] += int64(x.n)
			}
		}
		bonus, hasBonus := byName[fl.name(s)]
		for c, a := range aff {
			w := kept[c]*scaleKept + a*scaleAff
			if hasBonus && c == bonus {
				w++
			}
			cands[i] = append(cands[i], cand{class: c, w: w})
		}
		sort.Slice(cands[i], func(a, b int) bool { return cands[i][a].class < cands[i][b].class })
	}
	caps := make([]int32, len(members))
	for c := range caps {
		caps[c] = int32(len(members[c]))
	}
	got := transport(cands, caps)
	if m.upper == nil {
		m.upper = map[int8]*levelClasses{}
	}
	lc := &levelClasses{design: dcls, members: members, floor: minusOnes(len(fl.level))}
	for i, s := range items {
		lc.floor[s] = got[i]
	}
	m.upper[lv] = lc
}

// levelClasses is the class assignment of one level: each floor switch's class (-1: none),
// each design switch's, and the members of each class.
type levelClasses struct {
	floor, design []int32
	members       [][]int32
}

// exactByOrder places the floor switches of level lv that have a class but no design switch
// yet: a namesake in the class first, then the rest in natural name order onto the free members
// in design order.
func (m *matcher) exactByOrder(lv int8) {
	lc := m.upper[lv]
	if lc == nil {
		return
	}
	by := make([][]int32, len(lc.members))
	for _, s := range m.fl.atLevel(lv) {
		if c := lc.floor[s]; c >= 0 && m.fwd[s] < 0 {
			by[c] = append(by[c], s)
		}
	}
	for c, fs := range by {
		sort.SliceStable(fs, func(a, b int) bool { return naturalLess(m.fl.name(fs[a]), m.fl.name(fs[b])) })
		names := map[string]int32{}
		for _, d := range lc.members[c] {
			names[m.de.name(d)] = d
		}
		var rest []int32
		for _, s := range fs {
			if d, ok := names[m.fl.name(s)]; ok && m.rev[d] < 0 {
				m.pair(s, d)
				continue
			}
			rest = append(rest, s)
		}
		i := 0
		for _, d := range lc.members[c] {
			if i == len(rest) {
				break
			}
			if m.rev[d] < 0 {
				m.pair(rest[i], d)
				i++
			}
		}
	}
}

// planes places the spines of a 3-tier design within their classes so that their cores can be
// kept. A plane is a component of spines and cores (the spines at one position of every pod and
// the cores they share: Al-Fares' core group); floor planes with cores are assigned to design
// planes (transport) by the core links of the spines whose class the design plane holds, and
// each spine then takes its class's member in that plane. Spines of a floor without cores (a
// 2-tier floor grown into 3 tiers) keep their class and take any member (exactByOrder).
func (m *matcher) planes() {
	lc := m.upper[2]
	if lc == nil {
		return
	}
	planesOf := func(g *fgraph) ([]int32, int) {
		uf := fabric.NewUnionFind(len(g.level))
		for _, s := range g.atLevel(2) {
			for _, x := range g.nbrs[s] {
				if g.level[x.d] == 3 {
					uf.Union(s, x.d)
				}
			}
		}
		id := map[int32]int32{}
		out := minusOnes(len(g.level))
		for _, s := range g.atLevel(2) {
			r := uf.Find(s)
			p, ok := id[r]
			if !ok {
				p = int32(len(id))
				id[r] = p
			}
			out[s] = p
		}
		for _, c := range g.atLevel(3) {
			if p, ok := id[uf.Find(c)]; ok {
				out[c] = p
			}
		}
		return out, len(id)
	}
	dPlane, nd := planesOf(m.de)
	fPlane, nf := planesOf(m.fl)
	// Design plane -> class -> member.
	member := make([]map[int32]int32, nd)
	for i := range member {
		member[i] = map[int32]int32{}
	}
	for _, s := range m.de.atLevel(2) {
		if c := lc.design[s]; c >= 0 && dPlane[s] >= 0 {
			if _, dup := member[dPlane[s]][c]; !dup {
				member[dPlane[s]][c] = s
			}
		}
	}
	spinesOf := make([][]int32, nf)
	coreLinks := make([]int64, len(m.fl.level))
	hasCores := make([]bool, nf)
	for _, s := range m.fl.atLevel(2) {
		if fPlane[s] < 0 {
			continue
		}
		spinesOf[fPlane[s]] = append(spinesOf[fPlane[s]], s)
		for _, x := range m.fl.nbrs[s] {
			if m.fl.level[x.d] == 3 {
				coreLinks[s] += int64(x.n)
				hasCores[fPlane[s]] = true
			}
		}
	}
	var items []int32
	for p := 0; p < nf; p++ {
		if hasCores[p] {
			items = append(items, int32(p))
		}
	}
	cands := make([][]cand, len(items))
	for i, p := range items {
		for q := 0; q < nd; q++ {
			var w, bonus int64
			for _, s := range spinesOf[p] {
				c := lc.floor[s]
				if d, ok := member[q][c]; ok && c >= 0 {
					w += 1 + coreLinks[s]
					if m.fl.name(s) == m.de.name(d) {
						bonus++
					}
				}
			}
			if w > 0 {
				cands[i] = append(cands[i], cand{class: int32(q), w: w*scaleAff + bonus})
			}
		}
	}
	caps := make([]int32, nd)
	for i := range caps {
		caps[i] = 1
	}
	got := transport(cands, caps)
	for i, p := range items {
		q := got[i]
		if q < 0 {
			continue
		}
		for _, s := range spinesOf[p] {
			if c := lc.floor[s]; c >= 0 {
				if d, ok := member[q][c]; ok && m.rev[d] < 0 {
					m.pair(s, d)
				}
			}
		}
	}
	m.exactByOrder(2)
}
