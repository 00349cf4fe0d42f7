package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// An expansion without a floor: the work order from prior_design (the design as it is cabled
// now) to the design. Both are generated, so a box is known by what the generator derives from
// its place, not by its name: a switch's GUID is switch_guid_base + tier<<20 + its number, an
// HCA's is hca_guid_base + its number (topogen's invariants), and neither changes as the design
// grows, where a name may (a prefix changed by the user). Ends are compared as physical ports:
// the same box, the same port.

// physicalRename maps the name of each prior device (switch, node, HCA) to the name the same box
// has in next, found by GUID (a node by its HCAs), where the names differ. A rename that would
// give two prior boxes one name, or take the name of a box that keeps it, is left out: then the
// names decide, as they would without it.
func physicalRename(prior, next *fabric.Graph) bom.Rename {
	if prior == nil || next == nil {
		return nil
	}
	byGUID := map[string]int32{}
	for i := range next.Devices {
		d := &next.Devices[i]
		if d.GUID != "" {
			byGUID[guidKey(d)] = int32(i)
		}
	}
	rn := bom.Rename{}
	nodeOf := map[string]string{}
	for i := range prior.Devices {
		d := &prior.Devices[i]
		if d.GUID == "" {
			continue
		}
		j, ok := byGUID[guidKey(d)]
		if !ok {
			continue
		}
		n := &next.Devices[j]
		if n.Name != d.Name {
			rn[d.Name] = n.Name
		}
		if d.Kind == fabric.KindHCA && d.Node != n.Node {
			if _, seen := nodeOf[d.Node]; !seen {
				nodeOf[d.Node] = n.Node
			}
		}
	}
	for from, to := range nodeOf {
		rn[from] = to
	}
	// Keep the map one to one, and off the names of prior boxes that keep theirs.
	target := map[string][]string{}
	for from, to := range rn {
		target[to] = append(target[to], from)
	}
	priorNodes := map[string]bool{}
	for _, n := range prior.Spec.Nodes {
		priorNodes[n.Name] = true
	}
	for to, froms := range target {
		_, kept := prior.Lookup(to)
		kept = kept || priorNodes[to]
		if _, renamed := rn[to]; len(froms) > 1 || (kept && !renamed) {
			for _, f := range froms {
				delete(rn, f)
			}
		}
	}
	if len(rn) == 0 {
		return nil
	}
	return rn
}

// guidKey is a device's GUID with its kind: a switch and an HCA could share a number.
func guidKey(d *fabric.Device) string {
	return fmt.Sprintf("%d|%s", d.Kind, strings.ToLower(d.GUID))
}

// expansionNotes are the warnings of a work order from prior_design: the boxes the design calls
// by other names (their cables stay where they are), and, per tier above the nodes, the cables
// re-planning the upper tiers moves or removes, with why.
func expansionNotes(prior, next *Fabric, rn bom.Rename, changes []bom.Change) Problems {
	var ps Problems
	if len(rn) > 0 {
		var switches, nodes int
		var eg []string
		for from, to := range rn {
			if i, ok := prior.Graph.Lookup(from); ok {
				if prior.Graph.Devices[i].Kind != fabric.KindSwitch {
					continue // an HCA is renamed with its node
				}
				switches++
			} else {
				nodes++
			}
			eg = append(eg, from+" -> "+to)
		}
		sort.Strings(eg)
		if len(eg) > 3 {
			eg = append(eg[:3:3], "...")
		}
		if switches+nodes > 0 {
			ps.add(Warning, Attr(AttrDesign), "The design renames boxes of prior_design",
				fmt.Sprintf("%d switch(es) and %d node(s) of prior_design have other names in design (%s): the same boxes (by GUID) on the same ports, so none of their cables moves for it, but every label and every name in the fabric's maps changes. %s",
					switches, nodes, strings.Join(eg, ", "), keepNames(prior.Design, next.Design)))
		}
	}
	moved, removed, kept := map[string]int{}, map[string]int{}, map[string]int{}
	for _, c := range changes {
		switch c.Action {
		case bom.ChangeMove:
			moved[rowTier(next.Graph, c.Row)]++
		case bom.ChangeRemove:
			removed[rowTier(prior.Graph, c.Row)]++
		}
	}
	total := map[string]int{}
	for i := range prior.Graph.Links {
		l := &prior.Graph.Links[i]
		total[linkTier(prior.Graph, l)]++
	}
	for t, n := range total {
		kept[t] = n - moved[t] - removed[t]
	}
	for _, t := range []string{topogen.TierLeafSpine, topogen.TierSpineCore} {
		if moved[t]+removed[t] == 0 {
			continue
		}
		ps.add(Warning, Attr(AttrPriorDesign), "Re-planning the upper tiers re-cables "+t+" links",
			fmt.Sprintf("Of prior_design's %d %s cables, the work order keeps %d, moves %d and removes %d. %s",
				total[t], t, kept[t], moved[t], removed[t], replanWhy(prior.Design, next.Design)))
	}
	return ps
}

// keepNames says which name_digits keep prior's names, where the widths differ (a plan past a
// power of ten), else that the prefixes differ.
func keepNames(prior, next *topogen.Design) string {
	if prior == nil || next == nil {
		return ""
	}
	var set []string
	for _, k := range []string{"node", "leaf", "spine", "core", "rack"} {
		if w, ok := prior.NameDigits[k]; ok && next.NameDigits[k] != w {
			set = append(set, fmt.Sprintf("%s = %d", k, w))
		}
	}
	if len(set) == 0 {
		return "The prefixes differ: set design's `prefixes` as prior_design's to keep the names."
	}
	return "A generated name's number is zero-padded to the planned count, and this plan widens it: set `name_digits = { " +
		strings.Join(set, ", ") + " }` in the design's gpucluster_topology to keep the names as they are."
}

// replanWhy says what changed in the upper tiers' plan between two generated designs.
func replanWhy(prior, next *topogen.Design) string {
	if prior == nil || next == nil {
		return "The upper tiers of design differ from prior_design's."
	}
	ps, ns := prior.Summary, next.Summary
	var what []string
	switch {
	case ps.PlannedScalableUnits != ns.PlannedScalableUnits && ns.PlannedScalableUnits > 0:
		what = append(what, fmt.Sprintf("planned_scalable_units goes from %d to %d", ps.PlannedScalableUnits, ns.PlannedScalableUnits))
	case ps.PlannedNodes != ns.PlannedNodes:
		what = append(what, fmt.Sprintf("the planned size goes from %d to %d nodes", ps.PlannedNodes, ns.PlannedNodes))
	}
	if prior.Tiers != next.Tiers {
		what = append(what, fmt.Sprintf("the tiers go from %d to %d", prior.Tiers, next.Tiers))
	}
	why := "The upper tiers are sized for the planned size"
	if len(what) > 0 {
		why += "; " + strings.Join(what, " and ")
	}
	return why + ", so the leaves' uplinks spread over the new upper switches: each uplink that goes to a new switch or port is a move of its upper end. Set the planned size to the final one from the first apply, and growing only adds."
}

// rowTier is the tier of a cabling row in g: its lower-tier end's level (an HCA 0, a leaf 1...).
func rowTier(g *fabric.Graph, r bom.CableRow) string {
	name := r.A.Device
	if r.A.HCA != "" {
		name = r.A.HCA
	}
	i, ok := g.Lookup(name)
	if !ok {
		return ""
	}
	return tierOfLevel(g.Devices[i].Level)
}

func linkTier(g *fabric.Graph, l *fabric.Link) string {
	return tierOfLevel(min(g.Devices[l.A].Level, g.Devices[l.B].Level))
}

func tierOfLevel(lv int) string {
	switch lv {
	case 0:
		return topogen.TierNodeLeaf
	case 1:
		return topogen.TierLeafSpine
	case 2:
		return topogen.TierSpineCore
	}
	return ""
}
