package fabric

import (
	"sort"
	"strconv"
)

// Diff is what changes from one fabric graph to the next, counted per device role and per link
// tier, with a few named examples: what a plan summary says about an expansion or a rewire. It
// holds counts, never lists, so its size does not grow with the fabric.
//
// A link is identified by its two ends (device and port), not by the cable that declares it, so
// the same wiring declared in another order or under other keys is no change. A link of the prior
// graph that is gone and a new link that uses one of its ends (the same port of the same device)
// are one rewired cable: that end stayed, the other end moved. The lower-tier end (the HCA, or
// the switch of the lower level) is tried first as the end that stayed, as a cable is labelled by
// that end (internal/bom rows, the generator's cable keys); every other gone link is removed and
// every other new link added.
type Diff struct {
	Devices []DeviceChange // by role: node, hca, leaf, spine, core, then others by name
	Links   []TierChange   // by tier: node-leaf, leaf-spine, spine-core, ..., lower tier first
}

// DeviceChange counts the devices of one role that appear and disappear. Role is "node" for GPU
// nodes (from the Spec), "hca" for HCA ports, and the switch role otherwise.
type DeviceChange struct {
	Role            string
	Added, Removed  int
	AddedExamples   []string // the first MaxExamples names in sort order
	RemovedExamples []string
}

// TierChange counts the links of one tier ("node-leaf", "leaf-spine", "spine-core", "spine-spine"
// between dragonfly+ groups, "leaf-leaf" in a torus) that are added, removed or rewired.
// A rewired link is counted in the tier of its new wiring.
type TierChange struct {
	Tier                    string
	Added, Removed, Rewired int
	AddedExamples           []string // "leaf01:33 - spine01:1"
	RemovedExamples         []string
	RewiredExamples         []string // "gpu001/mlx5_0:1 leaf01:1 -> leaf01:2": the end that stayed, then old -> new far end
}

// MaxExamples bounds the examples kept per count.
const MaxExamples = 2

// Empty reports whether nothing changes.
func (d Diff) Empty() bool { return len(d.Devices) == 0 && len(d.Links) == 0 }

// roleRank orders roles from the endpoints up; unknown roles come after core.
func roleRank(role string) int {
	switch role {
	case "node":
		return 0
	case "hca":
		return 1
	case RoleLeaf:
		return 2
	case RoleSpine:
		return 3
	case RoleCore:
		return 4
	}
	return 5
}

type portEnd struct {
	dev  string
	port int
}

func (e portEnd) String() string { return e.dev + ":" + strconv.Itoa(e.port) }

// diffLink is one link of a graph in the terms Compare needs.
type diffLink struct {
	lo, hi portEnd // lo is the lower-tier end
	tier   string
}

func (l diffLink) String() string { return l.lo.String() + " - " + l.hi.String() }

type linkKey struct{ a, b portEnd } // ends in (device, port) order: independent of declaration

func (l diffLink) key() linkKey {
	a, b := l.lo, l.hi
	if b.dev < a.dev || (b.dev == a.dev && b.port < a.port) {
		a, b = b, a
	}
	return linkKey{a, b}
}

func deviceRole(d *Device) string {
	if d.Kind == KindHCA {
		return "hca"
	}
	if d.Role == "" {
		return "switch"
	}
	return d.Role
}

// linkRole is the role that names a device in a tier: an HCA is the node side.
func linkRole(d *Device) string {
	if d.Kind == KindHCA {
		return "node"
	}
	return deviceRole(d)
}

func graphLinks(g *Graph) []diffLink {
	if g == nil {
		return nil
	}
	out := make([]diffLink, 0, len(g.Links))
	for i := range g.Links {
		l := &g.Links[i]
		da, db := &g.Devices[l.A], &g.Devices[l.B]
		a, b := portEnd{da.Name, l.PortA}, portEnd{db.Name, l.PortB}
		ra, rb := linkRole(da), linkRole(db)
		lower := func() bool { // is b the lower-tier end?
			if rb != ra {
				return roleRank(rb) < roleRank(ra)
			}
			if db.Level != da.Level && db.Level >= 0 && da.Level >= 0 {
				return db.Level < da.Level
			}
			return b.dev < a.dev
		}()
		if lower {
			a, b, ra, rb = b, a, rb, ra
		}
		out = append(out, diffLink{lo: a, hi: b, tier: ra + "-" + rb})
	}
	return out
}

// Compare is the change from prior to next. A nil prior is an empty fabric (a create); a nil
// next is one that is removed.
func Compare(prior, next *Graph) Diff {
	devices := map[string]*DeviceChange{}
	dev := func(role string) *DeviceChange {
		c := devices[role]
		if c == nil {
			c = &DeviceChange{Role: role}
			devices[role] = c
		}
		return c
	}
	// Devices: by name, nodes from the Specs (a node's key cannot collide with a device name).
	names := func(g *Graph) map[string]string {
		out := map[string]string{}
		if g == nil {
			return out
		}
		for i := range g.Devices {
			out[g.Devices[i].Name] = deviceRole(&g.Devices[i])
		}
		if g.Spec != nil {
			for _, n := range g.Spec.Nodes {
				if _, dup := out["\x00node\x00"+n.Name]; !dup {
					out["\x00node\x00"+n.Name] = "node"
				}
			}
		}
		return out
	}
	before, after := names(prior), names(next)
	display := func(k string) string {
		if len(k) > 6 && k[:6] == "\x00node\x00" {
			return k[6:]
		}
		return k
	}
	for k, role := range after {
		if _, ok := before[k]; !ok {
			c := dev(role)
			c.Added++
			c.AddedExamples = keepFirst(c.AddedExamples, display(k))
		}
	}
	for k, role := range before {
		if _, ok := after[k]; !ok {
			c := dev(role)
			c.Removed++
			c.RemovedExamples = keepFirst(c.RemovedExamples, display(k))
		}
	}

	// Links.
	pl, nl := graphLinks(prior), graphLinks(next)
	had := make(map[linkKey]bool, len(pl))
	for _, l := range pl {
		had[l.key()] = true
	}
	has := make(map[linkKey]bool, len(nl))
	for _, l := range nl {
		has[l.key()] = true
	}
	var gone, added []diffLink
	for _, l := range pl {
		if !has[l.key()] {
			gone = append(gone, l)
		}
	}
	for _, l := range nl {
		if !had[l.key()] {
			added = append(added, l)
		}
	}
	// A port carries one link in a graph, so an end names at most one new link.
	byEnd := make(map[portEnd]int, 2*len(added))
	for i, l := range added {
		byEnd[l.lo], byEnd[l.hi] = i, i
	}
	paired := make([]bool, len(added))
	matched := make([]bool, len(gone))
	tiers := map[string]*TierChange{}
	tier := func(name string) *TierChange {
		c := tiers[name]
		if c == nil {
			c = &TierChange{Tier: name}
			tiers[name] = c
		}
		return c
	}
	for pass := 0; pass < 2; pass++ {
		for i, g := range gone {
			if matched[i] {
				continue
			}
			stay := g.lo
			if pass == 1 {
				stay = g.hi
			}
			j, ok := byEnd[stay]
			if !ok || paired[j] {
				continue
			}
			matched[i], paired[j] = true, true
			n := added[j]
			from, to := g.hi, n.hi
			if stay == g.hi {
				from = g.lo
			}
			if stay == n.hi {
				to = n.lo
			}
			c := tier(n.tier)
			c.Rewired++
			c.RewiredExamples = keepFirst(c.RewiredExamples, stay.String()+" "+from.String()+" -> "+to.String())
		}
	}
	for i, g := range gone {
		if !matched[i] {
			c := tier(g.tier)
			c.Removed++
			c.RemovedExamples = keepFirst(c.RemovedExamples, g.String())
		}
	}
	for j, n := range added {
		if !paired[j] {
			c := tier(n.tier)
			c.Added++
			c.AddedExamples = keepFirst(c.AddedExamples, n.String())
		}
	}

	var d Diff
	for _, c := range devices {
		d.Devices = append(d.Devices, *c)
	}
	sort.Slice(d.Devices, func(i, j int) bool {
		a, b := d.Devices[i].Role, d.Devices[j].Role
		if roleRank(a) != roleRank(b) {
			return roleRank(a) < roleRank(b)
		}
		return a < b
	})
	for _, c := range tiers {
		d.Links = append(d.Links, *c)
	}
	sort.Slice(d.Links, func(i, j int) bool { return tierLess(d.Links[i].Tier, d.Links[j].Tier) })
	return d
}

// tierLess orders tiers by their lower role, then their upper role.
func tierLess(a, b string) bool {
	al, ah := splitTier(a)
	bl, bh := splitTier(b)
	if roleRank(al) != roleRank(bl) {
		return roleRank(al) < roleRank(bl)
	}
	if roleRank(ah) != roleRank(bh) {
		return roleRank(ah) < roleRank(bh)
	}
	return a < b
}

func splitTier(t string) (string, string) {
	for i := 0; i < len(t); i++ {
		if t[i] == '-' {
			return t[:i], t[i+1:]
		}
	}
	return t, ""
}

// keepFirst keeps the MaxExamples smallest names seen, in order, so examples are deterministic
// whatever the map order they are met in, at constant cost per name.
func keepFirst(list []string, name string) []string {
	i := sort.SearchStrings(list, name)
	if i >= MaxExamples {
		return list
	}
	if i < len(list) && list[i] == name {
		return list
	}
	list = append(list, "")
	copy(list[i+1:], list[i:])
	list[i] = name
	if len(list) > MaxExamples {
		list = list[:MaxExamples]
	}
	return list
}
