package firstlight

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Link verdicts.
const (
	OK         = "ok"
	Missing    = "missing"
	Miswired   = "miswired"
	Swapped    = "swapped"
	Unexpected = "unexpected"
	Degraded   = "degraded"
	Noisy      = "noisy"
)

// Punch list actions.
const (
	ActSwap    = "swap"
	ActMove    = "move"
	ActPlug    = "plug"
	ActUnplug  = "unplug"
	ActReseat  = "reseat"
	ActReplace = "replace"
)

// Counter is a cable's port-counters verdict (gpucluster_port_counters' `links`).
type Counter struct {
	Verdict string // "ok", "suspect" or "down"
	Reason  string
}

// Input is what Validate compares.
type Input struct {
	Design *fabric.Spec // the design as the fabric builds it
	// Graph is Design built (fabric.Build with Catalog) when the caller has built it already
	// (plan.Fabric.Graph); nil builds it here. A 2,048-node design takes a tenth of a second
	// to build, which a plan need not spend twice.
	Graph *fabric.Graph
	Floor *fabric.Spec // the floor as discovered (its own names, GUIDs and ports)
	// Match maps floor devices to design devices (FitMatch, NameMatch); nil matches by name.
	// Validate refines it by ports either way (refiner).
	Match Match
	// Scope, when not nil, limits the judgement to a work order's links (ParseScope).
	Scope *Scope
	// Counters are port-counter verdicts by cable label (the design's or the floor's label).
	Counters map[string]Counter
	// RatesGbps are the floor cables' trained rates by floor cable label (one direction); a
	// cable absent here is not judged for width or speed.
	RatesGbps map[string]float64
	Catalog   *catalog.Catalog
}

// Summary counts links in scope (Unexpected counts floor cables; OutsideScope the design links
// left unjudged).
type Summary struct {
	Expected, OK, Missing, Miswired, Swapped, Unexpected, Degraded, Noisy int
	OutsideScope                                                          int
}

// Passed says whether every link in scope is ok and no unexpected cable is in scope.
func (s Summary) Passed() bool {
	return s.Missing+s.Miswired+s.Swapped+s.Unexpected+s.Degraded+s.Noisy == 0
}

// Where is one end of a punch list row, as the technician finds it.
type Where struct {
	End   string // "leaf01:3", "gpu001/mlx5_0:1"; a device's name for a row about the device
	Box   string // the switch or node
	Rack  string
	Row   int // the rack's row in the hall; 0 unknown
	Pos   int // the rack's position in its row
	U     int
	Cage  int
	Split int
	Floor string // the box's own name on the floor, where it differs from the design's
}

// Row is one fix.
type Row struct {
	Action  string
	Verdict string // what the fix cures: missing, miswired, swapped, unexpected, degraded, noisy
	Label   string // the design link's label ("" for an unexpected cable: then the floor cable's)
	A, B    Where  // swap: the two ports whose plugs are exchanged; move: from, to; others: the link's ends
	Detail  string
	Also    []string // other links that go down while it is done, by label

	links []int        // the design links it fixes
	ends  []fabric.End // the design-named ports it touches
}

// Result is the judgement.
type Result struct {
	Summary Summary
	Rows    []Row // in the technician's walk (sortWalk)
	// Verdicts holds every design link's verdict by label ("" outside scope).
	Verdicts map[string]string
	Match    Match // the refined match
}

// Validate classifies the design's links against the floor and writes the punch list.
//
// After the devices are matched (Input.Match, refined by ports), the floor cables are read in
// the design's names and judged in this order, each floor cable and design link used once:
//  1. ok: a floor cable on both ports of a design link;
//  2. swapped: two floor cables that hold, between them, exactly the four ports of two design
//     links, each cable on one port of each: one swap row (the plugs to exchange are the two
//     on one device when there is such a pair, as on a leaf);
//  3. miswired: a floor cable with one end on a design link's port, whose other port is free
//     (or held by a cable that is itself wrong): a move of the other end to where it belongs;
//  4. unexpected: floor cables left (unplug);
//  5. missing: design links left (plug); a design switch or node with no floor device at all is
//     one row naming it and its links;
//  6. ok links are then degraded (trained below the design's rate: reseat, then replace) or
//     noisy (counters suspect or down: replace).
func Validate(in Input) (*Result, error) {
	if in.Design == nil || in.Floor == nil {
		return nil, errors.New("firstlight.Validate needs a design and a floor")
	}
	cat := in.Catalog
	if cat == nil {
		cat = catalog.Default()
	}
	dg := in.Graph
	if dg != nil && dg.Spec != in.Design {
		return nil, errors.New("firstlight.Validate: Input.Graph is not built from Input.Design")
	}
	var probs []fabric.Problem
	if dg == nil {
		dg, probs = fabric.Build(in.Design, cat)
	}
	if fabric.HasErrors(probs) {
		var msgs []string
		for _, p := range probs {
			if p.Severity == fabric.Error && len(msgs) < 3 {
				msgs = append(msgs, p.String())
			}
		}
		return nil, fmt.Errorf("the design does not build: %s", strings.Join(msgs, "; "))
	}
	v := newValidation(dg, in, cat)
	v.judge()
	return v.result(), nil
}

// validation holds the state of one Validate.
type validation struct {
	in    Input
	dg    *fabric.Graph
	cat   *catalog.Catalog
	m     Match
	dEnd  map[fabric.End]fabric.End // design end -> other end
	dLink map[fabric.End]int        // design end -> link index
	fc    []fcable
	at    map[fabric.End]int // design-named end -> floor cable there
	where *locator           // loc()

	verdict []string // per design link
	claimed []bool   // per design link
	done    []bool   // per floor cable
	rows    []Row
	sum     Summary
}

// fcable is a floor cable in design names (ends of unmatched devices keep the floor's name and
// mapped false).
type fcable struct {
	label      string // the floor's label
	a, b       fabric.End
	okA, okB   bool
	floorA, fB fabric.End
}

func newValidation(dg *fabric.Graph, in Input, cat *catalog.Catalog) *validation {
	n := 2 * len(dg.Links) // ends
	v := &validation{in: in, dg: dg, cat: cat, dEnd: make(map[fabric.End]fabric.End, n), dLink: make(map[fabric.End]int, n),
		at: make(map[fabric.End]int, 2*len(in.Floor.Cables))}
	for i, l := range dg.Links {
		a := fabric.End{Device: dg.Devices[l.A].Name, Port: l.PortA}
		b := fabric.End{Device: dg.Devices[l.B].Name, Port: l.PortB}
		v.dEnd[a], v.dEnd[b] = b, a
		v.dLink[a], v.dLink[b] = i, i
	}
	m := in.Match
	if m == nil {
		m = NameMatch(in.Design, in.Floor)
	}
	v.m = newRefiner(dg, in.Floor).run(m)
	for _, c := range in.Floor.Cables {
		f := fcable{label: c.Label(), floorA: c.A, fB: c.B, a: c.A, b: c.B}
		if d, ok := v.m[c.A.Device]; ok {
			f.a, f.okA = fabric.End{Device: d, Port: c.A.Port}, true
		}
		if d, ok := v.m[c.B.Device]; ok {
			f.b, f.okB = fabric.End{Device: d, Port: c.B.Port}, true
		}
		if f.okA {
			v.at[f.a] = len(v.fc)
		}
		if f.okB {
			v.at[f.b] = len(v.fc)
		}
		v.fc = append(v.fc, f)
	}
	v.verdict = make([]string, len(dg.Links))
	v.claimed = make([]bool, len(dg.Links))
	v.done = make([]bool, len(v.fc))
	return v
}

// loc is the locator, made at its first use: only rows need it, and a floor cabled right has
// none.
func (v *validation) loc() *locator {
	if v.where != nil {
		return v.where
	}
	v.where = newLocator(v.dg, v.cat, v.dLink)
	v.where.floorBox = map[string]string{}
	for _, n := range v.in.Floor.Nodes {
		if d, ok := v.m[n.Name]; ok {
			v.where.floorBox[d] = n.Name
		}
	}
	for _, s := range v.in.Floor.Switches {
		if d, ok := v.m[s.Name]; ok {
			v.where.floorBox[d] = s.Name
		}
	}
	return v.where
}

func (v *validation) label(li int) string {
	l := &v.dg.Links[li]
	return fabric.CableLabel(fabric.End{Device: v.dg.Devices[l.A].Name, Port: l.PortA}, fabric.End{Device: v.dg.Devices[l.B].Name, Port: l.PortB})
}

func (v *validation) ends(li int) (fabric.End, fabric.End) {
	l := &v.dg.Links[li]
	return fabric.End{Device: v.dg.Devices[l.A].Name, Port: l.PortA}, fabric.End{Device: v.dg.Devices[l.B].Name, Port: l.PortB}
}

// linkAt is the design link on a design-named end of a floor cable, -1 when none (or the end's
// device is not matched).
func (v *validation) linkAt(e fabric.End, mapped bool) int {
	if !mapped {
		return -1
	}
	if li, ok := v.dLink[e]; ok {
		return li
	}
	return -1
}

func (v *validation) judge() {
	// 1. ok
	for i, f := range v.fc {
		la, lb := v.linkAt(f.a, f.okA), v.linkAt(f.b, f.okB)
		if la >= 0 && la == lb && v.dEnd[f.a] == f.b && !v.claimed[la] {
			v.claimed[la], v.done[i], v.verdict[la] = true, true, OK
		}
	}
	// 2. swaps
	for i, f := range v.fc {
		if v.done[i] {
			continue
		}
		la, lb := v.linkAt(f.a, f.okA), v.linkAt(f.b, f.okB)
		if la < 0 || lb < 0 || la == lb || v.claimed[la] || v.claimed[lb] {
			continue
		}
		oa, ob := v.dEnd[f.a], v.dEnd[f.b] // the other ports of the two design links
		j, ok := v.at[oa]
		if !ok || j == i || v.done[j] {
			continue
		}
		g := v.fc[j]
		exchanged := g.okA && g.okB && ((g.a == oa && g.b == ob) || (g.a == ob && g.b == oa))
		if !exchanged {
			continue
		}
		v.claimed[la], v.claimed[lb], v.done[i], v.done[j] = true, true, true, true
		v.verdict[la], v.verdict[lb] = Swapped, Swapped
		v.rows = append(v.rows, v.swapRow(f, g, la, lb, oa, ob))
	}
	// 3. moves: first those whose destination is free, until none is left, then onto ports held
	// by cables that are wrong themselves.
	for _, occupiedOK := range []bool{false, true} {
		for changed := true; changed; {
			changed = false
			for i := range v.fc {
				if !v.done[i] && v.tryMove(i, occupiedOK) {
					changed = true
				}
			}
		}
	}
	// 4. unexpected
	for i, f := range v.fc {
		if v.done[i] {
			continue
		}
		v.done[i] = true
		detail := "the design has no cable here: unplug it"
		for _, e := range []struct {
			end fabric.End
			ok  bool
		}{{f.a, f.okA}, {f.b, f.okB}} {
			if !e.ok {
				detail = fmt.Sprintf("%s is not in the design: unplug the cable", e.end.Device)
			}
		}
		v.rows = append(v.rows, Row{Action: ActUnplug, Verdict: Unexpected, Label: f.label,
			A: v.loc().atMapped(f.a, f.okA), B: v.loc().atMapped(f.b, f.okB), Detail: detail,
			Also: v.loc().mates([]fabric.End{f.a, f.b}, nil), ends: []fabric.End{f.a, f.b}})
	}
	// 5. missing
	present := map[string]bool{}
	for _, d := range v.m {
		present[d] = true
	}
	absent := map[string][]int{} // box -> design links
	for li := range v.dg.Links {
		if v.claimed[li] {
			continue
		}
		v.verdict[li] = Missing
		a, b := v.ends(li)
		if box := v.absentBox(a, present); box != "" {
			absent[box] = append(absent[box], li)
			continue
		}
		if box := v.absentBox(b, present); box != "" {
			absent[box] = append(absent[box], li)
			continue
		}
		v.rows = append(v.rows, Row{Action: ActPlug, Verdict: Missing, Label: v.label(li), A: v.loc().at(a), B: v.loc().at(b),
			Detail: "no cable on either port: plug it", Also: v.loc().mates([]fabric.End{a, b}, []int{li}), links: []int{li}, ends: []fabric.End{a, b}})
	}
	boxes := make([]string, 0, len(absent))
	for b := range absent {
		boxes = append(boxes, b)
	}
	sort.Strings(boxes)
	for _, box := range boxes {
		lis := absent[box]
		labels := make([]string, len(lis))
		for i, li := range lis {
			labels[i] = v.label(li)
		}
		v.rows = append(v.rows, Row{Action: ActPlug, Verdict: Missing, Label: box, A: v.loc().box(box), B: Where{},
			Detail: fmt.Sprintf("%s is not on the floor (%d link(s) down with it: %s); install and cable it", box, len(lis), shortList(labels, 4)), links: lis})
	}
	// 6. degraded and noisy
	for i, f := range v.fc {
		li := v.linkAt(f.a, f.okA)
		if li < 0 || v.verdict[li] != OK {
			continue
		}
		a, b := v.ends(li)
		lab := v.label(li)
		c, ok := v.in.Counters[lab]
		if !ok {
			c, ok = v.in.Counters[f.label]
		}
		if ok && (c.Verdict == "suspect" || c.Verdict == "down") {
			v.verdict[li] = Noisy
			v.rows = append(v.rows, Row{Action: ActReplace, Verdict: Noisy, Label: lab, A: v.loc().at(a), B: v.loc().at(b),
				Detail: fmt.Sprintf("counters say %s: %s; replace the cable (then the transceivers)", c.Verdict, c.Reason),
				Also:   v.loc().mates([]fabric.End{a, b}, []int{li}), links: []int{li}, ends: []fabric.End{a, b}})
			continue
		}
		if r, ok := v.in.RatesGbps[v.fc[i].label]; ok && r < v.dg.Links[li].RateGbps {
			v.verdict[li] = Degraded
			v.rows = append(v.rows, Row{Action: ActReseat, Verdict: Degraded, Label: lab, A: v.loc().at(a), B: v.loc().at(b),
				Detail: fmt.Sprintf("trained at %g Gb/s where the design's is %g Gb/s: reseat both ends, then replace the cable if it stays slow",
					r, v.dg.Links[li].RateGbps),
				Also: v.loc().mates([]fabric.End{a, b}, []int{li}), links: []int{li}, ends: []fabric.End{a, b}})
		}
	}
	v.applyScope()
	sortWalk(v.rows)
}

// swapRow is the fix for floor cables f and g that hold design links la (f.a <-> oa) and lb
// (f.b <-> ob) exchanged. Either pair of plugs can be exchanged: f.b with oa, or f.a with ob.
// The pair on one device is preferred, then a pair of switch ports. But two ports in one
// twin-port cage (an OSFP cage's splits 1 and 2) are one plug: one connector serves both, so
// they cannot be exchanged there, and the exchange is at the cables' other ends. When both
// pairs are in one cage each (both links run between the same two cages, split 1 at one end
// to split 2 at the other), no plug can be moved: the cable crosses its splits, which the
// design's straight twin-port cable does not, and the fix is to replace it (a `replace` row).
// Sources: NVIDIA's QM9700 user manual (two NDR ports per OSFP cage, one connector) and
// LinkX twin-port cables (each split goes straight to the same split at the other end).
func (v *validation) swapRow(f, g fcable, la, lb int, oa, ob fabric.End) Row {
	loc := v.loc()
	pairB, pairA := [2]fabric.End{f.b, oa}, [2]fabric.End{f.a, ob}
	oneDeviceAtA := f.a.Device == ob.Device && f.b.Device != oa.Device
	switchesAtA := v.isSwitch(f.a.Device) && v.isSwitch(ob.Device)
	switchesAtB := v.isSwitch(f.b.Device) && v.isSwitch(oa.Device)
	pick, other := pairB, pairA
	if oneDeviceAtA || (switchesAtA && !switchesAtB) {
		pick, other = pairA, pairB
	}
	label := v.label(la) + " / " + v.label(lb)
	links, ends := []int{la, lb}, []fabric.End{f.a, f.b, g.a, g.b}
	// One copper twin-port cable carries both links (bom: their rows share a Bundle); over
	// fiber each split has its own fiber in the cage's transceiver, and those can be exchanged.
	oneCable := loc.row(la).Bundle != "" && loc.row(la).Bundle == loc.row(lb).Bundle
	onePlug := func(p [2]fabric.End) (Where, bool) {
		a, b := loc.at(p[0]), loc.at(p[1])
		return a, oneCable && a.Split > 0 && b.Split > 0 && a.Box == b.Box && a.Cage == b.Cage
	}
	cageAt, inOne := onePlug(pick)
	note := ""
	if a, b := loc.at(pick[0]), loc.at(pick[1]); !oneCable && a.Split > 0 && a.Box == b.Box && a.Cage == b.Cage {
		note = fmt.Sprintf(" (the two fibers in %s cage %d's twin-port transceiver)", a.Box, a.Cage)
	}
	if inOne {
		if _, otherInOne := onePlug(other); otherInOne {
			a, b := v.ends(la)
			wa, wb := loc.at(a), loc.at(b)
			if walkLess(wb, wa) {
				a, b, wa, wb = b, a, wb, wa
			}
			return Row{Action: ActReplace, Verdict: Swapped, Label: label, A: wa, B: wb,
				Detail: fmt.Sprintf("the twin-port cable between %s cage %d and %s cage %d crosses its splits (%s, %s): "+
					"each cage holds both splits in one plug, so no plug can be exchanged; replace it with a straight "+
					"twin-port cable (split 1 to split 1, split 2 to split 2)",
					wa.Box, wa.Cage, wb.Box, wb.Cage, f.label, g.label),
				Also: loc.mates([]fabric.End{a, b}, links), links: links, ends: ends}
		}
		note = fmt.Sprintf(" (not at %s cage %d: its two splits are one plug)", cageAt.Box, cageAt.Cage)
		pick = other
	}
	x, y := pick[0], pick[1]
	if walkLess(loc.at(y), loc.at(x)) {
		x, y = y, x // the first plug is the first the technician reaches
	}
	return Row{Action: ActSwap, Verdict: Swapped, Label: label, A: loc.at(x), B: loc.at(y),
		Detail: fmt.Sprintf("exchange the cables in %s and %s%s: %s belongs to %s, %s to %s", x, y, note,
			f.label, v.label(la), g.label, v.label(lb)),
		Also: loc.mates([]fabric.End{x, y}, links), links: links, ends: ends}
}

func (v *validation) isSwitch(name string) bool {
	d, ok := v.dg.Lookup(name)
	return ok && v.dg.Devices[d].Kind == fabric.KindSwitch
}

// absentBox is the switch or node of a design end when no floor device maps to it (for an HCA:
// to none of its node's HCAs, so one uncabled HCA of a present node is a plug row, not an
// absent node).
func (v *validation) absentBox(e fabric.End, present map[string]bool) string {
	d, ok := v.dg.Lookup(e.Device)
	if !ok {
		return ""
	}
	dev := &v.dg.Devices[d]
	if dev.Kind == fabric.KindSwitch {
		if !present[dev.Name] {
			return dev.Name
		}
		return ""
	}
	if present[dev.Node] {
		return ""
	}
	return dev.Node
}

// tryMove moves floor cable i when one of its ends holds a design link whose other port is free
// (or, with occupiedOK, held by a cable not yet judged right): that end stays, the other goes.
// The end that stays is the one whose link's other port is free, else the lower-tier one
// (an HCA before a switch), so the fix is at the switch where it can be.
func (v *validation) tryMove(i int, occupiedOK bool) bool {
	f := v.fc[i]
	type cand struct {
		stay, from, to fabric.End
		li             int
		free           bool
	}
	var cs []cand
	for _, p := range []struct {
		stay, other fabric.End
		ok, okO     bool
	}{{f.a, f.b, f.okA, f.okB}, {f.b, f.a, f.okB, f.okA}} {
		li := v.linkAt(p.stay, p.ok)
		if li < 0 || v.claimed[li] {
			continue
		}
		to := v.dEnd[p.stay]
		j, held := v.at[to]
		if held && (j == i || v.done[j]) {
			continue
		}
		if held && !occupiedOK {
			continue
		}
		cs = append(cs, cand{p.stay, p.other, to, li, !held})
	}
	if len(cs) == 0 {
		return false
	}
	sort.SliceStable(cs, func(x, y int) bool {
		if cs[x].free != cs[y].free {
			return cs[x].free
		}
		return !v.isSwitch(cs[x].stay.Device) && v.isSwitch(cs[y].stay.Device)
	})
	c := cs[0]
	v.claimed[c.li], v.done[i], v.verdict[c.li] = true, true, Miswired
	fromOK := c.from == f.a && f.okA || c.from == f.b && f.okB
	if fromOK && v.at[c.from] == i {
		delete(v.at, c.from)
	}
	v.at[c.to] = i
	v.rows = append(v.rows, Row{Action: ActMove, Verdict: Miswired, Label: v.label(c.li),
		A: v.loc().atMapped(c.from, fromOK), B: v.loc().at(c.to),
		Detail: fmt.Sprintf("the cable from %s is in %s: move it to %s (on the floor: %s)", c.stay, c.from, c.to, f.label),
		Also:   v.loc().mates([]fabric.End{c.from, c.to}, []int{c.li}), links: []int{c.li}, ends: []fabric.End{c.from, c.to, c.stay}})
	return true
}

func shortList(xs []string, n int) string {
	if len(xs) <= n {
		return strings.Join(xs, ", ")
	}
	return strings.Join(xs[:n], ", ") + fmt.Sprintf(" and %d more", len(xs)-n)
}

func (v *validation) result() *Result {
	r := &Result{Summary: v.sum, Rows: v.rows, Verdicts: map[string]string{}, Match: v.m}
	for li := range v.dg.Links {
		r.Verdicts[v.label(li)] = v.verdict[li]
	}
	return r
}
