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
//
// Devices are numbered (a step reads every floor cable, 49,152 of them at 2,048 nodes, a dozen
// times): the floor's names (its switches, nodes, HCAs and any other name its cables or the match
// use) and the design's (the graph's devices, then the spec's nodes and HCAs, then any other name
// the match gives), and a match is a slice from the one to the other (-1: unmatched). Votes are
// counted by number and settled by assign on the names, as the names break its ties.
type refiner struct {
	dName   []string // design names: the graph's devices first (their graph index), then others
	dIndex  map[string]int32
	nGraph  int32  // graph devices
	dLevel  []int  // graph devices' levels (HCAs 0, leaves 1, ...); others 0
	dSwitch []bool // design switches
	dRole   []string
	dNode   []int32  // design HCA -> its node; -1 for other devices
	dDev    []string // design HCA -> its device ("mlx5_0")
	dHCA    map[hcaKey]int32
	// dOther[dBase[d]+p] is the other end of the design link at port p of graph device d
	// (dev -1: none); ports beyond dMax[d] hold none.
	dBase    []int32
	dMax     []int32
	dOther   []iend
	maxLevel int

	fName     []string // floor names
	fIndex    map[string]int32
	fSwitch   []bool
	fIsNode   []bool
	fHCANode  []int32 // floor HCA -> its node (a floor node); -1 otherwise
	cables    []icable
	fSwitches []int32 // floor.Switches, in order
	fNodes    []int32 // floor.Nodes
	fHCAs     []int32 // floor.HCAs
	maxRound  int
}

type iend struct{ dev, port int32 }

type icable struct{ a, b iend } // floor devices' numbers

type hcaKey struct {
	node int32
	dev  string
}

func newRefiner(dg *fabric.Graph, floor *fabric.Spec) *refiner {
	r := &refiner{dIndex: make(map[string]int32, len(dg.Devices)), nGraph: int32(len(dg.Devices)), dHCA: map[hcaKey]int32{},
		fIndex: map[string]int32{}, maxRound: 6}
	for _, d := range dg.Devices {
		r.design(d.Name)
	}
	for _, n := range dg.Spec.Nodes {
		r.design(n.Name)
	}
	for _, h := range dg.Spec.HCAs {
		r.design(h.Name)
	}
	for _, h := range dg.Spec.HCAs {
		r.design(h.Node)
	}
	for i, d := range dg.Devices {
		r.dLevel[i] = d.Level
		r.maxLevel = max(r.maxLevel, d.Level)
		if d.Kind == fabric.KindSwitch {
			r.dRole[i], r.dSwitch[i] = d.Role, true
		}
	}
	for _, h := range dg.Spec.HCAs {
		hi, ni := r.dIndex[h.Name], r.dIndex[h.Node]
		r.dNode[hi], r.dDev[hi] = ni, h.Device
		r.dHCA[hcaKey{ni, h.Device}] = hi
	}
	r.dBase, r.dMax = make([]int32, len(dg.Devices)), make([]int32, len(dg.Devices))
	for i := range dg.Devices {
		r.dMax[i] = -1
	}
	for _, l := range dg.Links {
		r.dMax[l.A] = max(r.dMax[l.A], int32(l.PortA))
		r.dMax[l.B] = max(r.dMax[l.B], int32(l.PortB))
	}
	n := int32(0)
	for i := range dg.Devices {
		r.dBase[i] = n
		n += r.dMax[i] + 1
	}
	r.dOther = make([]iend, n)
	for i := range r.dOther {
		r.dOther[i].dev = -1
	}
	// As the validation's dEnd: a later link on the same port overwrites an earlier one.
	for _, l := range dg.Links {
		a, b := iend{l.A, int32(l.PortA)}, iend{l.B, int32(l.PortB)}
		r.dOther[r.dBase[l.A]+a.port], r.dOther[r.dBase[l.B]+b.port] = b, a
	}

	for _, s := range floor.Switches {
		i := r.floorDev(s.Name)
		r.fSwitch[i] = true
		r.fSwitches = append(r.fSwitches, i)
	}
	for _, nd := range floor.Nodes {
		i := r.floorDev(nd.Name)
		r.fIsNode[i] = true
		r.fNodes = append(r.fNodes, i)
	}
	for _, h := range floor.HCAs {
		r.fHCAs = append(r.fHCAs, r.floorDev(h.Name))
	}
	for _, h := range floor.HCAs {
		if node, ok := r.fIndex[h.Node]; ok && r.fIsNode[node] {
			r.fHCANode[r.fIndex[h.Name]] = node
		}
	}
	r.cables = make([]icable, len(floor.Cables))
	for i, c := range floor.Cables {
		r.cables[i] = icable{iend{r.floorDev(c.A.Device), int32(c.A.Port)}, iend{r.floorDev(c.B.Device), int32(c.B.Port)}}
	}
	return r
}

// design numbers a design name (once).
func (r *refiner) design(name string) int32 {
	if i, ok := r.dIndex[name]; ok {
		return i
	}
	i := int32(len(r.dName))
	r.dIndex[name] = i
	r.dName = append(r.dName, name)
	r.dLevel, r.dSwitch, r.dRole = append(r.dLevel, 0), append(r.dSwitch, false), append(r.dRole, "")
	r.dNode, r.dDev = append(r.dNode, -1), append(r.dDev, "")
	return i
}

// floorDev numbers a floor name (once).
func (r *refiner) floorDev(name string) int32 {
	if i, ok := r.fIndex[name]; ok {
		return i
	}
	i := int32(len(r.fName))
	r.fIndex[name] = i
	r.fName = append(r.fName, name)
	r.fSwitch, r.fIsNode, r.fHCANode = append(r.fSwitch, false), append(r.fIsNode, false), append(r.fHCANode, -1)
	return i
}

// other is the design end linked to design end e; ok is false when no link holds e.
func (r *refiner) other(e iend) (iend, bool) {
	if e.dev < 0 || e.dev >= r.nGraph || e.port < 0 || e.port > r.dMax[e.dev] {
		return iend{}, false
	}
	o := r.dOther[r.dBase[e.dev]+e.port]
	return o, o.dev >= 0
}

// imatch is a Match in numbers: floor device -> design device, -1 unmatched.
type imatch []int32

func (m imatch) end(e iend) (iend, bool) {
	d := m[e.dev]
	return iend{d, e.port}, d >= 0
}

// score counts the floor cables that land on a design link under m.
func (r *refiner) score(m imatch) int {
	n := 0
	for _, c := range r.cables {
		a, okA := m.end(c.a)
		b, okB := m.end(c.b)
		if okA && okB {
			if o, ok := r.other(a); ok && o == b {
				n++
			}
		}
	}
	return n
}

func (r *refiner) run(in Match) Match {
	m := make(imatch, len(r.fName))
	for i, name := range r.fName {
		m[i] = -1
		if t, ok := in[name]; ok {
			m[i] = r.design(t)
		}
	}
	orig := append(imatch(nil), m...)
	best := r.score(m)
	// up(l) re-seats tier l from the tier below and the tiers above it in turn; down(l) tier l
	// from the tier above and the tiers below it in turn, the nodes last. A tier re-seated alone
	// can lose the links it shares with the tiers it did not vote from (matched by the same name
	// order), so a step is judged after the tiers it moves have followed it, and a step that
	// keeps the score is taken too (the match of 2 units permuted against the spines' ports
	// gains nothing until its leaves follow the spines). Each round must raise the score, so
	// the rounds end.
	up := func(from int) func(imatch) (imatch, bool) {
		return func(m imatch) (imatch, bool) {
			moved := false
			for l := from; l <= r.maxLevel; l++ {
				var c bool
				m, c = r.switches(m, l, true)
				moved = moved || c
			}
			return m, moved
		}
	}
	down := func(from int) func(imatch) (imatch, bool) {
		return func(m imatch) (imatch, bool) {
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
	steps := []func(imatch) (imatch, bool){r.nodes}
	for l := 1; l <= r.maxLevel; l++ {
		steps = append(steps, up(l))
	}
	for l := r.maxLevel; l >= 1; l-- {
		steps = append(steps, down(l))
	}
	perfect := len(r.cables)
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
	var out Match
	for i, t := range m {
		if t == orig[i] {
			continue
		}
		if out == nil {
			out = make(Match, len(in))
			for k, v := range in {
				out[k] = v
			}
		}
		out[r.fName[i]] = r.dName[t]
	}
	if out == nil {
		return in
	}
	return out
}

// tally counts votes of floor devices for design devices, in numbers: by floor device, its
// targets and their counts (a device votes for one or a few).
type tally struct {
	by   [][]tcount
	from []int32 // the devices that voted, in first-vote order
}

type tcount struct {
	to int32
	n  int
}

func newTally(floorDevices int) *tally { return &tally{by: make([][]tcount, floorDevices)} }

func (t *tally) add(from, to int32) {
	ts := t.by[from]
	for i := range ts {
		if ts[i].to == to {
			ts[i].n++
			return
		}
	}
	if len(ts) == 0 {
		t.from = append(t.from, from)
	}
	t.by[from] = append(ts, tcount{to, 1})
}

// assignNumbers is assign on the names of votes and cur (floor device -> design device).
func (r *refiner) assignNumbers(votes *tally, cur map[int32]int32) map[int32]int32 {
	sv := make(map[string]map[string]int, len(votes.from))
	for _, f := range votes.from {
		m := make(map[string]int, len(votes.by[f]))
		for _, tc := range votes.by[f] {
			m[r.dName[tc.to]] = tc.n
		}
		sv[r.fName[f]] = m
	}
	sc := make(map[string]string, len(cur))
	for f, t := range cur {
		sc[r.fName[f]] = r.dName[t]
	}
	out := make(map[int32]int32, len(cur))
	for f, t := range assign(sv, sc) {
		out[r.fIndex[f]] = r.dIndex[t]
	}
	return out
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
func (r *refiner) nodes(m imatch) (imatch, bool) {
	votes := newTally(len(r.fName))
	cur := map[int32]int32{}
	for _, n := range r.fNodes {
		if t := m[n]; t >= 0 {
			cur[n] = t
		}
	}
	for _, c := range r.cables {
		for _, p := range [2][2]iend{{c.a, c.b}, {c.b, c.a}} {
			h, sw := p[0], p[1]
			node := r.fHCANode[h.dev]
			if node < 0 || !r.fSwitch[sw.dev] || m[node] < 0 {
				continue
			}
			s, ok := m.end(sw)
			if !ok {
				continue
			}
			o, ok := r.other(s)
			if !ok {
				continue
			}
			if dn := r.dNode[o.dev]; dn >= 0 {
				votes.add(node, dn)
			}
		}
	}
	next := r.assignNumbers(votes, cur)
	// The HCAs follow their node. Only what differs from m is written, so a step that moves
	// nothing gives m itself, and run need not score it again.
	changes := map[int32]int32{}
	for f, t := range next {
		if m[f] != t {
			changes[f] = t
		}
	}
	for _, h := range r.fHCAs {
		d := m[h]
		if d < 0 {
			continue
		}
		node, ok := next[r.fHCANode[h]]
		if !ok {
			continue
		}
		dev := r.dDev[d]
		if r.dNode[d] < 0 {
			continue // not a design HCA
		}
		if nh, ok := r.dHCA[hcaKey{node, dev}]; ok && nh != d {
			changes[h] = nh
		}
	}
	return withChanges(m, changes)
}

// withChanges is m with the changes applied (a new match), or m itself when there are none, and
// whether there were.
func withChanges(m imatch, changes map[int32]int32) (imatch, bool) {
	if len(changes) == 0 {
		return m, false
	}
	out := append(imatch(nil), m...)
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
func (r *refiner) switches(m imatch, level int, fromBelow bool) (imatch, bool) {
	cur := map[int32]int32{}
	for _, s := range r.fSwitches {
		if t := m[s]; t >= 0 && r.dSwitch[t] && r.dLevel[t] == level {
			cur[s] = t
		}
	}
	if len(cur) == 0 {
		return m, false
	}
	votes := newTally(len(r.fName))
	inCur := make([]bool, len(r.fName))
	for s := range cur {
		inCur[s] = true
	}
	for _, c := range r.cables {
		for _, p := range [2][2]iend{{c.a, c.b}, {c.b, c.a}} {
			sw, far := p[0], p[1]
			if !inCur[sw.dev] {
				continue
			}
			t := m[sw.dev]
			f, ok := m.end(far)
			if !ok {
				continue
			}
			if fl := r.dLevel[f.dev]; fromBelow && fl >= level || !fromBelow && fl <= level {
				continue
			}
			o, ok := r.other(f)
			if !ok || !r.dSwitch[o.dev] || r.dRole[o.dev] != r.dRole[t] {
				continue
			}
			votes.add(sw.dev, o.dev)
		}
	}
	changes := map[int32]int32{}
	for f, t := range r.assignNumbers(votes, cur) {
		if m[f] != t {
			changes[f] = t
		}
	}
	return withChanges(m, changes)
}
