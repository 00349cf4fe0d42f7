package firstlight

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// locator places design ends on the floor of the hall: the cabling plan's ends (internal/bom's
// Cabling: rack, unit, cage and split, by the QM9700 and DGX numbering bom documents) and, for a
// port the plan leaves free, the same numbering from the device's place and model.
type locator struct {
	dg     *fabric.Graph
	cat    *catalog.Catalog
	rows   []bom.CableRow // one per design link, in the graph's link order
	end    map[fabric.End]bom.CableEnd
	link   map[fabric.End]int      // design end -> its row
	hca    map[string]bom.CableEnd // an HCA's cage (any of its ends)
	racks  map[string]fabric.Rack
	cage   map[[2]string][]int // box, cage -> design links with an end in that twin-port cage
	bundle map[string][]int
	// floorBox is the floor's own name of a design switch or node (Match reversed), so a row
	// also names the box as the site labels it.
	floorBox map[string]string
}

func newLocator(dg *fabric.Graph, cat *catalog.Catalog) *locator {
	l := &locator{dg: dg, cat: cat, rows: bom.Cabling(dg, cat, bom.Options{}), end: map[fabric.End]bom.CableEnd{}, link: map[fabric.End]int{},
		hca: map[string]bom.CableEnd{}, racks: map[string]fabric.Rack{}, cage: map[[2]string][]int{}, bundle: map[string][]int{}}
	for _, r := range dg.Spec.Racks {
		l.racks[r.Name] = r
	}
	for i, r := range l.rows {
		if i >= len(dg.Links) {
			break // external links (appliances) are not graph links
		}
		for _, e := range []bom.CableEnd{r.A, r.B} {
			name := e.Device
			if e.HCA != "" {
				name = e.HCA
				l.hca[e.HCA] = e
			}
			l.end[fabric.End{Device: name, Port: e.Port}] = e
			l.link[fabric.End{Device: name, Port: e.Port}] = i
			if e.Split > 0 {
				k := [2]string{e.Device, strconv.Itoa(e.Cage)}
				l.cage[k] = append(l.cage[k], i)
			}
		}
		if r.Bundle != "" {
			l.bundle[r.Bundle] = append(l.bundle[r.Bundle], i)
		}
	}
	return l
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
	if ce, ok := l.end[e]; ok {
		return l.whereOf(ce, e.String())
	}
	d, ok := l.dg.Lookup(e.Device)
	if !ok {
		return Where{End: e.String(), Box: e.Device}
	}
	dev := &l.dg.Devices[d]
	if dev.Kind == fabric.KindHCA {
		if ce, ok := l.hca[dev.Name]; ok {
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
			for _, i := range l.cage[[2]string{w.Box, strconv.Itoa(w.Cage)}] {
				add(i)
			}
		}
		if i, ok := l.link[e]; ok && l.rows[i].Bundle != "" {
			for _, j := range l.bundle[l.rows[i].Bundle] {
				add(j)
			}
		}
	}
	sort.Ints(out)
	labels := make([]string, len(out))
	for k, i := range out {
		labels[k] = bom.FullLabel(l.rows[i])
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
