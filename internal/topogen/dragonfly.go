package topogen

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// dragonflyPlus builds Shpiner et al.'s Dragonfly+ ("Dragonfly+: Low Cost Topology for Scaling
// Datacenters", HiPINEB 2017): each group is a 2-level bipartite
// leaf/spine graph (leaves host endpoints, every leaf reaches every spine of its group), and the
// spines' remaining ports are global links, spread so every pair of groups is joined directly
// (all-to-all). Minimal routes are leaf-spine-spine-leaf: at most 3 switch-to-switch hops.
//
// Port plan. Leaf: 1..d endpoints, d+1..r spines (uplink k to spine k mod Sg of its group, as in
// the 2-tier tree). Spine: 1..Lg*m its group's leaves (leaf i's j-th link on port i*m+j+1),
// the rest global. A group's P = Sg*(r-Lg*m) global ports are numbered q = 0..P-1, port q on
// spine q mod Sg (so a group's links to one peer spread over its spines), port Lg*m+1+q/Sg. With
// G planned groups each pair gets hp = P/(G-1) links; link t between groups a and b uses
// q = t*(G-1) + rel, where rel = (b-a-1) mod G on a's side and (a-b-1) mod G on b's. Because
// only the planned G enters the formula, adding groups up to it only adds cables.
func (g *gen) dragonflyPlus() *Error {
	p := g.p
	b := g.b
	r, d, u, h := g.r, g.d, g.u, g.h
	if p.Tiers != 0 && p.Tiers != 2 {
		return refuse("tiers", "tiers = 0", "a dragonfly+ group has 2 tiers (leaves and spines) joined by global links; tiers = %d does not apply", p.Tiers)
	}
	if p.ScalableUnits != 0 || p.ReservedNodeSlots != 0 || p.PlannedNodes != 0 || p.Spines != 0 {
		return refuse("group_count", "", "scalable_units, reserved_node_slots, planned_nodes and spines apply to trees; a dragonfly+ is sized by group_count (and node_count)")
	}
	lg := orInt(p.LeavesPerGroup, r/2)
	sg := orInt(p.SpinesPerGroup, u)
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
	perGroupEP := lg * d
	groups, nodes := p.Groups, p.Nodes
	switch {
	case groups < 0 || nodes < 0:
		return refuse("group_count", "group_count = 2", "sizes cannot be negative")
	case groups == 0 && nodes == 0:
		return refuse("group_count", "group_count = 2", "give group_count (or node_count)")
	case groups == 0:
		groups = ceilDiv(nodes*h, perGroupEP)
	case nodes == 0:
		nodes = groups * perGroupEP / h
	case nodes*h > groups*perGroupEP:
		return refuse("node_count", fmt.Sprintf("group_count = %d", ceilDiv(nodes*h, perGroupEP)),
			"%d groups of %d leaves x %d endpoint ports hold %d nodes of %d HCAs; asked %d", groups, lg, d, groups*perGroupEP/h, h, nodes)
	}
	planned := orInt(p.PlannedGroups, groups)
	if planned < groups {
		return refuse("group_count", fmt.Sprintf("planned_groups = %d", groups),
			"group_count (%d) exceeds planned_groups (%d): global links were spread for %d groups, and more groups move them; raise planned_groups to the final size", groups, planned, planned)
	}
	if planned < 2 {
		return refuse("group_count", "group_count = 2, or kind = \"fat-tree\"", "a dragonfly+ needs at least 2 groups; one group is a 2-tier fat tree")
	}
	if planned-1 > P {
		return refuse("planned_groups", fmt.Sprintf("planned_groups = %d", P+1),
			"each group has %d global ports (%d spines x %d), enough for one link to each of %d other groups; all-to-all over %d groups needs %d",
			P, sg, global, P, planned, planned-1)
	}
	if nodes < 1 {
		return refuse("node_count", "node_count = 1", "the design holds no node")
	}
	hp := P / (planned - 1)
	if n := dragonflyObjects(groups, lg, sg, u, hp, nodes, h); n > MaxObjects {
		return refuse("group_count", g.largest(), "%s", budgetReason(fmt.Sprintf("a dragonfly+ of %d groups (%d nodes)", groups, nodes), n))
	}
	b.reserve(groups*(lg+sg), nodes, nodes*h, nodes*h+groups*lg*u+groups*(groups-1)/2*hp)
	b.des.Tiers = 2
	b.des.Summary.PlannedGroups = planned
	b.des.Summary.PlannedNodes = planned * perGroupEP / h
	if err := g.setLayout(planned, ceilDiv(perGroupEP, h), lg+sg, 0, planned*perGroupEP/h); err != nil {
		return err
	}
	leafW := width(planned*lg, 2)
	spineW := width(planned*sg, 2)
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
	firstNode := func(a int) int { return ceilDiv(a*perGroupEP, h) }
	for n := 0; n < nodes; n++ {
		a := (n * h / d) / lg
		gs := grp(a)
		rack, pu := b.nodeSlot(gs, a, n-firstNode(a))
		node := g.node(gs, n, rack, pu)
		for i := 0; i < h; i++ {
			e := n*h + i
			hca := g.hca(gs, node, n, i, -1)
			b.addCable(gs, TierNodeLeaf, g.cable(hca, 1, leafName(e/d), e%d+1))
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
		PortRange{Role: fabric.RoleLeaf, First: 1, Last: d, Faces: "nodes", Rule: fmt.Sprintf("node n (1-based) HCA i is endpoint e = (n-1)*%d+i, on leaf e/%d+1, port e mod %d + 1", h, d, d)},
		PortRange{Role: fabric.RoleLeaf, First: d + 1, Last: d + u, Faces: "spines of the group", Rule: fmt.Sprintf("uplink k = port-%d-1 goes to spine (k mod %d)+1 of the group, %d link(s) per pair", d, sg, m)},
		PortRange{Role: fabric.RoleSpine, First: 1, Last: lg * m, Faces: "leaves of the group", Rule: fmt.Sprintf("the group's leaf i (1-based) takes ports (i-1)*%d+1..i*%d", m, m)},
		PortRange{Role: fabric.RoleSpine, First: lg*m + 1, Last: lg*m + hp*(planned-1)/sg + boolInt(hp*(planned-1)%sg != 0), Faces: "global",
			Rule: fmt.Sprintf("global port q (0..%d per group) is spine (q mod %d)+1 port %d+q/%d; link t (0..%d) between groups a<b uses q = t*%d + (b-a-1) on a's side and q = t*%d + (%d-(b-a)-1) on b's side", P-1, sg, lg*m+1, sg, hp-1, planned-1, planned-1, planned)},
	)
	b.note("%d planned groups of %d leaves and %d spines; %d global link(s) between every pair of groups (%d of each group's %d global ports used)", planned, lg, sg, hp, hp*(planned-1), P)
	if lg*m != r/2 || m != 1 {
		b.note("leaves_per_group/spines_per_group differ from Shpiner et al.'s r/2 each; the groups stay bipartite and all-to-all")
	}
	return nil
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
