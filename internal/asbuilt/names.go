package asbuilt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The floor's naming, continued for new devices (DESIGN.md, "The as-built fabric": new devices
// continue the floor's names where the floor shows a pattern, else the generator's).
//
// A name is read as tokens: runs of digits, runs of letters, runs of anything else
// ("ql-07-a" is ql, -, 07, -, a). The floor devices of one kind that the fit matched (the nodes,
// the switches of one level) show a pattern when their names have the same shape (as many
// tokens, the same literals) and every token that differs among them (always a digit run, which
// may count; or a single letter, a rail or SU letter) is c + one coordinate of the design
// device each took: its index among its kind in the design's order, its block (scalable unit)
// and its place in the block (rail). Digit runs keep the floor's zero-padded width. So the
// trial floor's ql-07-a .. ql-08-h (row 7 + SU, letter a + rail) goes on with ql-09-a, its
// qs-01 .. qs-08 with qs-09, its dgx001 .. dgx040 with dgx041, and its one absent node, in
// slot 32 of SU 1, comes back as dgx032. A kind with no pattern keeps the generator's names.

type nameTok struct {
	s      string
	digits bool
	letter bool // a single letter
}

func tokenize(s string) []nameTok {
	var out []nameTok
	class := func(c byte) int {
		switch {
		case c >= '0' && c <= '9':
			return 0
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			return 1
		}
		return 2
	}
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && class(s[j]) == class(s[i]) {
			j++
		}
		t := nameTok{s: s[i:j], digits: class(s[i]) == 0}
		t.letter = class(s[i]) == 1 && j-i == 1
		out = append(out, t)
		i = j
	}
	return out
}

// nameSample is a floor name and the coordinates of the design device it took.
type nameSample struct {
	name   string
	coords []int
}

// nameRule writes names of the floor's pattern from design coordinates.
type nameRule struct {
	toks []nameTok
	vars map[int]nameVar // token position -> how it counts
}

type nameVar struct {
	coord, c, width int
	letter, upper   bool
}

func tokValue(t nameTok) (int, bool, bool) {
	if t.digits {
		v, err := strconv.Atoi(t.s)
		return v, false, err == nil
	}
	if t.letter {
		c := t.s[0]
		if c >= 'A' && c <= 'Z' {
			return int(c - 'A'), true, true
		}
		return int(c - 'a'), false, true
	}
	return 0, false, false
}

// learnNames finds the pattern of the samples, or false when they show none.
func learnNames(samples []nameSample) (*nameRule, bool) {
	if len(samples) == 0 {
		return nil, false
	}
	toks := make([][]nameTok, len(samples))
	for i, s := range samples {
		toks[i] = tokenize(s.name)
		if len(toks[i]) != len(toks[0]) {
			return nil, false
		}
	}
	r := &nameRule{toks: toks[0], vars: map[int]nameVar{}}
	for p := range toks[0] {
		same := true
		for i := range toks {
			t := toks[i][p]
			if t.digits != toks[0][p].digits || t.letter != toks[0][p].letter {
				return nil, false
			}
			if t.s != toks[0][p].s {
				same = false
			}
		}
		if same && !toks[0][p].digits {
			continue // a literal
		}
		if !toks[0][p].digits && !toks[0][p].letter {
			return nil, false
		}
		v0, upper, _ := tokValue(toks[0][p])
		found := false
		for k := range samples[0].coords {
			c := v0 - samples[0].coords[k]
			ok := true
			for i := range samples {
				v, up, valid := tokValue(toks[i][p])
				if !valid || up != upper || k >= len(samples[i].coords) || v != c+samples[i].coords[k] {
					ok = false
					break
				}
			}
			if ok {
				nv := nameVar{coord: k, c: c, letter: toks[0][p].letter, upper: upper}
				if toks[0][p].digits {
					nv.width = len(toks[0][p].s)
					for i := range toks {
						if len(toks[i][p].s) != nv.width {
							nv.width = 0 // not zero-padded
						}
					}
				}
				r.vars[p] = nv
				found = true
				break
			}
		}
		if !found {
			if same {
				continue // one sample or a constant number: a literal
			}
			return nil, false
		}
	}
	if len(r.vars) == 0 {
		return nil, false // every name alike: no count to go on with
	}
	return r, true
}

// name writes the name of a device at coords, or false where the pattern cannot (a letter
// past z, a negative number).
func (r *nameRule) name(coords []int) (string, bool) {
	var b strings.Builder
	for p, t := range r.toks {
		v, ok := r.vars[p]
		if !ok {
			b.WriteString(t.s)
			continue
		}
		if v.coord >= len(coords) {
			return "", false
		}
		x := v.c + coords[v.coord]
		switch {
		case x < 0:
			return "", false
		case v.letter:
			if x > 25 {
				return "", false
			}
			base := byte('a')
			if v.upper {
				base = 'A'
			}
			b.WriteByte(base + byte(x))
		default:
			fmt.Fprintf(&b, "%0*d", v.width, x)
		}
	}
	return b.String(), true
}

// floorNames names the new design devices after the floor's patterns: for each design switch
// level and for the nodes, the rule learnt from the matched floor devices of that kind, applied
// to the new ones. It returns design device -> name for switches and design node -> name for
// nodes, only where a rule gave one.
//
// A prefix the user set (one other than the generator's default) is the user's choice: that
// kind keeps the generator's names under it.
func (m *matcher) floorNames(p topogen.Params) (switches map[int32]string, nodes map[int32]string) {
	de := m.de
	switches, nodes = map[int32]string{}, map[int32]string{}
	chosen := func(v, def string) bool { return v != "" && v != def }
	userLevel := map[int8]bool{
		1: chosen(p.LeafPrefix, "leaf") || p.Kind == topogen.KindTorus3D && chosen(p.TorusPrefix, "sw"),
		2: chosen(p.SpinePrefix, "spine"),
		3: chosen(p.CorePrefix, "core"),
	}
	// Switch coordinates: index within the level, block, place in the block.
	coords := map[int32][]int{}
	byLevel := map[int8][]int32{}
	for d := range de.level {
		D := int32(d)
		if !de.isSwitch(D) {
			continue
		}
		byLevel[de.level[D]] = append(byLevel[de.level[D]], D)
	}
	for _, ds := range byLevel {
		for i, D := range ds {
			c := []int{i}
			if m.ds != nil && int(D) < len(m.ds.blockOf) && m.ds.blockOf[D] >= 0 {
				b := m.ds.blockOf[D]
				pos := 0
				for k, x := range m.ds.blocks[b] {
					if x == D {
						pos = k
					}
				}
				c = append(c, int(b), pos)
			}
			coords[D] = c
		}
	}
	for lv, ds := range byLevel {
		if userLevel[lv] {
			continue
		}
		var samples []nameSample
		for _, D := range ds {
			if f := m.rev[D]; f >= 0 {
				samples = append(samples, nameSample{m.fl.name(f), coords[D]})
			}
		}
		rule, ok := learnNames(samples)
		if !ok {
			continue
		}
		for _, D := range ds {
			if m.rev[D] < 0 {
				if s, ok := rule.name(coords[D]); ok {
					switches[D] = s
				}
			}
		}
	}
	// Node coordinates: index, block of its first HCA's leaf, place among the block's nodes.
	ncoords := make([][]int, len(de.nodes))
	perBlock := map[int32]int{}
	for n := range de.nodes {
		blk := int32(-1)
		for _, h := range de.nodes[n].hcas {
			for _, x := range de.nbrs[h] {
				if de.level[x.d] == 1 && m.ds != nil && blk < 0 {
					blk = m.ds.blockOf[x.d]
				}
			}
		}
		ncoords[n] = []int{n}
		if blk >= 0 {
			ncoords[n] = append(ncoords[n], int(blk), perBlock[blk])
			perBlock[blk]++
		}
	}
	var samples []nameSample
	for n := range de.nodes {
		if f := m.nodeRev[n]; f >= 0 {
			samples = append(samples, nameSample{m.fl.nodes[f].name, ncoords[n]})
		}
	}
	if rule, ok := learnNames(samples); ok && !chosen(p.NodePrefix, "gpu") {
		for n := range de.nodes {
			if m.nodeRev[n] < 0 {
				if s, ok := rule.name(ncoords[n]); ok {
					nodes[int32(n)] = s
				}
			}
		}
	}
	return switches, nodes
}

// builtNodes: see Fitted.BuiltNodes.
func (m *matcher) builtNodes() int {
	de := m.de
	blockOf := func(n int) int32 {
		for _, h := range de.nodes[n].hcas {
			for _, x := range de.nbrs[h] {
				if de.level[x.d] == 1 && m.ds != nil {
					return m.ds.blockOf[x.d]
				}
			}
		}
		return -1
	}
	last := -1
	for n := range de.nodes {
		if m.nodeRev[n] >= 0 {
			last = n
		}
	}
	if last < 0 || len(de.nodes) == 0 {
		return 0
	}
	if b := blockOf(last); b < 0 || b != blockOf(len(de.nodes)-1) {
		return 0
	}
	return last + 1
}
