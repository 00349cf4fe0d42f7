package asbuilt

import (
	"fmt"
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// specWriter writes the fitted spec: design devices under their floor identity where mapped,
// under their design name (renamed if the floor uses it) where new.
type specWriter struct {
	m      *matcher
	design *topogen.Design
	dspec  *fabric.Spec
	f      *Fitted

	// fitted ports of each design link, by its A and B end
	portA, portB   []int
	appliancePorts []int    // fitted leaf port of each design appliance link
	names          []string // design device -> fitted name
	nodeNames      []string // design node -> fitted name
	renamed        int
}

func newSpecWriter(m *matcher, design *topogen.Design, dspec *fabric.Spec, f *Fitted) *specWriter {
	n := len(m.de.g.Links)
	return &specWriter{m: m, design: design, dspec: dspec, f: f, portA: make([]int, n), portB: make([]int, n)}
}

// ports fixes the fitted ports of every design link: a kept link's are the floor cable's; a
// moved cable's staying end keeps its floor port; an end on a new device takes the design's
// port; every other end, on a floor device, takes the first free one (free of the cables that
// stay, and within the device's ports) of: the port the floor's own convention on that device
// gives the design's port (read off the nearest ends that stay, see predict), the design's
// port, the lowest free port.
func (w *specWriter) ports(designFrom []int32, designMoved []bool, moveStay []int8) {
	m := w.m
	fg, dg := m.fl.g, m.de.g
	used := map[int32][]bool{}
	// The floor's convention, per floor device: the (design port, floor port) pairs of its
	// ends that stay, by design port.
	type pair struct{ p, q int }
	conv := map[int32][]pair{}
	use := func(d int32, p int) {
		u := used[d]
		if u == nil {
			u = make([]bool, fg.Devices[m.rev[d]].Ports+1)
			used[d] = u
		}
		if p >= 0 && p < len(u) {
			u[p] = true
		}
	}
	learn := func(d int32, designPort, floorPort int) {
		conv[d] = append(conv[d], pair{designPort, floorPort})
	}
	sorted := map[int32]bool{}
	// predict reads the floor ports for design port p off the ends that stay nearest to it by
	// design port, two at a time (the two below it, the two above, one on each side), where
	// they number ports one for one, up or down (q = p + c, q = c - p): a node's missing HCA
	// goes next to its siblings, a swapped rail cable where the floor's slot for it is.
	predict := func(d int32, p int) []int {
		ps := conv[d]
		if len(ps) < 2 {
			return nil
		}
		if !sorted[d] {
			sort.Slice(ps, func(a, b int) bool { return ps[a].p < ps[b].p })
			sorted[d] = true
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
	type pending struct {
		link int32
		b    bool // the B end of the design link
	}
	var todo []pending
	for li := range dg.Links {
		l := &dg.Links[li]
		fli := designFrom[li]
		switch {
		case fli >= 0 && !designMoved[li]:
			f := &fg.Links[fli]
			// The floor cable's ends, on the design link's orientation.
			if m.fwd[f.A] == l.A {
				w.portA[li], w.portB[li] = f.PortA, f.PortB
			} else {
				w.portA[li], w.portB[li] = f.PortB, f.PortA
			}
			use(l.A, w.portA[li])
			use(l.B, w.portB[li])
			learn(l.A, l.PortA, w.portA[li])
			learn(l.B, l.PortB, w.portB[li])
		case fli >= 0:
			f := &fg.Links[fli]
			sd, sp := f.A, f.PortA
			if moveStay[fli] == 2 {
				sd, sp = f.B, f.PortB
			}
			if m.fwd[sd] == l.A {
				w.portA[li] = sp
				use(l.A, sp)
				learn(l.A, l.PortA, sp)
				todo = append(todo, pending{int32(li), true})
			} else {
				w.portB[li] = sp
				use(l.B, sp)
				learn(l.B, l.PortB, sp)
				todo = append(todo, pending{int32(li), false})
			}
		default:
			todo = append(todo, pending{int32(li), false}, pending{int32(li), true})
		}
	}
	// Appliance links come before new cables: they are the design's, only not graph devices.
	w.appliancePorts = make([]int, len(w.design.ApplianceList))
	for i, a := range w.design.ApplianceList {
		d, ok := dg.Lookup(a.Leaf)
		switch {
		case !ok:
			w.appliancePorts[i] = a.LeafPort
		case m.rev[d] < 0:
			w.appliancePorts[i] = a.LeafPort
			continue
		default:
			use(d, -1)
			u := used[d]
			q := a.LeafPort
			if q >= len(u) || u[q] {
				for q = 1; q < len(u) && u[q]; q++ {
				}
			}
			if q >= len(u) {
				used[d] = append(u, false)
				u = used[d]
			}
			u[q] = true
			w.appliancePorts[i] = q
		}
	}
	endOf := func(p pending) (dev int32, port *int, design int) {
		l := &dg.Links[p.link]
		if p.b {
			return l.B, &w.portB[p.link], l.PortB
		}
		return l.A, &w.portA[p.link], l.PortA
	}
	var second []pending
	for _, p := range todo {
		d, port, dp := endOf(p)
		if m.rev[d] < 0 {
			*port = dp
			continue
		}
		use(d, -1)
		u := used[d]
		taken := false
		for _, q := range predict(d, dp) {
			if q > 0 && q < len(u) && !u[q] {
				u[q] = true
				*port = q
				taken = true
				break
			}
		}
		if taken {
			continue
		}
		if dp < len(u) && !u[dp] {
			u[dp] = true
			*port = dp
			continue
		}
		second = append(second, p)
	}
	for _, p := range second {
		d, port, _ := endOf(p)
		u := used[d]
		for q := 1; ; q++ {
			if q >= len(u) {
				// The floor device has no free port for it (a smaller model than the design's):
				// the port beyond its radix makes the fabric say so.
				u = append(u, false)
				used[d] = u
			}
			if !u[q] {
				u[q] = true
				*port = q
				break
			}
		}
	}
}

// write builds the fitted spec and the change list.
func (w *specWriter) write(keptBy, designFrom []int32, designMoved []bool, moveStay []int8) {
	m, f := w.m, w.f
	fl, de := m.fl, m.de
	fg, dg := fl.g, de.g
	floor := f.floor
	taken := map[string]bool{}
	for _, s := range floor.Switches {
		taken[s.Name] = true
	}
	for _, n := range floor.Nodes {
		taken[n.Name] = true
	}
	for _, r := range floor.Racks {
		taken["rack:"+r.Name] = true
	}
	uniq := func(name, prefix string) string {
		if !taken[prefix+name] {
			taken[prefix+name] = true
			return name
		}
		w.renamed++
		for k := 1; ; k++ {
			s := name + "-new"
			if k > 1 {
				s = fmt.Sprintf("%s-new%d", name, k)
			}
			if !taken[prefix+s] {
				taken[prefix+s] = true
				return s
			}
		}
	}
	floorGUIDs := map[string]bool{}
	for _, s := range floor.Switches {
		floorGUIDs[s.GUID] = true
	}
	for _, h := range floor.HCAs {
		floorGUIDs[h.PortGUID] = true
	}
	guid := func(g string) string {
		if floorGUIDs[g] {
			return "" // the floor has it on another device: left for the real one
		}
		return g
	}

	out := &fabric.Spec{
		Plan: w.dspec.Plan, Racks: make([]fabric.Rack, 0, len(floor.Racks)+len(w.dspec.Racks)),
		Switches: make([]fabric.Switch, 0, len(w.dspec.Switches)), Nodes: make([]fabric.Node, 0, len(w.dspec.Nodes)),
		HCAs: make([]fabric.HCA, 0, len(w.dspec.HCAs)), Cables: make([]fabric.Cable, 0, len(w.dspec.Cables)),
	}
	f.changes = make([]change, 0, len(w.dspec.Cables)+len(floor.Cables)/8)
	rackName := map[string]string{}
	out.Racks = append(out.Racks, floor.Racks...)
	for _, r := range w.dspec.Racks {
		old := r.Name
		r.Name = uniq(r.Name, "rack:")
		r.Key = r.Name
		rackName[old] = r.Name
		out.Racks = append(out.Racks, r)
	}

	w.names = make([]string, len(dg.Devices))
	w.nodeNames = make([]string, len(de.nodes))
	for n := range de.nodes {
		if fn := m.nodeRev[n]; fn >= 0 {
			w.nodeNames[n] = fl.nodes[fn].name
		} else {
			w.nodeNames[n] = uniq(de.nodes[n].name, "")
		}
	}
	for _, s := range w.dspec.Switches {
		d, _ := dg.Lookup(s.Name)
		if fd := m.rev[d]; fd >= 0 {
			fs := floor.Switches[fg.Devices[fd].Spec]
			w.names[d] = fs.Name
			fs.Role, fs.Group = s.Role, s.Group
			fs.Ref = fabric.Ref{Key: fs.Name, Origin: OriginAsBuilt}
			out.Switches = append(out.Switches, fs)
			continue
		}
		s.Name = uniq(s.Name, "")
		w.names[d] = s.Name
		s.Rack, s.GUID = rackName[s.Rack], guid(s.GUID)
		s.Key = s.Name
		out.Switches = append(out.Switches, s)
	}
	for i, n := range w.dspec.Nodes {
		if fn := m.nodeRev[i]; fn >= 0 {
			fnode := floor.Nodes[fl.nodes[fn].spec]
			fnode.Ref = fabric.Ref{Key: fnode.Name, Origin: OriginAsBuilt}
			out.Nodes = append(out.Nodes, fnode)
			continue
		}
		n.Name = w.nodeNames[i]
		n.Rack = rackName[n.Rack]
		n.Key = n.Name
		out.Nodes = append(out.Nodes, n)
	}
	nodeIdx := map[string]int{}
	for i := range de.nodes {
		nodeIdx[de.nodes[i].name] = i
	}
	for _, h := range w.dspec.HCAs {
		d, _ := dg.Lookup(h.Name)
		if fd := m.rev[d]; fd >= 0 {
			fh := floor.HCAs[fg.Devices[fd].Spec]
			fh.Rail = h.Rail
			fh.Ref = fabric.Ref{Key: fh.Name, Origin: OriginAsBuilt}
			w.names[d] = fh.Name
			out.HCAs = append(out.HCAs, fh)
			continue
		}
		dev := h.Device
		if x, ok := m.sigmaInv[dev]; ok {
			dev = x
		}
		h.Node = w.nodeNames[nodeIdx[h.Node]]
		h.Device = dev
		h.Name = fabric.HCAName(h.Node, dev)
		h.PortGUID = guid(h.PortGUID)
		h.Key = h.Name
		w.names[d] = h.Name
		out.HCAs = append(out.HCAs, h)
	}
	// The generator's groups (the scheduler's blocks, the diagram's folds) under the fitted names.
	if w.dspec.Groups != nil {
		out.Groups = make(map[string]string, len(w.dspec.Groups))
		for _, s := range w.dspec.Switches {
			if g, ok := w.dspec.Groups[s.Name]; ok {
				d, _ := dg.Lookup(s.Name)
				out.Groups[w.names[d]] = g
			}
		}
		for i, n := range w.dspec.Nodes {
			if g, ok := w.dspec.Groups[n.Name]; ok {
				out.Groups[w.nodeNames[i]] = g
			}
		}
	}
	if t := w.dspec.Torus; t != nil {
		tl := &fabric.TorusLayout{Dims: t.Dims, Switches: make([]string, len(t.Switches))}
		for i, name := range t.Switches {
			d, _ := dg.Lookup(name)
			tl.Switches[i] = w.names[d]
		}
		out.Torus = tl
	}

	linkOf := minusOnes(len(w.dspec.Cables))
	for li := range dg.Links {
		linkOf[dg.Links[li].Cable] = int32(li)
	}
	for ci, dc := range w.dspec.Cables {
		li := linkOf[ci]
		if li < 0 {
			continue
		}
		l := &dg.Links[li]
		fli := designFrom[li]
		if fli >= 0 && !designMoved[li] {
			fc := floor.Cables[fg.Links[fli].Cable]
			fc.Ref = fabric.Ref{Key: orStr(fc.Key, fc.A.String()), Origin: OriginAsBuilt}
			f.changes = append(f.changes, change{act: actKeep, floor: fg.Links[fli].Cable, fitted: len(out.Cables)})
			out.Cables = append(out.Cables, fc)
			continue
		}
		c := fabric.Cable{
			A: fabric.End{Device: w.names[l.A], Port: w.portA[li]}, B: fabric.End{Device: w.names[l.B], Port: w.portB[li]},
			Kind: dc.Kind, Ref: fabric.Ref{Origin: dc.Origin},
		}
		c.Key = c.A.String()
		if fli >= 0 {
			c.Origin = OriginAsBuilt
			f.changes = append(f.changes, change{act: actMove, floor: fg.Links[fli].Cable, fitted: len(out.Cables), stayA: moveStay[fli] == 1})
		} else {
			f.changes = append(f.changes, change{act: actAdd, floor: -1, fitted: len(out.Cables)})
		}
		out.Cables = append(out.Cables, c)
	}
	for i, a := range w.design.ApplianceList {
		if d, ok := dg.Lookup(a.Leaf); ok {
			a.Leaf = w.names[d]
		}
		a.LeafPort = w.appliancePorts[i]
		f.Appliances = append(f.Appliances, a)
	}
	inGraph := make([]bool, len(floor.Cables))
	for i := range fg.Links {
		inGraph[fg.Links[i].Cable] = true
		if keptBy[i] < 0 {
			f.changes = append(f.changes, change{act: actRemove, floor: fg.Links[i].Cable, fitted: -1})
		}
	}
	for ci := range floor.Cables {
		if !inGraph[ci] { // a cable the floor's own build left out (reported there)
			f.changes = append(f.changes, change{act: actRemove, floor: ci, fitted: -1})
		}
	}
	f.Spec = out
}

func orStr(v, d string) string {
	if v == "" {
		return d
	}
	return v
}
