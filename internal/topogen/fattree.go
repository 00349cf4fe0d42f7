package topogen

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// fatTreeKind is a fat tree of 1 to 3 tiers sized by node_count (tree.go has the wiring it
// shares with rail-optimized).
var fatTreeKind = &Kind{
	Name:     KindFatTree,
	Doc:      "1-3 tiers, any leaf oversubscription a split of the radix gives; Leiserson, Al-Fares et al.",
	Args:     []*Arg{plannedNodesArg, tiersArg, spinesArg},
	Uses:     []string{"node_count", "oversubscription"},
	Generate: buildWith((*gen).fatTree),
	Largest: largestWith(func(g *gen) string {
		return fmt.Sprintf("node_count = %d", g.largestTree(false))
	}),
	Normalize: func(d *Design, p *Params) {
		p.PlannedNodes = d.Summary.PlannedNodes
		p.Tiers = d.Tiers
	},
}

var plannedNodesArg = intArg("planned_nodes", "`fat-tree`: the size the spine and core layers are built for (default `node_count`). "+
	"Growing `node_count` up to it only adds leaves, nodes, HCAs and cables; past it is refused, since it would move leaf uplinks.",
	1, "node_count", func(p *Params) *int { return &p.PlannedNodes })

func (g *gen) fatTree() *Error {
	p := g.p
	if p.Nodes < 1 {
		return refuse("node_count", "node_count = 1", "a fat-tree needs at least one node, not %d", p.Nodes)
	}
	planned := orInt(p.PlannedNodes, p.Nodes)
	if planned < p.Nodes {
		return refuse("node_count", fmt.Sprintf("planned_nodes = %d", p.Nodes),
			"node_count (%d) exceeds planned_nodes (%d): the upper tiers were built for %d nodes, and growing past the plan moves leaf uplinks to other spine ports (re-cabling every leaf); raise planned_nodes to the final size",
			p.Nodes, planned, planned)
	}
	b := g.b
	b.des.Summary.PlannedNodes = planned
	h := g.h
	unit := treeUnit{attr: "node_count", planAttr: "planned_nodes", name: "nodes of " + fmt.Sprint(h) + " HCAs", perLeaf: func(_, endpoints int) int { return endpoints / h }}
	if planned != p.Nodes {
		unit.attr = "planned_nodes"
	}
	plannedEP := planned * h
	t, err := planTree(g.r, g.d, g.u, ceilDiv(plannedEP, g.d), plannedEP, p.Tiers, p.Spines, true, unit, g.sw.Name, g.ratio())
	if err != nil {
		return g.withinBudget(err, unit, false)
	}
	if t.tiers == 1 {
		t.leaves = 1
	}
	b.des.Tiers = t.tiers
	endpoints := p.Nodes * h
	leavesNow := ceilDiv(endpoints, t.d)
	if n := t.objects(p.Nodes, h, leavesNow); n > MaxObjects {
		return refuse(unit.attr, g.largest(), "%s", budgetReason(fmt.Sprintf("a fat tree of %d nodes", p.Nodes), n))
	}
	g.b.reserve(leavesNow+t.spinesNow(leavesNow)+t.cores, p.Nodes, endpoints, t.objects(p.Nodes, h, leavesNow))

	// Blocks: pods of DefaultLeavesPerPod leaves (1-2 tiers) or Al-Fares pods of r/2 leaves.
	lpb := DefaultLeavesPerPod
	central := t.spines
	perBlockSwitches := lpb
	if t.tiers == 1 {
		lpb, central, perBlockSwitches = 1, 0, 1
	}
	if t.tiers == 3 {
		lpb = t.podLeaves
		perBlockSwitches = t.podLeaves + t.u
		central = t.cores
	}
	blocks := ceilDiv(t.leaves, lpb)
	slots := ceilDiv(lpb*t.d, h)
	if err := g.setLayout(blocks, slots, perBlockSwitches, central, planned); err != nil {
		return err
	}
	leafW := g.digits("leaf", g.p.LeafDigits, t.leaves, 2)
	spineW := g.digits("spine", g.p.SpineDigits, t.plannedSpines(), 2)
	coreW := g.digits("core", g.p.CoreDigits, t.cores, 2)
	blockW := width(blocks, 2)
	blockGroup := func(blk int) *groupSet { return b.group(name("pod", blockW, blk+1), GroupPod) }
	var centralGroup *groupSet
	switch t.tiers {
	case 2:
		centralGroup = b.group("spines", GroupCentral)
	case 3:
		centralGroup = b.group("core", GroupCentral)
	}
	for blk := 0; blk < ceilDiv(leavesNow, lpb); blk++ {
		blockGroup(blk)
	}
	tiers := []string{TierNodeLeaf}
	if t.tiers >= 2 {
		tiers = append(tiers, TierLeafSpine)
	}
	if t.tiers == 3 {
		tiers = append(tiers, TierSpineCore)
	}
	b.tiers(tiers...)

	leafName := func(l int) string { return name(p.LeafPrefix, leafW, l+1) }
	spineName := func(s int) string { return name(p.SpinePrefix, spineW, s+1) }
	coreName := func(c int) string { return name(p.CorePrefix, coreW, c+1) }

	// Switches: leaves (and 3-tier spines) in their pod's network racks; 2-tier spines and cores
	// in the central row.
	for l := 0; l < leavesNow; l++ {
		blk := l / lpb
		gs := blockGroup(blk)
		rack, u := b.blockSwitch(gs, blk, l%lpb)
		b.addSwitch(gs, fabric.Switch{Name: leafName(l), Model: g.sw.Name, Rack: rack, PositionU: u, Role: fabric.RoleLeaf, GUID: g.switchGUID(1, l+1)})
	}
	switch t.tiers {
	case 2:
		for s := 0; s < t.spines; s++ {
			rack, u := b.centralSwitch(centralGroup, s)
			b.addSwitch(centralGroup, fabric.Switch{Name: spineName(s), Model: g.sw.Name, Rack: rack, PositionU: u, Role: fabric.RoleSpine, GUID: g.switchGUID(2, s+1)})
		}
	case 3:
		for s := 0; s < t.spinesNow(leavesNow); s++ {
			blk := s / t.u
			gs := blockGroup(blk)
			rack, u := b.blockSwitch(gs, blk, t.podLeaves+s%t.u)
			b.addSwitch(gs, fabric.Switch{Name: spineName(s), Model: g.sw.Name, Rack: rack, PositionU: u, Role: fabric.RoleSpine, GUID: g.switchGUID(2, s+1)})
		}
		for c := 0; c < t.cores; c++ {
			rack, u := b.centralSwitch(centralGroup, c)
			b.addSwitch(centralGroup, fabric.Switch{Name: coreName(c), Model: g.sw.Name, Rack: rack, PositionU: u, Role: fabric.RoleCore, GUID: g.switchGUID(3, c+1)})
		}
	}

	// Nodes: node n's HCA i is endpoint e = n*h+i, on leaf e/d port e%d+1; a node belongs to the
	// pod of its first HCA's leaf and takes the next slot of that pod's racks.
	firstNode := func(blk int) int { return ceilDiv(blk*lpb*t.d, h) }
	for n := 0; n < p.Nodes; n++ {
		blk := (n * h / t.d) / lpb
		gs := blockGroup(blk)
		rack, u := b.nodeSlot(gs, blk, n-firstNode(blk))
		node := g.node(gs, n, rack, u)
		for i := 0; i < h; i++ {
			e := n*h + i
			hca := g.hca(gs, node, n, i, -1)
			b.addCable(gs, TierNodeLeaf, g.cable(hca, 1, leafName(e/t.d), e%t.d+1))
		}
	}
	g.wireUp(t, leavesNow, leafName, spineName, coreName, func(l int) *groupSet { return blockGroup(l / lpb) },
		func(s int) *groupSet {
			if t.tiers == 3 {
				return blockGroup(s / t.u)
			}
			return centralGroup
		})
	t.portPlan(b, fmt.Sprintf("node n (1-based) HCA i (0-based) is endpoint e = (n-1)*%d+i, on leaf e/%d+1, port e mod %d + 1", h, t.d, t.d))
	g.treeNotes(t, "nodes", planned)
	g.advise = g.treeAdvice(unit, planned, leavesNow, p.Nodes, true, func(n int) (leaves, endpoints int) {
		return ceilDiv(n*h, g.d), n * h
	})
	return nil
}
