package topogen

import (
	"fmt"
	"strconv"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// The arguments both tree kinds read.
var (
	tiersArg = &Arg{Name: "tiers", Type: ArgInt, Least: 1, Most: 3, Default: "the fewest that hold the planned size",
		num: func(p *Params) *int { return &p.Tiers },
		Doc: "Switch tiers of a tree: 1-3 for `fat-tree`, 2-3 for `rail-optimized` (default: the fewest that hold the planned size). " +
			"2 tiers of radix r at 1:1 hold r²/2 endpoints (2,048 on QM9700), 3 tiers r³/4 (65,536)."}
	spinesArg = intArg("spines", "2-tier trees: the spine count, e.g. to match a fabric already built. It must divide the leaf's uplinks "+
		"so every leaf reaches every spine equally (default: the fewest that hold the planned leaves, rounded up to such a divisor; "+
		"`notes` says so).", 1, "the fewest that hold the planned leaves", func(p *Params) *int { return &p.Spines })
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
//
// Two tiers: uplink k goes to spine k mod S, round-robin, and a spine's ports are taken in rounds
// of the planned leaves L: the j-th link (j = k div S) of leaf l lands on port j*L + l + 1. A plan
// for twice the leaves (2L leaves, 2S spines, half the links per pair) puts uplink k of leaf l
// (k < S) on spine k, port l + 1, as the smaller plan did, and the smaller plan's later rounds
// on the new spines: re-planning keeps one link of every old leaf to every old spine and moves
// the rest (L*(u-S) moves), where blocking a leaf's links together ((l*m)+j+1) would move
// nearly every uplink of every leaf but the first. One spine (S = 1) keeps the blocks: there a
// leaf's cage of adjacent uplinks lands in one spine cage, so a twin-port copper cable serves
// both, and a plan that grows adds spines, re-cabling a block either way.
func (t treeShape) leafUp(l, k int) (spine, port int) {
	if t.tiers == 2 {
		if t.spines == 1 {
			return 0, l*t.m + k + 1
		}
		return k % t.spines, (k/t.spines)*t.leaves + l + 1
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
		rule := "leaf l (1-based) takes port l"
		switch {
		case t.spines == 1:
			rule = fmt.Sprintf("leaf l (1-based) takes ports (l-1)*%d+1..l*%d, in the order of its uplinks", t.m, t.m)
		case t.m > 1:
			rule = fmt.Sprintf("leaf l (1-based) takes port l for its first link to the spine, then l+%d, ..., l+%d (its links in rounds of the %d planned leaves)", t.leaves, (t.m-1)*t.leaves, t.leaves)
		}
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
		ports := t.leaves * t.u
		least := ceilDiv(ports, t.r)
		worth := strconv.FormatFloat(float64(ports)/float64(t.r), 'f', -1, 64)
		switch {
		case g.p.Spines != 0 && t.spines > least:
			b.note("%d spines, as spines asks: %d leaves x %d uplinks need %d spine ports (%s spines of %d ports), so %d would do; the rest stay free",
				t.spines, t.leaves, t.u, ports, worth, t.r, least)
		case t.spines > least:
			b.note("%d spines: %d leaves x %d uplinks need %d spine ports (%s spines of %d ports); rounded up from %d to %d, the nearest spine count that divides a leaf's %d uplinks evenly",
				t.spines, t.leaves, t.u, ports, worth, t.r, least, t.spines, t.u)
		case ports%t.r != 0:
			b.note("%d spines: %d leaves x %d uplinks need %d spine ports (%s spines of %d ports), rounded up to %d",
				t.spines, t.leaves, t.u, ports, worth, t.r, t.spines)
		}
		b.note("spine layer built for %d %s (%d leaves, %d spines); growing past that moves leaf uplinks, so raise the plan first", planned, unit, t.leaves, t.spines)
	case 3:
		b.note("core layer built for %d %s (%d pods of %d leaves, %d cores in %d groups of %d); growing past that re-cables spine uplinks", planned, unit, t.pods, t.podLeaves, t.cores, t.u, t.cg)
	}
}

// topFree is the free ports of every top-tier switch (the spines of 2 tiers, the cores of 3) with
// `leaves` leaves built: a spine takes m links of each leaf, a core mc of each pod's spine.
func (t treeShape) topFree(leaves int) int {
	switch t.tiers {
	case 2:
		return t.r - leaves*t.m
	case 3:
		return t.r - ceilDiv(leaves, t.podLeaves)*t.mc
	}
	return t.r
}

// treeAdvice is a tree kind's headroom advice (headroom.go): the smallest planned size above
// `planned`, in the unit's argument, whose top tier keeps `share` of its ports free with
// leavesNow leaves (and nodesNow nodes) built, within the tiers asked and the budget; "" when no
// plan does. sizeOf gives the planned leaves and endpoints of a planned size.
func (g *gen) treeAdvice(unit treeUnit, planned, leavesNow, nodesNow int, allowOneTier bool, sizeOf func(int) (leaves, endpoints int)) func(float64) string {
	return func(share float64) string {
		for n := planned + 1; n <= MaxObjects; n++ {
			leaves, eps := sizeOf(n)
			t, err := planTree(g.r, g.d, g.u, leaves, eps, g.p.Tiers, g.p.Spines, allowOneTier, unit, g.sw.Name, g.ratio())
			if err != nil || t.objects(nodesNow, g.h, leavesNow) > MaxObjects {
				return "" // past what the tiers asked hold
			}
			if t.tiers >= 2 && keepsFree(t.topFree(leavesNow), g.r, share) {
				// What the plan costs: the top tier it builds against the one built now (a
				// larger plan adds switches, and on a fabric already cabled to the present
				// plan it moves uplinks, as the layer's note says).
				role, top := fabric.RoleSpine, t.spines
				if t.tiers == 3 {
					role, top = fabric.RoleCore, t.cores
				}
				cost := fmt.Sprintf(" (%d tiers, %s)", t.tiers, plural(top, role))
				if t.tiers == g.b.des.Tiers {
					cost = fmt.Sprintf(" (%s, %d now)", plural(top, role), g.topNow(role))
				}
				return fmt.Sprintf("%s = %d keeps %s of the top tier free at this size%s", unit.planAttr, n, percentText(share), cost)
			}
		}
		return ""
	}
}

// topNow counts the switches of role in the design built now.
func (g *gen) topNow(role string) int {
	n := 0
	for _, s := range g.b.des.SwitchList {
		if s.Role == role {
			n++
		}
	}
	return n
}
