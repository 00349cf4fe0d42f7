package asbuilt

import (
	"fmt"
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// TierUnreached names the tier of the links between switches that no node reaches through the
// fabric: no level counts them from the nodes.
const TierUnreached = "unreached"

// tierName names the tier of a link between levels a and b as topogen does. A switch no node
// reaches has no level (-1): its links are TierUnreached, not "level--1-1" (issue 32).
func tierName(a, b int8) string {
	p := levelPair(a, b)
	if p[0] < 0 {
		return TierUnreached
	}
	switch p {
	case [2]int8{0, 1}:
		return topogen.TierNodeLeaf
	case [2]int8{1, 2}:
		return topogen.TierLeafSpine
	case [2]int8{2, 3}:
		return topogen.TierSpineCore
	case [2]int8{2, 2}:
		return topogen.TierGlobal
	case [2]int8{1, 1}:
		return topogen.TierTorus
	}
	return fmt.Sprintf("level-%d-%d", p[0], p[1])
}

// report counts the changes, writes the deviations and the bound.
func (m *matcher) report(f *Fitted) {
	fl, de := m.fl, m.de
	r := &f.Report
	r.Tiers = map[string]TierCounts{}
	floor, fitted := f.floor, f.Spec

	// Tiers of floor cables (by the floor's levels) and of fitted cables (by the design's).
	floorTier := make([]string, len(floor.Cables))
	for i := range fl.g.Links {
		l := &fl.g.Links[i]
		floorTier[l.Cable] = tierName(fl.level[l.A], fl.level[l.B])
	}
	fittedTier := make([]string, len(fitted.Cables))
	for i := range de.g.Links {
		l := &de.g.Links[i]
		if l.Cable < len(fittedTier) {
			fittedTier[l.Cable] = tierName(de.level[l.A], de.level[l.B])
		}
	}
	var removes, moves, adds []string
	for _, c := range f.changes {
		switch c.act {
		case actKeep:
			t := r.Tiers[fittedTier[c.fitted]]
			t.Kept++
			r.Tiers[fittedTier[c.fitted]] = t
			r.LinksKept++
		case actMove:
			t := r.Tiers[fittedTier[c.fitted]]
			t.Moved++
			r.Tiers[fittedTier[c.fitted]] = t
			r.LinksMoved++
			fc, nc := &floor.Cables[c.floor], &fitted.Cables[c.fitted]
			stay, from := fc.A, fc.B
			if !c.stayA {
				stay, from = fc.B, fc.A
			}
			to := nc.A
			if to == stay {
				to = nc.B
			}
			moves = append(moves, fmt.Sprintf("move %s: %s -> %s", fc.Label(), from, to))
		case actAdd:
			t := r.Tiers[fittedTier[c.fitted]]
			t.Added++
			r.Tiers[fittedTier[c.fitted]] = t
			r.LinksAdded++
			adds = append(adds, "add "+fitted.Cables[c.fitted].Label())
		case actRemove:
			name := floorTier[c.floor]
			if name == "" {
				name = "unbuilt"
			}
			t := r.Tiers[name]
			t.Removed++
			r.Tiers[name] = t
			r.LinksRemoved++
			removes = append(removes, "remove "+floor.Cables[c.floor].Label())
		}
	}
	r.Deviations = append(append(removes, moves...), adds...)

	// Devices.
	for i := range fl.g.Devices {
		d := &fl.g.Devices[i]
		matched := m.fwd[i] >= 0
		if matched {
			r.DevicesMatched++
		}
		switch {
		case matched:
		case d.Kind == fabric.KindSwitch:
			r.DevicesUnmatched = append(r.DevicesUnmatched, d.Name)
		case m.nodeFwd[fl.node[i]] >= 0:
			r.DevicesUnmatched = append(r.DevicesUnmatched, d.Name)
		}
	}
	for n := range fl.nodes {
		if m.nodeFwd[n] >= 0 {
			r.DevicesMatched++
		} else {
			r.DevicesUnmatched = append(r.DevicesUnmatched, fl.nodes[n].name)
		}
	}
	sort.Slice(r.DevicesUnmatched, func(a, b int) bool { return naturalLess(r.DevicesUnmatched[a], r.DevicesUnmatched[b]) })

	// The bound, per tier of the design.
	for p, v := range m.keptMax() {
		name := tierName(p[0], p[1])
		t := r.Tiers[name]
		t.KeptMax = int(v)
		r.Tiers[name] = t
		r.LinksKeptMax += int(v)
	}
	for name, t := range r.Tiers {
		if t.Kept < t.KeptMax {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %d links kept where the bound allows %d; the bound is a relaxation and may not be reachable on this floor", name, t.Kept, t.KeptMax))
		}
	}
	sort.Strings(r.Notes)
	if m.railSensitive && len(m.sigma) > 0 {
		var pairs []string
		for _, x := range sortedNatural(keysOf(m.sigma)) {
			if x != m.sigma[x] {
				pairs = append(pairs, x+" as "+m.sigma[x])
			}
		}
		if len(pairs) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("rails: the floor's %s (new nodes take the floor's device names)", joinList(pairs)))
		}
	}
}

func joinList(s []string) string {
	out := ""
	for i, x := range s {
		switch {
		case i == 0:
		case i == len(s)-1:
			out += " and "
		default:
			out += ", "
		}
		out += x
	}
	return out
}
