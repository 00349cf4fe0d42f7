package topogen

import (
	"fmt"
	"math"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// The generator's budget (issue 13): whatever the input, Generate refuses or finishes within
// 2 s and 500 MB. Every size is checked against these caps before anything is allocated, with
// arithmetic that cannot overflow (a count past MaxObjects is refused before it is multiplied),
// and a refusal names the largest buildable size of the kind.
const (
	// MaxObjects caps switches + nodes + HCAs + cables of one design. The largest non-blocking
	// 3-tier fat tree of 64-port switches, 8,192 DGX H100 (65,536 endpoints, 5,120 switches,
	// 196,608 cables: 275,456 objects), fits; generating it takes about 0.6 s and 280 MB of
	// allocations on one core (BenchmarkLargest). Objects cost about 1 KB each, so the cap keeps
	// a design, with the maps and groups Design holds, well under 500 MB.
	MaxObjects = 300_000
	// MaxRadix caps a catalog switch's port count: the largest InfiniBand switch sold has 144
	// ports (NVIDIA Quantum-X800 Q3400); a catalog file with more is a typo, and a radix enters
	// the capacities squared.
	MaxRadix = 1024
	// MaxHCAsPerNode caps a node model's compute HCAs for the same reason (a DGX has 8).
	MaxHCAsPerNode = 64
)

// budgetReason is the common wording of a size refusal.
func budgetReason(what string, objects int) string {
	return fmt.Sprintf("%s is %s objects (switches, nodes, HCAs and cables); the generator builds at most %d, so that a plan stays within 2 s and 500 MB",
		what, countText(objects), MaxObjects)
}

func countText(n int) string {
	if n >= MaxObjects*4 {
		return fmt.Sprintf("more than %d", MaxObjects*4)
	}
	return fmt.Sprint(n)
}

// sat multiplies non-negative counts, saturating at math.MaxInt/4 so sums of a few products
// cannot overflow either.
func sat(xs ...int) int {
	const top = math.MaxInt / 4
	p := 1
	for _, x := range xs {
		if x <= 0 {
			return 0
		}
		if p > top/x {
			return top
		}
		p *= x
	}
	return p
}

// sizeArgs are the count arguments that alone can exceed the budget, checked first so that no
// later product of them overflows.
func (p Params) sizeArgs() []struct {
	attr string
	v    int
} {
	return []struct {
		attr string
		v    int
	}{
		{"node_count", p.Nodes}, {"planned_nodes", p.PlannedNodes},
		{"scalable_units", p.ScalableUnits}, {"planned_scalable_units", p.PlannedScalableUnits},
		{"group_count", p.Groups}, {"planned_groups", p.PlannedGroups},
		{"leaves_per_group", p.LeavesPerGroup}, {"spines_per_group", p.SpinesPerGroup},
		{"torus_dims", p.TorusDims[0]}, {"torus_dims", p.TorusDims[1]}, {"torus_dims", p.TorusDims[2]},
		{"endpoints_per_switch", p.EndpointsPerSwitch}, {"spines", p.Spines},
		{"reserved_node_slots", p.ReservedNodeSlots}, {"appliance_links_per_slot", p.ApplianceLinksPerSlot},
		{"rack_units", p.RackUnits}, {"switches_per_rack", p.SwitchesPerRack},
	}
}

// checkArgs refuses counts no design can hold and layout arguments that cannot be laid out,
// before any kind looks at them.
func (g *gen) checkArgs() *Error {
	p := g.p
	if g.r > MaxRadix || g.r < 2 {
		return refuse("switch_model", "switch_model = \""+DefaultSwitchModel+"\"", "switch model %q has %d ports; the generator takes 2 to %d", g.sw.Name, g.r, MaxRadix)
	}
	if g.h > MaxHCAsPerNode {
		return refuse("node_model", "node_model = \""+DefaultNodeModel+"\"", "node model %q has %d compute HCAs; the generator takes at most %d", g.nm.Name, g.h, MaxHCAsPerNode)
	}
	for _, a := range p.sizeArgs() {
		if a.v > MaxObjects {
			return refuse(a.attr, g.largest(), "%s = %d alone exceeds the generator's budget: it builds at most %d objects (switches, nodes, HCAs and cables), so that a plan stays within 2 s and 500 MB",
				a.attr, a.v, MaxObjects)
		}
	}
	if p.RackUnits < 1 {
		return refuse("rack_units", "rack_units = 42", "a rack has at least one unit, not %d", p.RackUnits)
	}
	if p.SwitchesPerRack < 1 {
		return refuse("switches_per_rack", fmt.Sprintf("switches_per_rack = %d", DefaultSwitchesPerRack), "switches_per_rack must be at least 1, not %d", p.SwitchesPerRack)
	}
	if su := g.sw.Units; su < 1 || p.RackUnits < su {
		return refuse("rack_units", fmt.Sprintf("rack_units = %d", max(42, su)), "a %s takes %dU; a rack of %dU holds none", g.sw.Name, su, p.RackUnits)
	}
	if kw := p.RackPowerKW; kw < 0 || math.IsNaN(kw) || math.IsInf(kw, 0) {
		return refuse("rack_power_kw", fmt.Sprintf("rack_power_kw = %g", DefaultRackPowerKW), "rack_power_kw must be a positive number of kW, not %g", kw)
	}
	return nil
}

// largest names the largest size of the kind the generator builds, for refusals (Kind.Largest).
func (g *gen) largest() string {
	if k := KindByName(g.p.Kind); k != nil && k.Largest != nil {
		return k.Largest(g.p, g.cat)
	}
	return ""
}

// torusObjects counts a torus of nsw switches with e endpoint ports each, filled with nodes of
// h HCAs: switches, nodes, HCAs, node-leaf cables and 3 torus cables per switch.
func torusObjects(nsw, nodes, h int) int {
	return nsw + nodes + 2*sat(nodes, h) + 3*nsw
}

// largestCube is the largest k whose filled k x k x k torus fits the budget (at least 2).
func (g *gen) largestCube(e int) int {
	if e < 1 || e > g.r-6 {
		e = g.h // an invalid count is refused on its own; size the cube for the default
	}
	k := 2
	for c := 3; ; c++ {
		nsw := c * c * c
		if torusObjects(nsw, nsw*e/g.h, g.h) > MaxObjects {
			return k
		}
		k = c
	}
}

// dragonflyObjects counts `groups` groups built whole: lg leaves and sg spines each, u uplinks a
// leaf, hp global links per pair, nodes of h HCAs.
func dragonflyObjects(groups, lg, sg, u, hp, nodes, h int) int {
	return sat(groups, lg+sg) + nodes + 2*sat(nodes, h) + sat(groups, lg, u) + sat(groups, max(groups-1, 0), hp)/2
}

// largestGroups is the largest group count of default dragonfly+ groups (filled) in the budget.
func (g *gen) largestGroups() int {
	lg := orInt(g.p.LeavesPerGroup, g.r/2)
	sg := orInt(g.p.SpinesPerGroup, g.u)
	if lg < 1 || sg < 1 || lg > MaxObjects || sg > MaxObjects || g.u%sg != 0 {
		return 2
	}
	m := g.u / sg
	P := sat(sg, max(g.r-sat(lg, m), 0))
	best := 2
	for groups := 2; groups <= P+1; groups++ {
		nodes := sat(groups, lg, g.d) / g.h
		if dragonflyObjects(groups, lg, sg, g.u, P/(groups-1), nodes, g.h) > MaxObjects {
			break
		}
		best = groups
	}
	return best
}

// reserve sizes the builder's lists once the counts are known and within the budget, so that
// the largest designs are not built by repeated doubling (a third of the time and memory).
func (b *builder) reserve(switches, nodes, hcas, cables int) {
	d := b.des
	d.SwitchList = make([]fabric.Switch, 0, switches)
	d.NodeList = make([]fabric.Node, 0, nodes)
	d.HCAList = make([]fabric.HCA, 0, hcas)
	d.CableList = make([]fabric.Cable, 0, cables)
	d.CableKeys = make([]string, 0, cables)
	d.CableTiers = make(map[string]string, cables)
}

// largestTree is the largest node count (fat-tree) or scalable-unit count (rail-optimized) that
// the tiers asked for (0: any) hold within the budget, found by bisection over the sizes, since
// both the capacity (planTree) and the object count grow with the size.
func (g *gen) largestTree(rail bool) int {
	if g.d < 1 || g.u < 1 {
		return 1
	}
	unit := treeUnit{perLeaf: func(int, int) int { return 0 }}
	fits := func(n int) bool {
		nodes, leaves, eps := n, ceilDiv(n*g.h, g.d), n*g.h
		if rail {
			nodes, leaves, eps = n*g.d, n*g.h, n*g.h*g.d
		}
		t, err := planTree(g.r, g.d, g.u, leaves, eps, g.p.Tiers, 0, !rail, unit, g.sw.Name, g.ratio())
		if err != nil {
			return false
		}
		if t.tiers == 1 {
			leaves = 1
		}
		return t.objects(nodes, g.h, leaves) <= MaxObjects
	}
	lo, hi := 1, MaxObjects // fits(lo) or nothing does; !fits(hi)
	if !fits(lo) {
		return 1
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// withinBudget lowers the size a tree's capacity refusal suggests ("at most N ...") to what
// the budget builds, when the budget binds first (nodes of few HCAs on a large tree).
func (g *gen) withinBudget(err *Error, unit treeUnit, rail bool) *Error {
	var n int
	if err.Attribute != unit.attr && err.Attribute != unit.planAttr {
		return err
	}
	if _, scan := fmt.Sscanf(err.Nearest, "at most %d", &n); scan != nil {
		return err
	}
	if b := g.largestTree(rail); b < n {
		err.Nearest = fmt.Sprintf("at most %d %s (the generator builds at most %d objects)", b, unit.name, MaxObjects)
	}
	return err
}
