package topogen

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// dragonflyPlusKind is Shpiner et al.'s Dragonfly+: leaf/spine groups joined all-to-all by
// global links between their spines.
var dragonflyPlusKind = &Kind{
	Name:     KindDragonflyPlus,
	Doc:      "Shpiner et al. 2017: leaf/spine groups joined all-to-all by global links",
	Args:     []*Arg{groupCountArg, plannedGroupsArg, leavesPerGroupArg, spinesPerGroupArg, groupOversubscriptionArg},
	Uses:     []string{"node_count", "oversubscription"},
	Defaults: func(p *Params) { p.GroupOversubscription = orFloat(p.GroupOversubscription, 1) },
	Generate: buildWith((*gen).dragonflyPlus),
	Largest: largestWith(func(g *gen) string {
		return fmt.Sprintf("group_count = %d", g.largestGroups())
	}),
	Normalize: func(d *Design, p *Params) {
		p.PlannedGroups = d.Summary.PlannedGroups
		p.LeavesPerGroup, p.SpinesPerGroup = d.groupShape()
		// The groups built: derived again from node_count and the pinned group shape when that
		// gives the same count, so a design given by node_count stays so.
		built := 0
		for _, g := range d.Groups {
			if g.Kind == GroupDragonfly {
				built++
			}
		}
		if slots := d.Summary.PlannedNodes / max(d.Summary.PlannedGroups, 1); p.Groups == 0 && groupsFor(p.Nodes, slots) != built {
			p.Groups = built
		}
	},
	SizeAttribute: func(p Params) string {
		if p.Groups != 0 || p.Nodes == 0 {
			return "group_count"
		}
		return "node_count"
	},
}

var (
	groupCountArg = intArg("group_count", "`dragonfly-plus`: groups to build now (at least 2 planned; default: from `node_count`, "+
		"at least 2). Named `group_count` because `groups` is the map of generated groups.", 1, "from node_count",
		func(p *Params) *int { return &p.Groups })
	plannedGroupsArg = intArg("planned_groups", "`dragonfly-plus`: the groups the global links are spread for (default `group_count`). "+
		"Adding groups up to it only adds cables.", 2, "group_count", func(p *Params) *int { return &p.PlannedGroups })
	leavesPerGroupArg = intArg("leaves_per_group", "`dragonfly-plus`: leaves per group (default: the fewest that hold a group's share of "+
		"`node_count`, the nodes spread evenly over the groups; radix/2, Shpiner et al.'s group, without `node_count`).",
		1, "sized for the nodes", func(p *Params) *int { return &p.LeavesPerGroup })
	spinesPerGroupArg = intArg("spines_per_group", "`dragonfly-plus`: spines per group, a divisor of the leaf's uplinks (default: the "+
		"fewest that take every leaf uplink and the group's global links).", 1, "the fewest that carry the group's links",
		func(p *Params) *int { return &p.SpinesPerGroup })
	groupOversubscriptionArg = floatArg("group_oversubscription", "`dragonfly-plus`: a group's endpoint bandwidth over its global "+
		"bandwidth (default `1`: as many global links leave a group as it has endpoint ports; `2` is \"2:1 at the group "+
		"level\"). A group of E endpoint ports gets E / ratio global links, rounded up, spread evenly over the other planned "+
		"groups; the `dragonfly-plus` policy preset checks the ratio the cabling gives.", 1, "1",
		func(p *Params) *float64 { return &p.GroupOversubscription })
)

// groupRatio writes endpoint ports over global links as the policy reads them: "2:1", or with
// the counts where the ratio is no short decimal ("256:86, 2.98:1").
func groupRatio(endpoints, global int) string {
	v := float64(endpoints) / float64(global)
	if s := numText(v); len(s) <= 6 {
		return s + ":1"
	}
	return fmt.Sprintf("%d:%d, %.2f:1", endpoints, global, v)
}

func orFloat(v, d float64) float64 {
	if v == 0 {
		return d
	}
	return v
}

// groupsFor is the group count node_count asks when group_count is unset: enough groups of
// `slots` nodes, and at least 2.
func groupsFor(nodes, slots int) int {
	if slots < 1 {
		return 2
	}
	return max(2, ceilDiv(nodes, slots))
}

// dragonflyPlus builds Shpiner et al.'s Dragonfly+ ("Dragonfly+: Low Cost Topology for Scaling
// Datacenters", HiPINEB 2017, doi:10.1109/HiPINEB.2017.11): each group is a 2-level bipartite
// leaf/spine graph (leaves host endpoints, every leaf reaches every spine of its group), and the
// spines' remaining ports are global links, spread so every pair of groups is joined directly
// (all-to-all). Minimal routes are leaf-spine-spine-leaf: at most 3 switch-to-switch hops.
//
// Sizing. The nodes are spread evenly over the groups built (group a gets floor(N/G) nodes, one
// more for the first N mod G), and a group has the fewest leaves that hold its share: 8 leaves of
// 32 endpoint ports for 32 DGX H100. A group of E = Lg*d endpoint ports gets
// Gl = ceil(E / group_oversubscription) global links, hp = ceil(Gl/(Gp-1)) to each of the other
// Gp-1 planned groups, and the fewest spines Sg (a divisor of the leaf's u uplinks, so each leaf
// reaches each spine m = u/Sg times) whose ports hold the leaves' links and those global links:
// Sg*r >= Lg*u + hp*(Gp-1). The seed's 2 groups of 32 DGX H100 are 8 leaves and 8 spines a group,
// 32 switches, with 256 global links (full bisection) or 128 at group_oversubscription = 2.
// Without node_count a group is Shpiner's: r/2 leaves, filled.
//
// Port plan. Leaf: 1..d endpoints, d+1..d+u spines (uplink k to spine k mod Sg of its group).
// Spine: 1..Lg*m its group's leaves (leaf i's j-th link on port i*m+j+1), the rest global. A
// group's P = Sg*(r-Lg*m) global ports are numbered q = 0..P-1, port q on spine q mod Sg (so a
// group's links to one peer spread over its spines), port Lg*m+1+q/Sg. Link t between groups a
// and b uses q = t*(Gp-1) + rel, where rel = (b-a-1) mod Gp on a's side and (a-b-1) mod Gp on
// b's. Only the planned Gp enters the formula, so adding groups up to it only adds cables; nodes
// are numbered by slot (group a's slot j is node a*S+j+1, S nodes a group), so growing node_count
// only adds too.
func (g *gen) dragonflyPlus() *Error {
	p := g.p
	b := g.b
	r, d, u, h := g.r, g.d, g.u, g.h
	gos := p.GroupOversubscription
	if !(gos >= 1) || gos > float64(MaxObjects) {
		return refuse("group_oversubscription", "group_oversubscription = 1",
			"group_oversubscription is a group's endpoint bandwidth over its global bandwidth, a number >= 1 (1 = full bisection between groups), not %g", gos)
	}
	groups, nodes := p.Groups, p.Nodes
	switch {
	case groups < 0 || nodes < 0:
		return refuse("group_count", "group_count = 2", "sizes cannot be negative")
	case groups == 0 && nodes == 0:
		return refuse("group_count", "group_count = 2", "give group_count (or node_count)")
	}
	lgCap := orInt(p.LeavesPerGroup, r/2)
	if groups == 0 {
		groups = groupsFor(nodes, lgCap*d/h)
	}
	planned := orInt(p.PlannedGroups, groups)
	if planned < groups {
		return refuse("group_count", fmt.Sprintf("planned_groups = %d", groups),
			"group_count (%d) exceeds planned_groups (%d): global links were spread for %d groups, and more groups move them; raise planned_groups to the final size", groups, planned, planned)
	}
	if planned < 2 {
		return refuse("group_count", "group_count = 2, or kind = \"fat-tree\"", "a dragonfly+ needs at least 2 groups; one group is a 2-tier fat tree")
	}
	if nodes > 0 && nodes < groups {
		return refuse("node_count", fmt.Sprintf("node_count = %d, or group_count = %d", groups, nodes),
			"%d nodes spread over %d groups leave a group without nodes; a group serves at least one", nodes, groups)
	}
	share := ceilDiv(nodes, groups) // the most nodes a group gets (nodes > 0)
	lg := p.LeavesPerGroup
	if lg == 0 {
		lg = r / 2
		if nodes > 0 {
			lg = ceilDiv(share*h, d)
		}
	}
	slots := lg * d / h // whole nodes a group holds: a node never straddles groups
	if nodes > 0 && share > slots {
		return refuse("node_count", fmt.Sprintf("leaves_per_group = %d, or group_count = %d", ceilDiv(share*h, d), ceilDiv(nodes, max(slots, 1))),
			"%d nodes over %d groups put %d nodes of %d HCAs in a group; %d leaves of %d endpoint ports hold %d", nodes, groups, share, h, lg, d, slots)
	}
	if slots < 1 {
		return refuse("leaves_per_group", fmt.Sprintf("leaves_per_group = %d", ceilDiv(h, d)),
			"%d leaves of %d endpoint ports hold no whole node of %d HCAs", lg, d, h)
	}
	if nodes == 0 {
		nodes = groups * slots
	}
	eg := lg * d // a group's endpoint ports: the ratio is kept when the group is full
	glNeed := int(ceilDivFloat(float64(eg), gos))
	hpWant := ceilDiv(glNeed, planned-1)
	sg := p.SpinesPerGroup
	if sg == 0 {
		sg = pickSpines(r, u, lg, hpWant*(planned-1))
	}
	if sg < 1 || u%sg != 0 {
		return refuse("spines_per_group", nearList("spines_per_group", largestDivisorBelow(u, sg), smallestDivisorAtLeast(u, sg), 1),
			"a leaf's %d uplinks do not divide evenly over %d spines", u, sg)
	}
	m := u / sg
	if lg < 1 || lg*m >= r {
		return refuse("leaves_per_group", fmt.Sprintf("leaves_per_group = %d", (r-1)/m),
			"a spine takes %d link(s) from each of %d leaves, %d ports, and needs at least one global port of its %d", m, lg, lg*m, r)
	}
	global := r - lg*m
	P := sg * global
	if planned-1 > P {
		return refuse("planned_groups", fmt.Sprintf("planned_groups = %d", P+1),
			"each group has %d global ports (%d spines x %d), enough for one link to each of %d other groups; all-to-all over %d groups needs %d",
			P, sg, global, P, planned, planned-1)
	}
	hp := min(hpWant, P/(planned-1))
	if better := pickSpines(r, u, lg, hpWant*(planned-1)); hp < hpWant && p.SpinesPerGroup != 0 && better*r-lg*u >= hpWant*(planned-1) {
		{
			return refuse("spines_per_group", fmt.Sprintf("spines_per_group = %d, or group_oversubscription = %s", better, ratioText(eg, hp*(planned-1))),
				"%d spines a group have %d global ports; group_oversubscription = %g asks %d global links a group (%d endpoint ports), %d to each of %d other groups",
				sg, P, gos, glNeed, eg, hpWant, planned-1)
		}
	}
	if n := dragonflyObjects(groups, lg, sg, u, hp, nodes, h); n > MaxObjects {
		return refuse("group_count", g.largest(), "%s", budgetReason(fmt.Sprintf("a dragonfly+ of %d groups (%d nodes)", groups, nodes), n))
	}
	b.reserve(groups*(lg+sg), nodes, nodes*h, nodes*h+groups*lg*u+groups*(groups-1)/2*hp)
	b.des.Tiers = 2
	b.des.Summary.PlannedGroups = planned
	b.des.Summary.PlannedNodes = planned * slots
	if err := g.setLayout(planned, slots, lg+sg, 0, planned*slots); err != nil {
		return err
	}
	leafW := g.digits("leaf", p.LeafDigits, planned*lg, 2)
	spineW := g.digits("spine", p.SpineDigits, planned*sg, 2)
	grpW := width(planned, 2)
	grpName := func(a int) string { return name(p.GroupPrefix, grpW, a+1) }
	grp := func(a int) *groupSet { return b.group(grpName(a), GroupDragonfly) }
	leafName := func(l int) string { return name(p.LeafPrefix, leafW, l+1) }
	spineName := func(s int) string { return name(p.SpinePrefix, spineW, s+1) }
	b.tiers(TierNodeLeaf, TierLeafSpine, TierGlobal)

	// Groups are built whole, leaves and spines (the SU rule of RA-11333-001 applied to groups):
	// the global links of a group then never wait on a later spine.
	for a := 0; a < groups; a++ {
		gs := grp(a)
		for i := 0; i < lg; i++ {
			l := a*lg + i
			rack, pu := b.blockSwitch(gs, a, i)
			b.addSwitch(gs, fabric.Switch{Name: leafName(l), Model: g.sw.Name, Rack: rack, PositionU: pu, Role: fabric.RoleLeaf, GUID: g.switchGUID(1, l+1), Group: grpName(a)})
		}
		for s := 0; s < sg; s++ {
			sp := a*sg + s
			rack, pu := b.blockSwitch(gs, a, lg+s)
			b.addSwitch(gs, fabric.Switch{Name: spineName(sp), Model: g.sw.Name, Rack: rack, PositionU: pu, Role: fabric.RoleSpine, GUID: g.switchGUID(2, sp+1), Group: grpName(a)})
		}
	}
	// Nodes: group a takes nodes/groups of them, one more for the first nodes mod groups, in its
	// slots from 0; slot j of group a is node a*slots+j, its HCA i endpoint e = j*h+i of the
	// group, on the group's leaf e/d, port e mod d + 1.
	for a := 0; a < groups; a++ {
		gs := grp(a)
		in := nodes / groups
		if a < nodes%groups {
			in++
		}
		for j := 0; j < in; j++ {
			n := a*slots + j
			rack, pu := b.nodeSlot(gs, a, j)
			node := g.node(gs, n, rack, pu)
			for i := 0; i < h; i++ {
				e := j*h + i
				hca := g.hca(gs, node, n, i, -1)
				b.addCable(gs, TierNodeLeaf, g.cable(hca, 1, leafName(a*lg+e/d), e%d+1))
			}
		}
	}
	for a := 0; a < groups; a++ {
		gs := grp(a)
		for i := 0; i < lg; i++ {
			for k := 0; k < u; k++ {
				s := a*sg + k%sg
				b.addCable(gs, TierLeafSpine, g.link(leafName(a*lg+i), d+1+k, spineName(s), i*m+k/sg+1))
			}
		}
	}
	gport := func(a, q int) (string, int) { return spineName(a*sg + q%sg), lg*m + 1 + q/sg }
	for a := 0; a < groups; a++ {
		gs := grp(a)
		for c := a + 1; c < groups; c++ {
			for t := 0; t < hp; t++ {
				qa := t*(planned-1) + (c-a-1+planned)%planned
				qc := t*(planned-1) + (a-c-1+planned)%planned
				sa, pa := gport(a, qa)
				sc, pc := gport(c, qc)
				b.addCable(gs, TierGlobal, g.link(sa, pa, sc, pc))
			}
		}
	}
	pp := &b.des.PortPlan
	*pp = append(*pp,
		PortRange{Role: fabric.RoleLeaf, First: 1, Last: d, Faces: "nodes", Rule: fmt.Sprintf("slot j (0-based) of group a holds node a*%d+j+1; its HCA i is endpoint e = j*%d+i of the group, on the group's leaf e/%d+1, port e mod %d + 1", slots, h, d, d)},
		PortRange{Role: fabric.RoleLeaf, First: d + 1, Last: d + u, Faces: "spines of the group", Rule: fmt.Sprintf("uplink k = port-%d-1 goes to spine (k mod %d)+1 of the group, %d link(s) per pair", d, sg, m)},
		PortRange{Role: fabric.RoleSpine, First: 1, Last: lg * m, Faces: "leaves of the group", Rule: fmt.Sprintf("the group's leaf i (1-based) takes ports (i-1)*%d+1..i*%d", m, m)},
		PortRange{Role: fabric.RoleSpine, First: lg*m + 1, Last: lg*m + hp*(planned-1)/sg + boolInt(hp*(planned-1)%sg != 0), Faces: "global",
			Rule: fmt.Sprintf("global port q (0..%d per group) is spine (q mod %d)+1 port %d+q/%d; link t (0..%d) between groups a<b uses q = t*%d + (b-a-1) on a's side and q = t*%d + (%d-(b-a)-1) on b's side", P-1, sg, lg*m+1, sg, hp-1, planned-1, planned-1, planned)},
	)
	g.dragonflyNotes(groups, planned, nodes, ceilDiv(nodes, groups)*h, slots, lg, sg, m, eg, hp, P, glNeed, grpName(1))
	g.advise = func(keep float64) string {
		// More spines a group: fewer leaf links and fewer global links on each.
		for _, more := range divisors(u) {
			if more <= sg || lg*(u/more) >= r {
				continue
			}
			hpMore := min(hpWant, more*(r-lg*(u/more))/(planned-1))
			if hpMore >= hp && keepsFree(r-lg*(u/more)-globalLoad(groups, planned, hpMore, more), r, keep) {
				return fmt.Sprintf("spines_per_group = %d keeps %s of the top tier free at this size", more, percentText(keep))
			}
		}
		return ""
	}
	return nil
}

// globalLoad is the most global links on one spine of any built group: group a's link t to group
// c is its global port q = t*(planned-1) + (c-a-1) mod planned, on spine q mod sg.
func globalLoad(groups, planned, hp, sg int) int {
	most := 0
	count := make([]int, sg)
	for a := 0; a < groups; a++ {
		clear(count)
		for c := 0; c < groups; c++ {
			if c == a {
				continue
			}
			rel := (c - a - 1 + planned) % planned
			for t := 0; t < hp; t++ {
				count[(t*(planned-1)+rel)%sg]++
			}
		}
		for _, n := range count {
			most = max(most, n)
		}
	}
	return most
}

// dragonflyNotes say how the groups were sized and count what is cabled now, and what the
// global links give at the group level now and at the planned size.
func (g *gen) dragonflyNotes(groups, planned, nodes, cabled, slots, lg, sg, m, eg, hp, P, glNeed int, second string) {
	b, p := g.b, g.p
	spread := fmt.Sprintf("%d nodes a group", nodes/groups)
	if nodes%groups != 0 {
		spread = fmt.Sprintf("%d or %d nodes a group", nodes/groups, nodes/groups+1)
	}
	b.note("%d nodes spread over %d groups (%s); each group has %d leaves and %d spines (%d endpoint ports, %d node slots)",
		nodes, groups, spread, lg, sg, eg, slots)
	// Names skip when a group before the last built is not full.
	if in := nodes/groups + boolInt(groups-2 < nodes%groups); in < slots {
		b.note("nodes are numbered by slot, %d a group, so that growing node_count only adds: %s's first node is %s",
			slots, second, name(p.NodePrefix, g.nodeW, slots+1))
	}
	// The ratio now is the fullest group's cabled endpoint ports over its global links, as the
	// analysis measures it; at the planned size, a full group's.
	now := hp * (groups - 1)
	ratioNow := "no global links yet"
	if now > 0 {
		ratioNow = fmt.Sprintf("group oversubscription %s, %d endpoint ports cabled", groupRatio(cabled, now), cabled)
	}
	if groups < planned {
		b.note("%d of %d planned groups built: %d global link(s) between every pair of groups; each group cables %d of its %d global ports now (%s) and %d once all %d are built (%s)",
			groups, planned, hp, now, P, ratioNow, hp*(planned-1), planned, groupRatio(eg, hp*(planned-1)))
	} else {
		b.note("%d global link(s) between every pair of the %d groups: each group cables %d of its %d global ports (%s)", hp, groups, now, P, ratioNow)
	}
	if hp*(planned-1) < glNeed {
		b.note("group_oversubscription %g asks %d global links a group; %d spines of %d ports leave %d global ports, spread as %d to each of %d other groups: %d links (%s)",
			p.GroupOversubscription, glNeed, sg, g.r, P, hp, planned-1, hp*(planned-1), groupRatio(eg, hp*(planned-1)))
	}
	if p.LeavesPerGroup != 0 && p.SpinesPerGroup != 0 && (lg*m != g.r/2 || m != 1) {
		b.note("leaves_per_group/spines_per_group differ from Shpiner et al.'s r/2 each; the groups stay bipartite and all-to-all")
	}
}

// groupShape counts the leaves and spines of the first dragonfly+ group.
func (d *Design) groupShape() (leaves, spines int) {
	if len(d.SwitchList) == 0 {
		return d.Params.LeavesPerGroup, d.Params.SpinesPerGroup
	}
	g := d.SwitchList[0].Group
	for _, s := range d.SwitchList {
		if s.Group != g {
			continue
		}
		switch s.Role {
		case fabric.RoleLeaf:
			leaves++
		case fabric.RoleSpine:
			spines++
		}
	}
	return leaves, spines
}

// pickSpines is the fewest spines a group of lg leaves needs: a divisor of the leaf's u uplinks
// (each leaf reaches each spine equally) whose r ports a spine take every leaf link and, together,
// `global` global links. Past what u spines hold, u (one link per leaf-spine pair: the most
// global ports).
func pickSpines(r, u, lg, global int) int {
	for _, sg := range divisors(u) {
		if lg*(u/sg) < r && sg*r-lg*u >= global {
			return sg
		}
	}
	return u
}

func ceilDivFloat(a, b float64) float64 {
	q := a / b
	if f := float64(int(q)); f >= q-1e-9 {
		return f
	}
	return float64(int(q) + 1)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// largestDivisorBelow returns the largest divisor of n below x, or 0.
func largestDivisorBelow(n, x int) int {
	best := 0
	for _, v := range divisors(n) {
		if v < x {
			best = v
		}
	}
	return best
}
