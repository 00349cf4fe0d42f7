package firstlight

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// locator places design ends on the floor of the hall: the cabling plan's ends (internal/bom's
// Cabling: rack, unit, cage and split, by the QM9700 and DGX numbering bom documents) and, for a
// port the plan leaves free, the same numbering from the device's place and model. It plans
// only the links a row asks about (bom.Cabler): a punch list names a few links of a fabric of
// tens of thousands.
type locator struct {
	dg    *fabric.Graph
	cat   *catalog.Catalog
	cab   *bom.Cabler
	link  map[fabric.End]int // design end -> its link (the plan's row)
	racks map[string]fabric.Rack
	// floorBox is the floor's own name of a design switch or node (Match reversed), so a row
	// also names the box as the site labels it.
	floorBox map[string]string
}

// newLocator places the ends of dg; link maps each design end to its link index.
func newLocator(dg *fabric.Graph, cat *catalog.Catalog, link map[fabric.End]int) *locator {
	l := &locator{dg: dg, cat: cat, cab: bom.NewCabler(dg, cat), link: link, racks: map[string]fabric.Rack{}}
	for _, r := range dg.Spec.Racks {
		l.racks[r.Name] = r
	}
	return l
}

// row is the cabling plan's row of design link li.
func (l *locator) row(li int) bom.CableRow {
	r, _ := l.cab.Row(li)
	return r
}

// end is the plan's end at design end e, if a link holds e: the row's end whose device (the
// HCA at an HCA end) and port are e's.
func (l *locator) end(e fabric.End) (bom.CableEnd, bool) {
	li, ok := l.link[e]
	if !ok {
		return bom.CableEnd{}, false
	}
	r := l.row(li)
	for _, ce := range []bom.CableEnd{r.A, r.B} {
		name := ce.Device
		if ce.HCA != "" {
			name = ce.HCA
		}
		if name == e.Device && ce.Port == e.Port {
			return ce, true
		}
	}
	return bom.CableEnd{}, false
}

// hcaEnd is a plan's end of HCA d (of its last link in plan order), for a port of it that
// holds no link: the HCA's cage is the same.
func (l *locator) hcaEnd(d int32) (bom.CableEnd, bool) {
	ls := l.dg.LinksOf(d)
	if len(ls) == 0 {
		return bom.CableEnd{}, false
	}
	last := ls[0]
	for _, li := range ls {
		last = max(last, li)
	}
	r := l.row(int(last))
	for _, ce := range []bom.CableEnd{r.A, r.B} {
		if ce.HCA == l.dg.Devices[d].Name {
			return ce, true
		}
	}
	return bom.CableEnd{}, false
}

func (l *locator) whereOf(e bom.CableEnd, end string) Where {
	r := l.racks[e.Rack]
	return Where{End: end, Box: e.Device, Rack: e.Rack, Row: r.Row, Pos: r.Position, U: e.U, Cage: e.Cage, Split: e.Split,
		Floor: l.floorName(e.Device)}
}

// floorName is the floor's name of a design box when it differs from the design's.
func (l *locator) floorName(box string) string {
	if f := l.floorBox[box]; f != box {
		return f
	}
	return ""
}

// at places a design-named end.
func (l *locator) at(e fabric.End) Where {
	if ce, ok := l.end(e); ok {
		return l.whereOf(ce, e.String())
	}
	d, ok := l.dg.Lookup(e.Device)
	if !ok {
		return Where{End: e.String(), Box: e.Device}
	}
	dev := &l.dg.Devices[d]
	if dev.Kind == fabric.KindHCA {
		if ce, ok := l.hcaEnd(d); ok {
			ce.Port = e.Port
			return l.whereOf(ce, e.String())
		}
		w := l.box(dev.Node)
		w.End = e.String()
		return w
	}
	ce := bom.CableEnd{Device: dev.Name, Port: e.Port, Rack: dev.Rack, U: dev.PositionU, Cage: e.Port}
	if m, ok := l.cat.Switches[dev.Model]; ok && m.PortsPerCage() > 1 {
		per := m.PortsPerCage()
		ce.Cage, ce.Split = (e.Port-1)/per+1, (e.Port-1)%per+1
	}
	return l.whereOf(ce, e.String())
}

// atMapped places an end that may be on a floor device the design does not have.
func (l *locator) atMapped(e fabric.End, mapped bool) Where {
	if !mapped {
		return Where{End: e.String(), Box: e.Device}
	}
	return l.at(e)
}

// box places a switch or node.
func (l *locator) box(name string) Where {
	w := Where{End: name, Box: name}
	rack, u := "", 0
	if d, ok := l.dg.Lookup(name); ok {
		rack, u = l.dg.Devices[d].Rack, l.dg.Devices[d].PositionU
	} else if n := l.dg.Spec.NodeNamed(name); n != nil {
		rack, u = n.Rack, n.PositionU
	}
	r := l.racks[rack]
	w.Rack, w.Row, w.Pos, w.U, w.Floor = rack, r.Row, r.Position, u, l.floorName(name)
	return w
}

// mates are the design links, other than the row's own, that go down while a technician works at
// these ends: those with an end in the same twin-port cage (one transceiver, or one twin
// connector, serves the cage) and those on the same multi-link copper cable (bom's cage mates).
func (l *locator) mates(ends []fabric.End, own []int) []string {
	skip := map[int]bool{}
	for _, i := range own {
		skip[i] = true
	}
	seen := map[int]bool{}
	var out []int
	add := func(i int) {
		if !skip[i] && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	for _, e := range ends {
		w := l.at(e)
		if w.Split > 0 {
			for _, i := range l.cab.CageLinks(w.Box, w.Cage) {
				add(i)
			}
		}
		if i, ok := l.link[e]; ok {
			for _, j := range l.cab.Bundle(i) {
				add(j)
			}
		}
	}
	sort.Ints(out)
	labels := make([]string, len(out))
	for k, i := range out {
		labels[k] = bom.FullLabel(l.row(i))
	}
	return labels
}

// String is the end as a technician walks to it: "rack01 U40 leaf01 cage 2 split 1 (leaf01:3)".
func (w Where) String() string {
	var b strings.Builder
	if w.Rack != "" {
		b.WriteString(w.Rack)
		if w.U > 0 {
			fmt.Fprintf(&b, " U%d", w.U)
		}
		b.WriteString(" ")
	}
	b.WriteString(w.Box)
	if w.Floor != "" {
		fmt.Fprintf(&b, " [%s on the floor]", w.Floor)
	}
	if w.Cage > 0 {
		if w.Split > 0 {
			fmt.Fprintf(&b, " cage %d split %d", w.Cage, w.Split)
		} else {
			fmt.Fprintf(&b, " cage %d", w.Cage)
		}
	}
	if w.End != w.Box {
		fmt.Fprintf(&b, " (%s)", w.End)
	}
	return b.String()
}
