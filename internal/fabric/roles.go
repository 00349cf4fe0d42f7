package fabric

// RuleRole is the rule of a declared switch role that the cabling contradicts.
const RuleRole = "role-cabling"

// checkRoles holds every declared switch role against what the cabling makes of the switch,
// because the analysis lets declared roles decide which links of a switch go up (issue 22: two
// leaves declared "core" turned their uplinks into downlinks, the 3:1 leaf tier vanished from
// analysis.oversubscription and the training-large gate passed). A role the cabling contradicts
// is an error on its `role` and is dropped, so that the switch gets the role the cabling gives
// it and every later reading (analysis, summary, policy) is the measured one.
//
// What the cabling decides (a Clos in the sense of Leiserson, "Fat-Trees", IEEE Trans. Computers
// 1985: endpoints hang from the leaves only, and each tier is cabled to the tiers next to it):
//   - A switch with an endpoint (an HCA link) is a leaf, whatever its label.
//   - A switch cabled to a leaf with endpoints is one tier above it: a spine, not a core.
//   - A switch declared "leaf" without endpoints is either a leaf whose nodes are not cabled yet
//     (it hangs below spines: it is cabled to no leaf with endpoints) or a router of a direct
//     network such as a torus (its links to the other routers are lateral). Cabled to leaves
//     with endpoints, it is believed to be a router only where the cabling shows a direct
//     network around it: a link to another such router, or links between the leaves it joins.
//     Otherwise it joins leaves that nothing else joins, which is what a spine does.
//   - Two switches of one declared role cabled together are lateral; between spines or cores
//     that is the global link of a dragonfly (switches of different groups). Between spines or
//     cores at different distances from the endpoints it turns a link up into no link at all.
//
// What the cabling cannot decide is which of two switches without endpoints is above the
// other where both hang above the populated part: a leaf whose nodes are not racked yet (which
// the generator builds for every planned scalable unit) and a core look alike. There the
// declared role stands. The leaf tier, where every endpoint's traffic starts, is always the
// measured one.
func (b *builder) checkRoles() {
	g := b.g
	ns := g.numSwitches
	if ns == 0 {
		return
	}
	endpoints := make([]int, ns) // HCA links per switch
	for d := 0; d < ns; d++ {
		for _, li := range g.LinksOf(int32(d)) {
			if g.Devices[g.Links[li].Other(int32(d))].Kind == KindHCA {
				endpoints[d]++
			}
		}
	}
	populated := func(d int32) bool { return int(d) < ns && endpoints[d] > 0 }
	// switchNeighbours lists the switches cabled to d, each once, in link order.
	switchNeighbours := func(d int32) []int32 {
		var out []int32
		seen := map[int32]bool{}
		for _, li := range g.LinksOf(d) {
			o := g.Links[li].Other(d)
			if o != d && g.Devices[o].Kind == KindSwitch && !seen[o] {
				seen[o] = true
				out = append(out, o)
			}
		}
		return out
	}
	drop := make([]bool, ns)
	for d := int32(0); int(d) < ns; d++ {
		dev := &g.Devices[d]
		if !dev.Declared {
			continue
		}
		nbrs := switchNeighbours(d)
		var leaves []string // neighbours with endpoints
		for _, o := range nbrs {
			if populated(o) {
				leaves = append(leaves, g.Devices[o].Name)
			}
		}
		switch {
		case endpoints[d] > 0 && dev.Role != RoleLeaf:
			b.add(RuleRole, Error, b.at(MapSwitches, dev.Spec, "role"),
				"switch %q is declared role = %q but %d HCA(s) are cabled to it: a switch with endpoints is a leaf whatever its label. Set role = \"leaf\" or leave it unset",
				dev.Name, dev.Role, endpoints[d])
			drop[d] = true
		case dev.Role == RoleCore && len(leaves) > 0:
			b.add(RuleRole, Error, b.at(MapSwitches, dev.Spec, "role"),
				"switch %q is declared role = \"core\" but is cabled to a leaf with endpoints (%s): a switch cabled to a leaf is a spine (a core is cabled to spines only). Set role = \"spine\" or leave it unset",
				dev.Name, quoteSome(leaves, 4))
			drop[d] = true
		case dev.Role == RoleLeaf && endpoints[d] == 0 && len(leaves) > 0 && !directNetwork(g, d, nbrs, populated):
			b.add(RuleRole, Error, b.at(MapSwitches, dev.Spec, "role"),
				"switch %q is declared role = \"leaf\" but has no endpoints and joins switches with endpoints that are not cabled to one another (%s): that is what a spine does, and as a leaf its links would count as lateral and hide their uplinks. Set role = \"spine\" or leave it unset (a leaf waiting for its nodes is cabled to spines, a torus router to other routers)",
				dev.Name, quoteSome(leaves, 4))
			drop[d] = true
		}
	}
	// Same-role links between spines or cores at different levels (dragonfly global links,
	// between groups, are lateral by design).
	for li := range g.Links {
		l := &g.Links[li]
		if int(l.A) >= ns || int(l.B) >= ns || l.A == l.B {
			continue
		}
		x, y := &g.Devices[l.A], &g.Devices[l.B]
		if !x.Declared || !y.Declared || drop[l.A] || drop[l.B] || x.Role != y.Role || x.Role == RoleLeaf || x.Level == y.Level || x.Level < 0 || y.Level < 0 {
			continue
		}
		if x.Group != "" && y.Group != "" && x.Group != y.Group {
			continue
		}
		hi, lo := l.B, l.A
		if x.Level > y.Level {
			hi, lo = l.A, l.B
		}
		h, w := &g.Devices[hi], &g.Devices[lo]
		fix := "set role = \"core\" or leave it unset"
		if h.Role == RoleCore {
			fix = "leave its role unset"
		}
		b.add(RuleRole, Error, b.at(MapSwitches, h.Spec, "role"),
			"switch %q is declared role = %q like %q, to which it is cabled, but sits further from the endpoints (%d links from the nearest HCA, %q %d): a link between two switches of one role is lateral and would hide %q's uplinks. On %q, %s; if this is a dragonfly global link, give the two switches their groups",
			h.Name, h.Role, w.Name, h.Level, w.Name, w.Level, w.Name, h.Name, fix)
		drop[hi] = true
	}
	for d := range drop {
		if drop[d] {
			g.Devices[d].Declared = false
			g.Devices[d].Role = ""
		}
	}
}

// directNetwork says whether the cabling around d, a declared leaf without endpoints cabled to
// leaves with endpoints, shows a direct network (a torus, a mesh): d is cabled to another
// declared leaf without endpoints, or every switch with endpoints that d joins is also cabled to
// another switch with endpoints.
func directNetwork(g *Graph, d int32, nbrs []int32, populated func(int32) bool) bool {
	for _, o := range nbrs {
		od := &g.Devices[o]
		if !populated(o) && od.Declared && od.Role == RoleLeaf {
			return true
		}
	}
	for _, o := range nbrs {
		if !populated(o) {
			continue
		}
		joined := false
		for _, li := range g.LinksOf(o) {
			if p := g.Links[li].Other(o); p != d && p != o && populated(p) {
				joined = true
				break
			}
		}
		if !joined {
			return false
		}
	}
	return true
}
