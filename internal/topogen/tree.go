package topogen

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// treeShape is the wiring of a 1- to 3-tier tree of radix-r switches, fixed by the planned size
// so that growing within the plan never moves a cable.
//
// Port plan (every tier): a leaf's ports 1..d face endpoints, d+1..r face up. With 2 tiers, leaf
// uplink k (0-based) goes to spine k mod S, so a leaf's uplinks spread round-robin over all S
// spines and every leaf reaches every spine u/S times (Leiserson's fat tree, IEEE Trans. Computers C-34(10), 1985; RA-11333-001's
// "balanced, full-fat tree"); spine s takes leaf l's j-th link on port l*(u/S)+j+1, a function of
// the leaf's number only. With 3 tiers (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008, generalised to a leaf ratio d:u),
// leaves come in pods of r/2; leaf uplink k goes to spine k of its pod (port = leaf's place in
// the pod + 1); a spine's ports 1..r/2 face its pod's leaves and r/2+1..r face cores: spine j of
// every pod belongs to core group j (Al-Fares' "core switch i connects to aggregation switch
// i/(k/2) of every pod"), its uplink k goes to core k mod Cg of the group, on core port
// pod*(r/2)/Cg + k/Cg + 1.
type treeShape struct {
	tiers   int
	r, d, u int
	leaves  int // planned leaves
	// 2 tiers
	spines int // S, a divisor of u
	m      int // links per leaf-spine pair: u/S
	// 3 tiers
	podLeaves int // r/2
	pods      int // planned pods
	cg        int // cores per core group, a divisor of r/2
	cores     int // u*cg
	mc        int // links per spine-core pair: (r/2)/cg
}

// treeUnit turns capacity into the user's unit for messages: nodes or scalable units.
type treeUnit struct {
	attr     string // argument that sets the size
	planAttr string // argument that sets the planned size
	name     string // "nodes", "scalable units"
	perLeaf  func(leaves, endpoints int) int
}

// planTree fixes the tiers and the upper tiers' sizes for a planned number of leaves (and, for
// one tier, endpoints).
func planTree(r, d, u, plannedLeaves, plannedEndpoints, tiers, spines int, allowOneTier bool, unit treeUnit, model string, ratio string) (treeShape, *Error) {
	t := treeShape{r: r, d: d, u: u, leaves: plannedLeaves}
	cap1 := r
	cap2Leaves := r               // S = u: one link per leaf-spine pair, r leaves per spine
	cap3Leaves := r * (r / 2)     // r pods of r/2 leaves (cores take one link per pod)
	maxAt := func(n int) string { // capacity of n tiers in the user's unit
		switch n {
		case 1:
			return fmt.Sprintf("at most %d %s", unit.perLeaf(1, cap1), unit.name)
		case 2:
			return fmt.Sprintf("at most %d %s", unit.perLeaf(cap2Leaves, cap2Leaves*d), unit.name)
		default:
			return fmt.Sprintf("at most %d %s", unit.perLeaf(cap3Leaves, cap3Leaves*d), unit.name)
		}
	}
	switch tiers {
	case 0:
		switch {
		case allowOneTier && plannedEndpoints <= cap1:
			t.tiers = 1
		case plannedLeaves <= cap2Leaves:
			t.tiers = 2
		case plannedLeaves <= cap3Leaves:
			t.tiers = 3
		default:
			return t, refuse(unit.attr, maxAt(3), "3 tiers of %d-port %s at %s hold %d endpoints; the plan needs %d (%d leaves)",
				r, model, ratio, cap3Leaves*d, plannedEndpoints, plannedLeaves)
		}
	case 1:
		if !allowOneTier {
			return t, refuse("tiers", "tiers = 2", "a rail-optimized fabric needs spines to join its rails; it has at least 2 tiers")
		}
		if plannedEndpoints > cap1 {
			return t, refuse(unit.attr, maxAt(1)+", or tiers = 2", "one %d-port switch holds %d endpoints; the plan needs %d", r, cap1, plannedEndpoints)
		}
		t.tiers = 1
	case 2:
		if plannedLeaves > cap2Leaves {
			return t, refuse(unit.attr, maxAt(2)+", or tiers = 3", "2 tiers of %d-port %s at %s hold %d endpoints (%d leaves, r*d); the plan needs %d (%d leaves)",
				r, model, ratio, cap2Leaves*d, cap2Leaves, plannedEndpoints, plannedLeaves)
		}
		t.tiers = 2
	case 3:
		if plannedLeaves > cap3Leaves {
			return t, refuse(unit.attr, maxAt(3), "3 tiers of %d-port %s at %s hold %d endpoints; the plan needs %d",
				r, model, ratio, cap3Leaves*d, plannedEndpoints)
		}
		if r%2 != 0 {
			return t, refuse("switch_model", "tiers = 2", "a 3-tier tree splits spine ports half down, half up; %s has an odd radix %d", model, r)
		}
		// Cores join pods of r/2 leaves. With one pod every shortest path turns at its spines,
		// so cores would be bought, racked and cabled to carry nothing (and their uplinks halve
		// the spines' ports for leaves). Refused rather than built: the plan either fits 2 tiers
		// or grows into a second pod, which planned_nodes says.
		if plannedLeaves <= r/2 {
			return t, refuse("tiers", fmt.Sprintf("tiers = 2 (or 0), or %s = %d to build cores for a second pod", unit.planAttr, unit.perLeaf(r/2, r/2*d)+1),
				"the plan's %d leaves fit one 3-tier pod (%d leaves of %d-port %s), so core switches would be on no shortest path: traffic between any two leaves turns at the pod's spines",
				plannedLeaves, r/2, r, model)
		}
		t.tiers = 3
	default:
		return t, refuse("tiers", "tiers = 2 or 3", "tiers must be 0 (the fewest that fit), 1, 2 or 3, not %d", tiers)
	}
	if spines != 0 && t.tiers != 2 {
		return t, refuse("spines", "spines = 0", "spines sets the spine count of a 2-tier tree; this design has %d tiers", t.tiers)
	}
	switch t.tiers {
	case 1:
		t.d, t.u = r, 0
	case 2:
		need := ceilDiv(plannedLeaves*u, r) // spine ports needed / ports per spine
		if spines != 0 {
			if u%spines != 0 {
				lo, hi := 0, 0
				for _, v := range divisors(u) {
					if v < spines {
						lo = v
					} else if hi == 0 {
						hi = v
					}
				}
				return t, refuse("spines", nearList("spines", lo, hi, need), "a leaf's %d uplinks do not divide evenly over %d spines, so some spines would carry more of a leaf's traffic than others", u, spines)
			}
			if spines < need {
				return t, refuse("spines", fmt.Sprintf("spines = %d", smallestDivisorAtLeast(u, need)),
					"%d leaves x %d uplinks need %d spine ports; %d spines of %d ports have %d", plannedLeaves, u, plannedLeaves*u, spines, r, spines*r)
			}
			t.spines = spines
		} else {
			if need < 1 {
				need = 1
			}
			t.spines = smallestDivisorAtLeast(u, need)
		}
		t.m = u / t.spines
	case 3:
		t.podLeaves = r / 2
		t.pods = ceilDiv(plannedLeaves, t.podLeaves)
		t.cg = smallestDivisorAtLeast(r/2, ceilDiv(t.pods, 2))
		t.cores = u * t.cg
		t.mc = (r / 2) / t.cg
	}
	return t, nil
}

func nearList(attr string, lo, hi, need int) string {
	var opts []string
	for _, v := range []int{lo, hi} {
		if v >= need && v > 0 {
			opts = append(opts, fmt.Sprintf("%s = %d", attr, v))
		}
	}
	if len(opts) == 0 {
		return ""
	}
	if len(opts) == 2 {
		return opts[0] + " or " + opts[1]
	}
	return opts[0]
}

// objects counts what a tree of `leaves` leaves built now holds: nodes, their HCAs and access
// cables, the switches and the uplink cables (budget.go).
func (t treeShape) objects(nodes, h, leaves int) int {
	spines := t.spinesNow(leaves)
	n := nodes + 2*sat(nodes, h) + leaves + spines + t.cores + sat(leaves, t.u)
	if t.tiers == 3 {
		n += sat(spines, t.r/2)
	}
	return n
}

// spinesNow is the number of spines that exist for a number of leaves built now.
func (t treeShape) spinesNow(leaves int) int {
	switch t.tiers {
	case 2:
		return t.spines
	case 3:
		return ceilDiv(leaves, t.podLeaves) * t.u
	}
	return 0
}

func (t treeShape) plannedSpines() int {
	switch t.tiers {
	case 2:
		return t.spines
	case 3:
		return t.pods * t.u
	}
	return 0
}

// leafUp maps leaf l's uplink k (both 0-based) to a spine (0-based) and its port.
func (t treeShape) leafUp(l, k int) (spine, port int) {
	if t.tiers == 2 {
		return k % t.spines, l*t.m + k/t.spines + 1
	}
	pod := l / t.podLeaves
	return pod*t.u + k, l%t.podLeaves + 1
}

// spineUp maps spine s's uplink k (0-based, k < r/2) to a core (0-based) and its port.
func (t treeShape) spineUp(s, k int) (core, port int) {
	pod, j := s/t.u, s%t.u
	return j*t.cg + k%t.cg, pod*t.mc + k/t.cg + 1
}

func (t treeShape) portPlan(b *builder, leafRule string) {
	pp := &b.des.PortPlan
	add := func(role string, first, last int, faces, rule string) {
		*pp = append(*pp, PortRange{Role: role, First: first, Last: last, Faces: faces, Rule: rule})
	}
	add(fabric.RoleLeaf, 1, t.d, "nodes", leafRule)
	if t.tiers >= 2 && t.d+t.u < t.r {
		defer add(fabric.RoleLeaf, t.d+t.u+1, t.r, "nothing (spare)", fmt.Sprintf("%d:%d uses %d of the %d ports; the rest stay free", t.d, t.u, t.d+t.u, t.r))
	}
	switch t.tiers {
	case 2:
		add(fabric.RoleLeaf, t.d+1, t.d+t.u, "spines", fmt.Sprintf("uplink k = port-%d-1 goes to spine (k mod %d)+1, round-robin, %d link(s) per leaf-spine pair", t.d, t.spines, t.m))
		rule := fmt.Sprintf("leaf l (1-based) takes ports (l-1)*%d+1..l*%d, in the order of its uplinks", t.m, t.m)
		if t.leaves*t.m < t.r {
			rule += fmt.Sprintf("; ports %d-%d stay free", t.leaves*t.m+1, t.r)
		}
		add(fabric.RoleSpine, 1, t.leaves*t.m, "leaves", rule)
	case 3:
		add(fabric.RoleLeaf, t.d+1, t.d+t.u, "spines", fmt.Sprintf("uplink k = port-%d-1 goes to spine k+1 of the leaf's pod (pods of %d leaves, %d spines)", t.d, t.podLeaves, t.u))
		add(fabric.RoleSpine, 1, t.r/2, "leaves", "the pod's leaf i (1-based within the pod) on port i")
		add(fabric.RoleSpine, t.r/2+1, t.r, "cores", fmt.Sprintf("spine j of every pod (1-based within the pod) joins core group j (%d cores); uplink k = port-%d-1 goes to core (k mod %d)+1 of the group", t.cg, t.r/2, t.cg))
		add(fabric.RoleCore, 1, t.pods*t.mc, "spines", fmt.Sprintf("pod p (1-based) takes ports (p-1)*%d+1..p*%d, %d link(s) per spine-core pair", t.mc, t.mc, t.mc))
	}
}

// ---- fat-tree ----

func (g *gen) fatTree() *Error {
	p := g.p
	if p.ScalableUnits != 0 || p.PlannedScalableUnits != 0 {
		return refuse("scalable_units", "node_count = "+fmt.Sprint(p.ScalableUnits*32), "scalable_units applies to rail-optimized; a fat-tree is sized by node_count")
	}
	if p.ReservedNodeSlots != 0 {
		return refuse("reserved_node_slots", "reserved_node_slots = 0", "reserved node slots apply to rail-optimized scalable units")
	}
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
	leafW := width(t.leaves, 2)
	spineW := width(t.plannedSpines(), 2)
	coreW := width(t.cores, 2)
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
	return nil
}

// wireUp cables every existing leaf to its spines and, with 3 tiers, every existing spine to its
// cores. The cable is keyed by, and belongs to the group of, its lower end.
func (g *gen) wireUp(t treeShape, leaves int, leafName, spineName, coreName func(int) string, leafGroup, spineGroup func(int) *groupSet) {
	b := g.b
	if t.tiers < 2 {
		return
	}
	for l := 0; l < leaves; l++ {
		gs := leafGroup(l)
		for k := 0; k < t.u; k++ {
			s, sp := t.leafUp(l, k)
			b.addCable(gs, TierLeafSpine, g.link(leafName(l), t.d+1+k, spineName(s), sp))
		}
	}
	if t.tiers < 3 {
		return
	}
	for s := 0; s < t.spinesNow(leaves); s++ {
		gs := spineGroup(s)
		for k := 0; k < t.r/2; k++ {
			c, cp := t.spineUp(s, k)
			b.addCable(gs, TierSpineCore, g.link(spineName(s), t.r/2+1+k, coreName(c), cp))
		}
	}
}

func (g *gen) treeNotes(t treeShape, unit string, planned int) {
	b := g.b
	switch t.tiers {
	case 1:
		b.note("one %s switch: all %d ports face nodes; growing past %d endpoints needs a second tier, which re-cables", g.sw.Name, t.r, t.r)
	case 2:
		if ideal := float64(t.leaves*t.u) / float64(t.r); float64(t.spines) > ideal+1e-9 {
			b.note("%d spines: %d leaves x %d uplinks need %.4g spines' ports, rounded up to %d, the nearest count that divides a leaf's %d uplinks evenly", t.spines, t.leaves, t.u, ideal, t.spines, t.u)
		}
		b.note("spine layer built for %d %s (%d leaves, %d spines); growing past that moves leaf uplinks, so raise the plan first", planned, unit, t.leaves, t.spines)
	case 3:
		b.note("core layer built for %d %s (%d pods of %d leaves, %d cores in %d groups of %d); growing past that re-cables spine uplinks", planned, unit, t.pods, t.podLeaves, t.cores, t.u, t.cg)
	}
}

// ---- rail-optimized ----

func (g *gen) railOptimized() *Error {
	p := g.p
	b := g.b
	h, d := g.h, g.d
	if p.PlannedNodes != 0 {
		return refuse("planned_nodes", "planned_scalable_units", "a rail-optimized fabric is planned in scalable units; use planned_scalable_units")
	}
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
	leafW := width(planned*h, 2)
	spineW := width(t.plannedSpines(), 2)
	coreW := width(t.cores, 2)
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
	return nil
}
