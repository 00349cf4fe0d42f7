package asbuilt

import (
	"sort"
	"strconv"
)

// rails fixes sigma, the floor's HCA device names as the design's: the k-th device name of the
// floor, in natural order ("mlx5_0" < "mlx5_3" < "mlx5_10"), is the design's k-th. On a
// rail-optimized design, where each leaf serves one device name (one rail), only the floor's
// rail names count (a name that is the most common on some leaf), so that a stray name (a
// storage HCA cabled in) cannot take a rail. An HCA keeps its device name within its node: a
// rail swap on the floor is a cable to move, not a relabel. All rails of a generated design are
// alike, so which floor rail becomes which design rail changes no count; natural order keeps
// the k-th compute HCA on rail k.
func (m *matcher) rails() {
	de, fl := m.de, m.fl
	designNames := map[string]bool{}
	m.railSensitive = true
	leaves := 0
	for _, l := range de.atLevel(1) {
		names := map[string]bool{}
		for _, x := range de.nbrs[l] {
			if de.level[x.d] == 0 {
				names[de.devName[x.d]] = true
			}
		}
		if len(names) > 1 {
			m.railSensitive = false
		}
		if len(names) > 0 {
			leaves++
		}
	}
	for i := range de.devName {
		if de.level[i] == 0 && !de.isSwitch(int32(i)) {
			designNames[de.devName[i]] = true
		}
	}
	if len(designNames) < 2 || leaves == 0 {
		m.railSensitive = false
	}
	dn := sortedNatural(designNames)

	// The floor's leaves: the most common device name on each (ties: the first in natural order).
	// A leaf whose most common names tie (a partly built unit of two nodes, one with its rails
	// swapped) takes, of the tied names, one that no leaf sharing a node with it has taken, so
	// that the unit's leaves stay on different rails.
	m.plural = make([]string, len(fl.level))
	count := map[string]int{}
	floorNames := map[string]bool{}
	var tied []int32
	tiedNames := map[int32][]string{}
	for _, l := range fl.atLevel(1) {
		c := map[string]int{}
		for _, x := range fl.nbrs[l] {
			if fl.level[x.d] == 0 {
				c[fl.devName[x.d]] += int(x.n)
			}
		}
		best := ""
		for _, name := range sortedNatural(keysOf(c)) {
			if best == "" || c[name] > c[best] {
				best = name
			}
		}
		m.plural[l] = best
		var ties []string
		for _, name := range sortedNatural(keysOf(c)) {
			if c[name] == c[best] {
				ties = append(ties, name)
			}
		}
		if len(ties) > 1 {
			tied = append(tied, l)
			tiedNames[l] = ties
		}
	}
	if len(tied) > 0 {
		decided := make([]bool, len(fl.level))
		for _, l := range fl.atLevel(1) {
			decided[l] = len(tiedNames[l]) == 0
		}
		for _, l := range tied {
			taken := map[string]bool{}
			for _, x := range fl.nbrs[l] {
				if fl.level[x.d] != 0 || fl.node[x.d] < 0 {
					continue
				}
				for _, h := range fl.nodes[fl.node[x.d]].hcas {
					for _, y := range fl.nbrs[h] {
						if fl.level[y.d] == 1 && y.d != l && decided[y.d] {
							taken[m.plural[y.d]] = true
						}
					}
				}
			}
			for _, name := range tiedNames[l] {
				if !taken[name] {
					m.plural[l] = name
					break
				}
			}
			decided[l] = true
		}
	}
	for _, l := range fl.atLevel(1) {
		if m.plural[l] != "" {
			count[m.plural[l]]++
		}
	}
	for i := range fl.devName {
		if fl.level[i] == 0 && !fl.isSwitch(int32(i)) && len(fl.nbrs[i]) > 0 {
			floorNames[fl.devName[i]] = true
		}
	}
	var first, rest []string
	for _, name := range sortedNatural(floorNames) {
		if !m.railSensitive || count[name] > 0 {
			first = append(first, name)
		} else {
			rest = append(rest, name)
		}
	}
	order := append(first, rest...)
	m.sigma, m.sigmaInv = map[string]string{}, map[string]string{}
	for k := 0; k < len(order) && k < len(dn); k++ {
		m.sigma[order[k]] = dn[k]
		m.sigmaInv[dn[k]] = order[k]
	}
}

// railOf is the design rail (device name) a floor leaf serves, "" when it serves none.
func (m *matcher) railOf(l int32) string { return m.sigma[m.plural[l]] }

// goodHCA says whether the cable of floor HCA h to floor leaf l can be kept on its leaf: on a
// rail-optimized design only an HCA of the leaf's rail can.
func (m *matcher) goodHCA(h, l int32) bool {
	if !m.railSensitive {
		return true
	}
	r := m.sigma[m.fl.devName[h]]
	return r != "" && r == m.railOf(l)
}

func keysOf[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// sortedNatural sorts names with their digit runs compared as numbers.
func sortedNatural(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Slice(out, func(a, b int) bool { return naturalLess(out[a], out[b]) })
	return out
}

func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, _ := strconv.ParseUint(a[:min(da, 18)], 10, 64)
			nb, _ := strconv.ParseUint(b[:min(db, 18)], 10, 64)
			if na != nb || da != db {
				if na != nb {
					return na < nb
				}
				return da < db
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
