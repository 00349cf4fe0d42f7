package topogen

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// railOptimizedKind is a DGX SuperPOD of scalable units (RA-11333-001), a 2- or 3-tier tree
// whose leaves are rails (tree.go has the wiring it shares with fat-tree).
var railOptimizedKind = &Kind{
	Name: KindRailOptimized,
	Doc:  "DGX SuperPOD scalable units, RA-11333-001: one leaf per rail per SU",
	Args: []*Arg{scalableUnitsArg, plannedScalableUnitsArg, reservedNodeSlotsArg, applianceLinksPerSlotArg, tiersArg, spinesArg},
	Uses: []string{"node_count", "oversubscription"},
	Defaults: func(p *Params) {
		p.ApplianceLinksPerSlot = orInt(p.ApplianceLinksPerSlot, DefaultApplianceLinksPerSlot)
	},
	Generate: buildWith((*gen).railOptimized),
	Largest: largestWith(func(g *gen) string {
		return fmt.Sprintf("scalable_units = %d", g.largestTree(true))
	}),
	Normalize: func(d *Design, p *Params) {
		p.PlannedScalableUnits = d.Summary.PlannedScalableUnits
		p.Tiers = d.Tiers
	},
	SizeAttribute: func(p Params) string {
		if p.ScalableUnits != 0 {
			return "scalable_units"
		}
		return "node_count"
	},
}

var (
	scalableUnitsArg = intArg("scalable_units", "`rail-optimized`: scalable units to build now. Each SU has one leaf per rail and as many node "+
		"slots as a leaf has down ports (32 DGX H100 on QM9700 at 1:1). A partial SU gets its leaves and leaf-spine cables whole.",
		1, "from node_count", func(p *Params) *int { return &p.ScalableUnits })
	plannedScalableUnitsArg = intArg("planned_scalable_units", "`rail-optimized`: the SUs the spine (and core) layer is built for (default "+
		"`scalable_units`). Growing `scalable_units` up to it only adds; set it to the final size from the first apply.",
		1, "scalable_units", func(p *Params) *int { return &p.PlannedScalableUnits })
	reservedNodeSlotsArg = intArg("reserved_node_slots", "`rail-optimized`: node slots of SU 1, from its last, given to fabric-manager (UFM) "+
		"appliances instead of nodes, as RA-11333-001 does (`1`: SU 1 holds 31 DGX). Their links are in `appliance_links`.",
		0, "0", func(p *Params) *int { return &p.ReservedNodeSlots })
	applianceLinksPerSlotArg = intArg("appliance_links_per_slot", "`rail-optimized`: links of each reserved slot to the leaves, one per rail "+
		"leaf from rail 0 (default `4`, RA-11333-001 Table 4: compute + UFM links = GPUs + 4).",
		1, "4", func(p *Params) *int { return &p.ApplianceLinksPerSlot })
)

func (g *gen) railOptimized() *Error {
	p := g.p
	b := g.b
	h, d := g.h, g.d
	if p.ReservedNodeSlots < 0 || p.ReservedNodeSlots >= d {
		return refuse("reserved_node_slots", "reserved_node_slots = 1", "reserved_node_slots must be 0 to %d (a scalable unit has %d node slots), not %d", d-1, d, p.ReservedNodeSlots)
	}
	if p.ReservedNodeSlots > 0 && (p.ApplianceLinksPerSlot < 1 || p.ApplianceLinksPerSlot > h) {
		return refuse("appliance_links_per_slot", fmt.Sprintf("appliance_links_per_slot = %d", min(DefaultApplianceLinksPerSlot, h)),
			"a reserved slot's appliance links go one per rail leaf; there are %d rails, asked %d", h, p.ApplianceLinksPerSlot)
	}
	res := p.ReservedNodeSlots
	sus := p.ScalableUnits
	nodes := p.Nodes
	switch {
	case sus < 0 || nodes < 0:
		return refuse("scalable_units", "scalable_units = 1", "sizes cannot be negative")
	case sus == 0 && nodes == 0:
		return refuse("scalable_units", "scalable_units = 1", "give scalable_units (or nodes)")
	case sus == 0:
		sus = ceilDiv(nodes+res, d)
	case nodes == 0:
		nodes = sus*d - res
	case nodes > sus*d-res:
		return refuse("node_count", fmt.Sprintf("scalable_units = %d", ceilDiv(nodes+res, d)),
			"%d scalable units of %d slots, %d reserved, hold %d nodes; asked %d", sus, d, res, sus*d-res, nodes)
	}
	if nodes < 1 {
		return refuse("node_count", "node_count = 1", "the scalable units hold no node")
	}
	planned := orInt(p.PlannedScalableUnits, sus)
	if planned < sus {
		return refuse("scalable_units", fmt.Sprintf("planned_scalable_units = %d", sus),
			"scalable_units (%d) exceed planned_scalable_units (%d): the upper tiers were built for %d SUs, and growing past the plan moves leaf uplinks to other spine ports (re-cabling every leaf); raise planned_scalable_units to the final size",
			sus, planned, planned)
	}
	b.des.Summary.PlannedScalableUnits = planned
	b.des.Summary.PlannedNodes = planned*d - res
	unit := treeUnit{attr: "scalable_units", planAttr: "planned_scalable_units", name: fmt.Sprintf("scalable units of %d nodes", d), perLeaf: func(leaves, _ int) int { return leaves / h }}
	if planned != sus {
		unit.attr = "planned_scalable_units"
	}
	t, err := planTree(g.r, d, g.u, planned*h, planned*h*d, p.Tiers, p.Spines, false, unit, g.sw.Name, g.ratio())
	if err != nil {
		return g.withinBudget(err, unit, true)
	}
	b.des.Tiers = t.tiers
	leavesNow := sus * h
	if n := t.objects(nodes, h, leavesNow) + res*p.ApplianceLinksPerSlot; n > MaxObjects {
		return refuse(unit.attr, g.largest(), "%s", budgetReason(fmt.Sprintf("a rail-optimized fabric of %d scalable units", sus), n))
	}
	g.b.reserve(leavesNow+t.spinesNow(leavesNow)+t.cores, nodes, nodes*h, t.objects(nodes, h, leavesNow))

	// Blocks are scalable units: the SU's leaves in the middle of its row. Spines (and cores)
	// sit in the central row.
	central := t.plannedSpines()
	if t.tiers == 3 {
		central += t.cores
	}
	if err := g.setLayout(planned, d, h, central, planned*d-res); err != nil {
		return err
	}
	leafW := g.digits("leaf", p.LeafDigits, planned*h, 2)
	spineW := g.digits("spine", p.SpineDigits, t.plannedSpines(), 2)
	coreW := g.digits("core", p.CoreDigits, t.cores, 2)
	suW := width(planned, 2)
	su := func(s int) *groupSet { return b.group(name("su", suW, s+1), GroupScalableUnit) }
	centralName := "spines"
	if t.tiers == 3 {
		centralName = "core"
	}
	centralGroup := b.group(centralName, GroupCentral)
	for s := 0; s < sus; s++ {
		su(s)
	}
	tiers := []string{TierNodeLeaf, TierLeafSpine}
	if t.tiers == 3 {
		tiers = append(tiers, TierSpineCore)
	}
	b.tiers(tiers...)
	leafName := func(l int) string { return name(p.LeafPrefix, leafW, l+1) }
	spineName := func(s int) string { return name(p.SpinePrefix, spineW, s+1) }
	coreName := func(c int) string { return name(p.CorePrefix, coreW, c+1) }

	// Leaf of SU s, rail i is leaf s*h+i+1: one leaf per rail per SU (RA-11333-001), and the
	// leaves of a partial SU are built whole ("build the leaf switches and leaf-spine cables for
	// the full SU").
	for l := 0; l < leavesNow; l++ {
		gs := su(l / h)
		rack, u := b.blockSwitch(gs, l/h, l%h)
		b.addSwitch(gs, fabric.Switch{Name: leafName(l), Model: g.sw.Name, Rack: rack, PositionU: u, Role: fabric.RoleLeaf, GUID: g.switchGUID(1, l+1)})
	}
	// 2 tiers: all planned spines exist. 3 tiers: the spines of pods that have leaves; their
	// central-row places are kept for the planned pods, then the cores follow.
	for s := 0; s < t.spinesNow(leavesNow); s++ {
		rack, u := b.centralSwitch(centralGroup, s)
		b.addSwitch(centralGroup, fabric.Switch{Name: spineName(s), Model: g.sw.Name, Rack: rack, PositionU: u, Role: fabric.RoleSpine, GUID: g.switchGUID(2, s+1)})
	}
	for c := 0; c < t.cores; c++ {
		rack, u := b.centralSwitch(centralGroup, t.plannedSpines()+c)
		b.addSwitch(centralGroup, fabric.Switch{Name: coreName(c), Model: g.sw.Name, Rack: rack, PositionU: u, Role: fabric.RoleCore, GUID: g.switchGUID(3, c+1)})
	}

	// Nodes fill the slots in order, skipping SU 1's reserved slots (its last res slots); the
	// node in slot j (0-based) of SU s puts rail i on leaf s*h+i, port j+1, so a rail's traffic
	// within an SU is one switch hop (RA-11333-001).
	for n := 0; n < nodes; n++ {
		s, j := 0, n
		if n >= d-res {
			s, j = 1+(n-(d-res))/d, (n-(d-res))%d
		}
		gs := su(s)
		rack, u := b.nodeSlot(gs, s, j)
		node := g.node(gs, n, rack, u)
		for i := 0; i < h; i++ {
			hca := g.hca(gs, node, n, i, i)
			b.addCable(gs, TierNodeLeaf, g.cable(hca, 1, leafName(s*h+i), j+1))
		}
	}
	// Reserved slots hold fabric-manager appliances, one per link, stacked in the slot's units;
	// link a of a slot goes to rail a's leaf on the slot's port.
	appW := width(res*p.ApplianceLinksPerSlot, 2)
	for k := 0; k < res; k++ {
		j := d - res + k
		gs := su(0)
		rack, u := b.nodeSlot(gs, 0, j)
		for a := 0; a < p.ApplianceLinksPerSlot; a++ {
			app := name(p.AppliancePrefix, appW, k*p.ApplianceLinksPerSlot+a+1)
			b.addAppliance(gs, ApplianceLink{
				Key: app + ":1", Appliance: app, Port: 1, Leaf: leafName(a), LeafPort: j + 1,
				Rack: rack, PositionU: u + a%g.nm.Units,
			})
		}
	}
	g.wireUp(t, leavesNow, leafName, spineName, coreName, func(l int) *groupSet { return su(l / h) }, func(int) *groupSet { return centralGroup })
	t.portPlan(b, fmt.Sprintf("SU slot j on port j; rail i of every node of SU s on leaf (s-1)*%d+i+1 (rails 0-based)", h))
	if res > 0 {
		b.des.PortPlan = append(b.des.PortPlan, PortRange{
			Role: fabric.RoleLeaf, First: d - res + 1, Last: d, Faces: "fabric-manager appliances (SU 1 only)",
			Rule: fmt.Sprintf("SU 1's last %d slot(s) are reserved (RA-11333-001: one DGX slot gives way to UFM); each carries %d appliance link(s), link a on rail a's leaf; the other rails' ports of the slot stay empty", res, p.ApplianceLinksPerSlot),
		})
	}
	g.treeNotes(t, "scalable units", planned)
	g.advise = g.treeAdvice(unit, planned, leavesNow, nodes, false, func(n int) (leaves, endpoints int) {
		return n * h, n * h * d
	})
	return nil
}
