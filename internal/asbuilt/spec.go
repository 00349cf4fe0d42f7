package asbuilt

import (
	"fmt"

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
	// A floor with no rack data (what discovery reads) gets no racks or units invented for
	// its new devices: the user gives them, or they stay unknown like the floor's.
	noRacks := len(floor.Racks) == 0
	for _, sw := range floor.Switches {
		if sw.Rack != "" {
			noRacks = false
		}
	}
	for _, n := range floor.Nodes {
		if n.Rack != "" {
			noRacks = false
		}
	}
	if noRacks {
		out.Racks = nil
	}
	swNames, ndNames := m.floorNames(w.design.Params)
	for _, r := range w.dspec.Racks {
		if noRacks {
			break
		}
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
		} else if name, ok := ndNames[int32(n)]; ok {
			w.nodeNames[n] = uniq(name, "")
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
		if name, ok := swNames[d]; ok {
			s.Name = name
		}
		s.Name = uniq(s.Name, "")
		w.names[d] = s.Name
		s.Rack, s.GUID = rackName[s.Rack], guid(s.GUID)
		if noRacks {
			s.PositionU = 0
		}
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
		if noRacks {
			n.PositionU = 0
		}
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
