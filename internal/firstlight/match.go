package firstlight

import (
	"fmt"
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Match maps the floor's device names (switches, nodes and HCAs) to the design's. A floor
// device it does not name is not in the design (its cables are unexpected); a design device no
// floor device maps to is absent.
type Match map[string]string

// FitMatch maps the floor's devices onto the design's by the links they have: asbuilt.Fit lays
// the generator's design over the floor (rails, units, node slots, spines by the leaves they
// serve; see Fit), and the fitted Spec holds, item for item in the generator's order, either the
// floor device that took the design device's place (Ref.Origin asbuilt.OriginAsBuilt) or the
// design's own. fitted is the design as the fabric builds it when the design is itself fitted to
// an earlier floor (its `as_built`: plan.Fabric.Fit.Spec), nil for a design built as generated:
// the design then names its devices as that fit does, and the match is composed through it.
//
// Fit is not edited here: its device correspondence is read from the fitted Spec's order, which
// Fit writes one item per design item (asbuilt/spec.go); positional checks the counts so that a
// change of that order is an error, not a wrong match.
func FitMatch(gen *topogen.Design, fitted, floor *fabric.Spec, cat *catalog.Catalog) (Match, error) {
	now, err := asbuilt.Fit(gen, floor, cat)
	if err != nil {
		return nil, err
	}
	return MatchFitted(gen, fitted, now)
}

// MatchFitted is FitMatch from a fit already made of gen onto the floor (asbuilt.Fit; a plan
// makes it once: plan.FloorFit). now is only read.
func MatchFitted(gen *topogen.Design, fitted *fabric.Spec, now *asbuilt.Fitted) (Match, error) {
	genSpec := gen.FabricSpec()
	designName := func(s string) string { return s }
	if fitted != nil {
		names := map[string]string{}
		if err := positional(genSpec, fitted, func(gen string, _ fabric.Ref, name string) { names[gen] = name }); err != nil {
			return nil, err
		}
		designName = func(s string) string { return names[s] }
	}
	m := Match{}
	err := positional(genSpec, now.Spec, func(gen string, ref fabric.Ref, name string) {
		if ref.Origin == asbuilt.OriginAsBuilt {
			m[name] = designName(gen)
		}
	})
	return m, err
}

// positional calls f for every switch, node and HCA of the generator's spec with its fitted
// counterpart (same index).
func positional(gen, fitted *fabric.Spec, f func(gen string, ref fabric.Ref, name string)) error {
	if len(gen.Switches) != len(fitted.Switches) || len(gen.Nodes) != len(fitted.Nodes) || len(gen.HCAs) != len(fitted.HCAs) {
		return fmt.Errorf("firstlight: the fitted design has %d switches, %d nodes, %d HCAs where the design has %d, %d, %d",
			len(fitted.Switches), len(fitted.Nodes), len(fitted.HCAs), len(gen.Switches), len(gen.Nodes), len(gen.HCAs))
	}
	for i := range gen.Switches {
		f(gen.Switches[i].Name, fitted.Switches[i].Ref, fitted.Switches[i].Name)
	}
	for i := range gen.Nodes {
		f(gen.Nodes[i].Name, fitted.Nodes[i].Ref, fitted.Nodes[i].Name)
	}
	for i := range gen.HCAs {
		f(gen.HCAs[i].Name, fitted.HCAs[i].Ref, fitted.HCAs[i].Name)
	}
	return nil
}

// NameMatch maps floor devices to design devices of the same name, then of the same GUID: the
// match for a design given as inventory maps, which has no generator design to fit.
func NameMatch(design, floor *fabric.Spec) Match {
	m := Match{}
	sw, hca := map[string]string{}, map[string]string{}
	names := map[string]bool{}
	for _, s := range design.Switches {
		names[s.Name] = true
		if s.GUID != "" {
			sw[s.GUID] = s.Name
		}
	}
	for _, n := range design.Nodes {
		names[n.Name] = true
	}
	for _, h := range design.HCAs {
		names[h.Name] = true
		if h.PortGUID != "" {
			hca[h.PortGUID] = h.Name
		}
	}
	for _, s := range floor.Switches {
		if names[s.Name] {
			m[s.Name] = s.Name
		} else if d, ok := sw[s.GUID]; ok && s.GUID != "" {
			m[s.Name] = d
		}
	}
	for _, n := range floor.Nodes {
		if names[n.Name] {
			m[n.Name] = n.Name
		}
	}
	for _, h := range floor.HCAs {
		if names[h.Name] {
			m[h.Name] = h.Name
		} else if d, ok := hca[h.PortGUID]; ok && h.PortGUID != "" {
			m[h.Name] = d
		}
	}
	return m
}

// refiner settles the devices a structural match leaves to name order. Fit matches by which
// devices are joined, never by port (asbuilt's doc), so among alike devices (the node slots of
// one scalable unit, the spines of a tree, the cores of a plane) its choice is arbitrary; a
// validation reads ports, and the floor device in a slot is the one cabled to that slot's ports.
// Each step lets the floor nodes, then the switches tier by tier (upwards, each voting from the
// tier below; then downwards, from the tier above), vote per cable for the design device that the
// design puts at the far port of the cable's already matched end, assigns greedily by votes, and
// is kept only if more floor cables then land exactly on design links (so the rounds end, and
// never make the match worse than Fit's).
type refiner struct {
	design   *fabric.Graph
	floor    *fabric.Spec
	dEnd     map[fabric.End]fabric.End // design end -> the other end of its link
	fNode    map[string]string         // floor HCA -> its node
	fDev     map[string]string         // floor HCA -> its device
	dNode    map[string]string         // design HCA -> its node
	dDev     map[string]string         // design HCA -> its device
	dHCA     map[[2]string]string      // design node, device -> HCA
	dRole    map[string]string         // design switch -> role
	dLevel   map[string]int            // design device -> level (HCAs 0, leaves 1, ...)
	maxLevel int
	fSwitch  map[string]bool
	dSwitch  map[string]bool
	maxRound int
}

func newRefiner(dg *fabric.Graph, floor *fabric.Spec, dEnd map[fabric.End]fabric.End) *refiner {
	r := &refiner{design: dg, floor: floor, dEnd: dEnd, fNode: map[string]string{}, fDev: map[string]string{},
		dNode: map[string]string{}, dDev: map[string]string{}, dHCA: map[[2]string]string{}, dRole: map[string]string{}, dLevel: map[string]int{}, fSwitch: map[string]bool{},
		dSwitch: map[string]bool{}, maxRound: 6}
	for _, h := range floor.HCAs {
		r.fNode[h.Name], r.fDev[h.Name] = h.Node, h.Device
	}
	for _, s := range floor.Switches {
		r.fSwitch[s.Name] = true
	}
	for _, h := range dg.Spec.HCAs {
		r.dNode[h.Name], r.dDev[h.Name] = h.Node, h.Device
		r.dHCA[[2]string{h.Node, h.Device}] = h.Name
	}
	for _, d := range dg.Devices {
		r.dLevel[d.Name] = d.Level
		r.maxLevel = max(r.maxLevel, d.Level)
		if d.Kind == fabric.KindSwitch {
			r.dRole[d.Name] = d.Role
			r.dSwitch[d.Name] = true
		}
	}
	return r
}

func (r *refiner) mapEnd(m Match, e fabric.End) (fabric.End, bool) {
	d, ok := m[e.Device]
	return fabric.End{Device: d, Port: e.Port}, ok
}

// score counts the floor cables that land on a design link under m.
func (r *refiner) score(m Match) int {
	n := 0
	for _, c := range r.floor.Cables {
		a, okA := r.mapEnd(m, c.A)
		b, okB := r.mapEnd(m, c.B)
		if okA && okB {
			if o, ok := r.dEnd[a]; ok && o == b {
				n++
			}
		}
	}
	return n
}

func (r *refiner) run(m Match) Match {
	best := r.score(m)
	// up(l) re-seats tier l from the tier below and the tiers above it in turn; down(l) tier l
	// from the tier above and the tiers below it in turn, the nodes last. A tier re-seated alone
	// can lose the links it shares with the tiers it did not vote from (matched by the same name
	// order), so a step is judged after the tiers it moves have followed it, and a step that
	// keeps the score is taken too (the match of 2 units permuted against the spines' ports
	// gains nothing until its leaves follow the spines). Each round must raise the score, so
	// the rounds end.
	up := func(from int) func(Match) (Match, bool) {
		return func(m Match) (Match, bool) {
			moved := false
			for l := from; l <= r.maxLevel; l++ {
				var c bool
				m, c = r.switches(m, l, true)
				moved = moved || c
			}
			return m, moved
		}
	}
	down := func(from int) func(Match) (Match, bool) {
		return func(m Match) (Match, bool) {
			moved := false
			for l := from; l >= 1; l-- {
				var c bool
				m, c = r.switches(m, l, false)
				moved = moved || c
			}
			m, c := r.nodes(m)
			return m, moved || c
		}
	}
	steps := []func(Match) (Match, bool){r.nodes}
	for l := 1; l <= r.maxLevel; l++ {
		steps = append(steps, up(l))
	}
	for l := r.maxLevel; l >= 1; l-- {
		steps = append(steps, down(l))
	}
	perfect := len(r.floor.Cables)
	for round := 0; round < r.maxRound && best < perfect; round++ {
		start := best
		for _, step := range steps {
			next, moved := step(m)
			if !moved {
				continue // the same match: the same score, kept as it is
			}
			if s := r.score(next); s >= best {
				m, best = next, s
			}
			if best == perfect {
				break // every floor cable is on a design link: nothing left to settle
			}
		}
		if best == start {
			break
		}
	}
	return m
}

type vote struct {
	from, to string
	n        int
}

// assign picks, by votes (most first), one target per floor device and one floor device per
// target; the others keep their target when it is still free, else take the targets freed, in
// name order. cur holds the current targets of the devices voted on.
func assign(votes map[string]map[string]int, cur map[string]string) map[string]string {
	var vs []vote
	for f, ts := range votes {
		for t, n := range ts {
			vs = append(vs, vote{f, t, n})
		}
	}
	sort.Slice(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if a.n != b.n {
			return a.n > b.n
		}
		if ca, cb := cur[a.from] == a.to, cur[b.from] == b.to; ca != cb {
			return ca
		}
		if a.from != b.from {
			return a.from < b.from
		}
		return a.to < b.to
	})
	out := map[string]string{}
	taken := map[string]bool{}
	for _, v := range vs {
		if _, done := out[v.from]; done || taken[v.to] {
			continue
		}
		out[v.from], taken[v.to] = v.to, true
	}
	var rest, freed []string
	for f, t := range cur {
		if _, done := out[f]; done {
			continue
		}
		if !taken[t] {
			out[f], taken[t] = t, true
			continue
		}
		rest = append(rest, f)
	}
	for _, t := range cur {
		if !taken[t] {
			freed = append(freed, t)
		}
	}
	sort.Strings(rest)
	sort.Strings(freed)
	for i, f := range rest {
		if i < len(freed) {
			out[f] = freed[i]
		}
	}
	return out
}

// nodes re-seats the floor nodes by the design node at the far port of each HCA cable whose
// switch end is matched, and their HCAs on the new node by the device Fit gave them.
func (r *refiner) nodes(m Match) (Match, bool) {
	votes := map[string]map[string]int{}
	cur := map[string]string{}
	for _, n := range r.floor.Nodes {
		if t, ok := m[n.Name]; ok {
			cur[n.Name] = t
		}
	}
	for _, c := range r.floor.Cables {
		for _, p := range [2][2]fabric.End{{c.A, c.B}, {c.B, c.A}} {
			h, sw := p[0], p[1]
			node, isHCA := r.fNode[h.Device]
			if !isHCA || !r.fSwitch[sw.Device] {
				continue
			}
			if _, ok := cur[node]; !ok {
				continue
			}
			s, ok := r.mapEnd(m, sw)
			if !ok {
				continue
			}
			o, ok := r.dEnd[s]
			if !ok {
				continue
			}
			if dn, ok := r.dNode[o.Device]; ok {
				if votes[node] == nil {
					votes[node] = map[string]int{}
				}
				votes[node][dn]++
			}
		}
	}
	next := assign(votes, cur)
	// The HCAs follow their node. Only what differs from m is written, so a step that moves
	// nothing gives m itself, and run need not score it again.
	changes := map[string]string{}
	for f, t := range next {
		if m[f] != t {
			changes[f] = t
		}
	}
	for _, h := range r.floor.HCAs {
		d, ok := m[h.Name]
		if !ok {
			continue
		}
		node, ok := next[h.Node]
		if !ok {
			continue
		}
		dev, ok := r.dDev[d]
		if !ok {
			continue
		}
		if nh, ok := r.dHCA[[2]string{node, dev}]; ok && nh != d {
			changes[h.Name] = nh
		}
	}
	return withChanges(m, changes)
}

// withChanges is m with the changes applied (a new Match), or m itself when there are none, and
// whether there were.
func withChanges(m Match, changes map[string]string) (Match, bool) {
	if len(changes) == 0 {
		return m, false
	}
	out := make(Match, len(m))
	for k, v := range m {
		out[k] = v
	}
	for f, t := range changes {
		out[f] = t
	}
	return out, true
}

// switches re-seats the floor switches whose match is at design level `level` by the design
// switch (of that role) at the far port of each cable whose other end is matched at a level
// below (fromBelow) or above: one tier at a time, from the tier the votes trust. Alike switches
// vote in both directions otherwise (a spine is cabled to leaves below and cores above), and
// when both tiers were matched by name order their votes tie and nothing moves.
func (r *refiner) switches(m Match, level int, fromBelow bool) (Match, bool) {
	votes := map[string]map[string]int{}
	cur := map[string]string{}
	for _, s := range r.floor.Switches {
		if t, ok := m[s.Name]; ok && r.dSwitch[t] && r.dLevel[t] == level {
			cur[s.Name] = t
		}
	}
	if len(cur) == 0 {
		return m, false
	}
	for _, c := range r.floor.Cables {
		for _, p := range [2][2]fabric.End{{c.A, c.B}, {c.B, c.A}} {
			sw, far := p[0], p[1]
			t, ok := cur[sw.Device]
			if !ok {
				continue
			}
			f, ok := r.mapEnd(m, far)
			if !ok {
				continue
			}
			if fl := r.dLevel[f.Device]; fromBelow && fl >= level || !fromBelow && fl <= level {
				continue
			}
			o, ok := r.dEnd[f]
			if !ok || !r.dSwitch[o.Device] || r.dRole[o.Device] != r.dRole[t] {
				continue
			}
			if votes[sw.Device] == nil {
				votes[sw.Device] = map[string]int{}
			}
			votes[sw.Device][o.Device]++
		}
	}
	changes := map[string]string{}
	for f, t := range assign(votes, cur) {
		if m[f] != t {
			changes[f] = t
		}
	}
	return withChanges(m, changes)
}
