package asbuilt

import (
	"sort"
)

// devPorts is what the fit knows of the ports of one floor device: which are taken in the
// fitted fabric, the role the floor gives each (the level of the far end of the cable the floor
// has on it), and per role the floor's convention (the design port and the fitted port of every
// end of that role that stays) and span (the ports the floor uses for it).
type devPorts struct {
	used  []bool
	role  []int8 // far level + 1 of the floor's cable on the port; 0: none
	conv  map[int8][]portPair
	sort  map[int8]bool
	spans map[int8]*portSpan
	cur   map[int8]int // cursor into the role's fallback order
	order map[int8][]int
}

type portPair struct{ p, q int }

// portSpan is the range of the ports of one role on the floor and their stride (the gcd of
// their gaps: 2 where the floor interleaves two roles port by port).
type portSpan struct{ lo, hi, stride int }

func (s *portSpan) claims(q int) bool {
	return s != nil && q >= s.lo && q <= s.hi && (s.stride <= 1 || (q-s.lo)%s.stride == 0)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func newDevPorts(fg *fgraphView, fd int32) *devPorts {
	n := fg.ports(fd)
	dp := &devPorts{used: make([]bool, n+1), role: make([]int8, n+1), conv: map[int8][]portPair{},
		sort: map[int8]bool{}, spans: map[int8]*portSpan{}, cur: map[int8]int{}, order: map[int8][]int{}}
	byRole := map[int8][]int{}
	own := fg.m.fl.level[fd]
	for _, pe := range fg.floorEnds(fd) {
		// A cable to a device of the same level is a role only where the design has such
		// links (torus, dragonfly+ global); elsewhere it is a stray, removed, and its port
		// keeps no role.
		if pe.port <= 0 || pe.far == own && !fg.sameLevel(own) {
			continue
		}
		for pe.port >= len(dp.role) {
			dp.role = append(dp.role, 0)
			dp.used = append(dp.used, false)
		}
		dp.role[pe.port] = pe.far + 1
		byRole[pe.far] = append(byRole[pe.far], pe.port)
	}
	for r, ps := range byRole {
		sort.Ints(ps)
		sp := &portSpan{lo: ps[0], hi: ps[len(ps)-1]}
		for i := 1; i < len(ps); i++ {
			sp.stride = gcd(sp.stride, ps[i]-ps[i-1])
		}
		dp.spans[r] = sp
	}
	return dp
}

// fgraphView is the floor seen from the fitted devices: a floor device's port count and the
// ends of the floor's cables on it, with the level of each far end.
type fgraphView struct {
	m    *matcher
	same map[int8]bool
}

// sameLevel says whether the design cables switches of level lv to each other.
func (v *fgraphView) sameLevel(lv int8) bool {
	s, ok := v.same[lv]
	if !ok {
		if v.same == nil {
			v.same = map[int8]bool{}
		}
		s = v.m.de.hasSameLevel(lv)
		v.same[lv] = s
	}
	return s
}

type portEnd struct {
	port int
	far  int8
}

func (v *fgraphView) ports(fd int32) int { return v.m.fl.g.Devices[fd].Ports }

func (v *fgraphView) floorEnds(fd int32) []portEnd {
	fl := v.m.fl
	var out []portEnd
	for _, li := range fl.g.LinksOf(fd) {
		l := &fl.g.Links[li]
		if l.A == fd {
			out = append(out, portEnd{l.PortA, fl.level[l.B]})
		}
		if l.B == fd {
			out = append(out, portEnd{l.PortB, fl.level[l.A]})
		}
	}
	return out
}

func (d *devPorts) take(q int) {
	for q >= len(d.used) {
		d.used = append(d.used, false)
		d.role = append(d.role, 0)
	}
	if q > 0 {
		d.used[q] = true
	}
}

func (d *devPorts) learn(r int8, designPort, port int) {
	d.conv[r] = append(d.conv[r], portPair{designPort, port})
	d.sort[r] = false
}

// ok says whether port q may take a new end of role r: it is within the device, free in the
// fitted fabric, and the floor gives it role r, or no role and no other role claims it (it lies
// outside their spans or off their stride) unless role r's span does too.
func (d *devPorts) ok(q int, r int8) bool {
	if q <= 0 || q >= len(d.used) || d.used[q] {
		return false
	}
	if d.role[q] != 0 {
		return d.role[q] == r+1
	}
	if d.spans[r].claims(q) {
		return true
	}
	for o, s := range d.spans {
		if o != r && s.claims(q) {
			return false
		}
	}
	return true
}

// predict reads the floor port for design port p of role r off the ends of that role that stay
// nearest to it by design port, two at a time (the two below it, the two above, one on each
// side), where they number ports one for one, up or down (q = p + c, q = c - p): a node's
// missing HCA goes next to its siblings, a new node on the leaf's next node port in the floor's
// order, a swapped rail cable where the floor's slot for it is.
func (d *devPorts) predict(r int8, p int) []int {
	ps := d.conv[r]
	if len(ps) < 2 {
		return nil
	}
	if !d.sort[r] {
		sort.Slice(ps, func(a, b int) bool { return ps[a].p < ps[b].p })
		d.sort[r] = true
	}
	k := sort.Search(len(ps), func(i int) bool { return ps[i].p >= p })
	var out []int
	for _, ab := range [][2]int{{k - 2, k - 1}, {k, k + 1}, {k - 1, k}} {
		if ab[0] < 0 || ab[1] >= len(ps) {
			continue
		}
		a, b := ps[ab[0]], ps[ab[1]]
		dp, dq := b.p-a.p, b.q-a.q
		switch {
		case dp != 0 && dq == dp:
			out = append(out, p+a.q-a.p)
		case dp != 0 && dq == -dp:
			out = append(out, a.q+a.p-p)
		}
	}
	return out
}

// next is the next port for a new end of role r where no prediction holds: the free ports of
// the role's span in the floor's direction for it (descending where the floor numbers that
// role's ports down as the design's go up), then ports no role claims, nearest the span first;
// 0 when none is left.
func (d *devPorts) next(r int8) int {
	ord, ok := d.order[r]
	if !ok {
		down := false
		if ps := d.conv[r]; len(ps) >= 2 {
			if !d.sort[r] {
				sort.Slice(ps, func(a, b int) bool { return ps[a].p < ps[b].p })
				d.sort[r] = true
			}
			down = ps[len(ps)-1].q < ps[0].q
		}
		n := len(d.used) - 1
		sp := d.spans[r]
		lo, hi := 1, n
		if sp != nil {
			lo, hi = sp.lo, sp.hi
		}
		// The role's own floor ports first (freed by cables that move or go), then the
		// span's others, each in the floor's direction.
		for pass := 0; pass < 2; pass++ {
			for k := 0; k <= hi-lo; k++ {
				q := lo + k
				if down {
					q = hi - k
				}
				if q >= 1 && q < len(d.role) && (d.role[q] == r+1) == (pass == 0) {
					ord = append(ord, q)
				}
			}
		}
		// Outside the span, nearest first, the floor's direction first on a tie.
		for k := 1; lo-k >= 1 || hi+k <= n; k++ {
			below, above := lo-k, hi+k
			first, second := above, below
			if down {
				first, second = below, above
			}
			for _, q := range []int{first, second} {
				if q >= 1 && q <= n {
					ord = append(ord, q)
				}
			}
		}
		d.order[r] = ord
	}
	for c := d.cur[r]; c < len(ord); c++ {
		if d.ok(ord[c], r) {
			d.cur[r] = c
			return ord[c]
		}
	}
	d.cur[r] = len(ord)
	return 0
}

// ports fixes the fitted ports of every design link so that a technician continues the floor's
// conventions (DESIGN.md, "The as-built fabric"): a kept link's are the floor cable's; a moved
// cable's staying end keeps its floor port; every other end on a floor device takes a port the
// floor gives its role (a node port for a node cable, an uplink port for an uplink; see
// devPorts.ok), first the one the floor's convention for that role on that device gives the
// design's port (predict), then the role's next free port in the floor's order (next); only a
// device with no such port left takes any free one, then one beyond its radix, which the
// fabric then reports. That happens only where the design gives a device a role its floor
// ports never had, more of it than it has free ports: a 2-tier spine grown into a 3-tier one
// takes its core links on ports its moved leaf links free, as no assignment can avoid. An end on a new device takes the port that a floor device of its level
// (of its rail, on a rail-optimized design) has for the same design port, so a new leaf or
// spine is cabled as the floor's are; else the design's port.
func (w *specWriter) ports(designFrom []int32, designMoved []bool, moveStay []int8) {
	m := w.m
	fg, dg := m.fl.g, m.de.g
	view := &fgraphView{m: m}
	devs := map[int32]*devPorts{}
	at := func(d int32) *devPorts {
		x := devs[d]
		if x == nil {
			x = newDevPorts(view, m.rev[d])
			devs[d] = x
		}
		return x
	}
	var todo []pendEnd
	for li := range dg.Links {
		l := &dg.Links[li]
		fli := designFrom[li]
		switch {
		case fli >= 0 && !designMoved[li]:
			f := &fg.Links[fli]
			if m.fwd[f.A] == l.A {
				w.portA[li], w.portB[li] = f.PortA, f.PortB
			} else {
				w.portA[li], w.portB[li] = f.PortB, f.PortA
			}
			a, b := at(l.A), at(l.B)
			a.take(w.portA[li])
			b.take(w.portB[li])
			a.learn(m.de.level[l.B], l.PortA, w.portA[li])
			b.learn(m.de.level[l.A], l.PortB, w.portB[li])
		case fli >= 0:
			f := &fg.Links[fli]
			sd, sp := f.A, f.PortA
			if moveStay[fli] == 2 {
				sd, sp = f.B, f.PortB
			}
			if m.fwd[sd] == l.A {
				w.portA[li] = sp
				at(l.A).take(sp)
				at(l.A).learn(m.de.level[l.B], l.PortA, sp)
				todo = append(todo, pendEnd{int32(li), true})
			} else {
				w.portB[li] = sp
				at(l.B).take(sp)
				at(l.B).learn(m.de.level[l.A], l.PortB, sp)
				todo = append(todo, pendEnd{int32(li), false})
			}
		default:
			todo = append(todo, pendEnd{int32(li), false}, pendEnd{int32(li), true})
		}
	}
	// Appliance links come before new cables: they are the design's, only not graph devices;
	// they sit in node slots, so they take node ports.
	w.appliancePorts = make([]int, len(w.design.ApplianceList))
	for i, a := range w.design.ApplianceList {
		d, ok := dg.Lookup(a.Leaf)
		if !ok || m.rev[d] < 0 {
			w.appliancePorts[i] = a.LeafPort
			continue
		}
		x := at(d)
		q := a.LeafPort
		if !x.ok(q, 0) {
			if q = x.next(0); q == 0 {
				q = firstFree(x)
			}
		}
		x.take(q)
		w.appliancePorts[i] = q
	}
	endOf := w.endOf
	// Four passes, each over the ends the ones before left: a prediction within the role's
	// span (the floor's own ports for the role); the role's span's free ports (a hole the
	// floor left: a dead port, an absent node), in design-port order; a prediction anywhere
	// the role may go (new nodes past the last, in the floor's order); the role's next port.
	var floorEnds, fresh []pendEnd
	for _, p := range todo {
		if d, _, _, _ := endOf(p); m.rev[d] < 0 {
			fresh = append(fresh, p)
		} else {
			floorEnds = append(floorEnds, p)
		}
	}
	sort.SliceStable(floorEnds, func(a, b int) bool {
		da, _, pa, ra := endOf(floorEnds[a])
		db, _, pb, rb := endOf(floorEnds[b])
		if da != db {
			return da < db
		}
		if ra != rb {
			return ra < rb
		}
		return pa < pb
	})
	pass := func(ends []pendEnd, pick func(x *devPorts, r int8, dp int) int) []pendEnd {
		var left []pendEnd
		for _, p := range ends {
			d, port, dp, r := endOf(p)
			x := at(d)
			if q := pick(x, r, dp); q > 0 {
				x.take(q)
				*port = q
				continue
			}
			left = append(left, p)
		}
		return left
	}
	predicted := func(inSpan bool) func(x *devPorts, r int8, dp int) int {
		return func(x *devPorts, r int8, dp int) int {
			for _, q := range x.predict(r, dp) {
				if x.ok(q, r) && (!inSpan || x.spans[r].claims(q)) {
					return q
				}
			}
			return 0
		}
	}
	left := pass(floorEnds, predicted(true))
	left = pass(left, func(x *devPorts, r int8, _ int) int {
		if q := x.next(r); q > 0 && x.spans[r].claims(q) {
			return q
		}
		return 0
	})
	left = pass(left, predicted(false))
	pass(left, func(x *devPorts, r int8, _ int) int {
		if q := x.next(r); q > 0 {
			return q
		}
		return firstFree(x)
	})
	w.newDevicePorts(fresh)
}

// pendEnd is an end of a design link whose fitted port is still to choose.
type pendEnd struct {
	link int32
	b    bool // the B end of the design link
}

// endOf is a pending end's design device, its fitted port, its design port and its role (the
// level of the far end).
func (w *specWriter) endOf(p pendEnd) (dev int32, port *int, design int, role int8) {
	dg, lv := w.m.de.g, w.m.de.level
	l := &dg.Links[p.link]
	if p.b {
		return l.B, &w.portB[p.link], l.PortB, lv[l.A]
	}
	return l.A, &w.portA[p.link], l.PortA, lv[l.B]
}

// firstFree is the lowest port free in the fitted fabric, or the one past the device's radix.
func firstFree(x *devPorts) int {
	for q := 1; q < len(x.used); q++ {
		if !x.used[q] {
			return q
		}
	}
	return len(x.used)
}

// newDevicePorts places the ends on new devices: each new switch copies, design port for
// design port, the fitted ports of a template (the matched switch of its level, and of its rail
// on a rail-optimized design, with the most design links), so it is cabled as the floor's
// switches are; where the template has no such port, or it is taken, the design's port; else
// the lowest free.
func (w *specWriter) newDevicePorts(fresh []pendEnd) {
	m := w.m
	dg := m.de.g
	type tkey struct {
		lv   int8
		rail string
	}
	railOf := func(d int32) string {
		if m.railSensitive && m.de.level[d] == 1 {
			return m.designRail(d)
		}
		return ""
	}
	best := map[tkey]int32{}
	for d := range dg.Devices {
		D := int32(d)
		if m.rev[D] < 0 || !m.de.isSwitch(D) {
			continue
		}
		for _, k := range []tkey{{m.de.level[D], railOf(D)}, {m.de.level[D], "*"}} {
			if t, ok := best[k]; !ok || len(dg.LinksOf(D)) > len(dg.LinksOf(t)) {
				best[k] = D
			}
		}
	}
	tmaps := map[int32]map[int]int{}
	tmap := func(t int32) map[int]int {
		if x, ok := tmaps[t]; ok {
			return x
		}
		x := map[int]int{}
		for _, li := range dg.LinksOf(t) {
			l := &dg.Links[li]
			if l.A == t {
				x[l.PortA] = w.portA[li]
			}
			if l.B == t {
				x[l.PortB] = w.portB[li]
			}
		}
		tmaps[t] = x
		return x
	}
	used := map[int32][]bool{}
	usedOf := func(d int32) []bool {
		u := used[d]
		if u == nil {
			u = make([]bool, dg.Devices[d].Ports+1)
			used[d] = u
		}
		return u
	}
	var rest []pendEnd
	for _, p := range fresh {
		d, port, dp, _ := w.endOf(p)
		*port = 0
		if !m.de.isSwitch(d) {
			rest = append(rest, p)
			continue
		}
		t, ok := best[tkey{m.de.level[d], railOf(d)}]
		if !ok {
			t, ok = best[tkey{m.de.level[d], "*"}]
		}
		u := usedOf(d)
		if q, has := tmap(t)[dp]; ok && has && q > 0 && q < len(u) && !u[q] {
			u[q] = true
			*port = q
			continue
		}
		rest = append(rest, p)
	}
	for _, p := range rest {
		d, port, dp, _ := w.endOf(p)
		u := usedOf(d)
		if dp > 0 && dp < len(u) && !u[dp] {
			u[dp] = true
			*port = dp
			continue
		}
		if dp >= len(u) { // a design port beyond the model: the design's own, as it is
			*port = dp
			continue
		}
		q := 1
		for q < len(u) && u[q] {
			q++
		}
		if q < len(u) {
			u[q] = true
		}
		*port = q
	}
}
