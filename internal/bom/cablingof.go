package bom

import (
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Cabler answers Cabling's rows for a few links of a graph without planning the whole fabric:
// gpucluster_cable_validation places only the links its punch list names, and a 2,048-node
// fabric's whole plan (49,152 rows) costs a fifth of a second.
//
// A link's row depends on the links it shares a cage with and on nothing else: decide bundles
// copper over a cage's links (a twin-port cable between two cages, a splitter from one), the
// transceiver of a cage is chosen for the cage's longest run, and a bundle is labelled by its
// first link in plan order, which is in that cage. So the rows of the links that share cages,
// transitively (a component), are Cabling's rows when that component is decided alone in the
// plan's order, and Rows decides one component at a time. Graph links only: external links
// (Options.External) are not placed here.
type Cabler struct {
	b *builder
	c *collector
	// nodeHCAs lists each node's HCAs (device indexes), for the links of a node's cage.
	nodeHCAs map[string][]int32
	x        map[int]xlink // the xlinks made so far, by link index
	done     map[int]CableRow
	comp     map[int][]int // each planned link's component
}

// NewCabler prepares a Cabler for g; nil when Cabling would have no rows.
func NewCabler(g *fabric.Graph, cat *catalog.Catalog) *Cabler {
	if g == nil || g.Spec == nil || cat == nil {
		return nil
	}
	b := newBuilder(g, cat, "")
	cb := &Cabler{b: b, c: b.newCollector(), nodeHCAs: map[string][]int32{}, x: map[int]xlink{}, done: map[int]CableRow{}, comp: map[int][]int{}}
	for i := range g.Devices {
		if d := &g.Devices[i]; d.Kind == fabric.KindHCA {
			cb.nodeHCAs[d.Node] = append(cb.nodeHCAs[d.Node], int32(i))
		}
	}
	return cb
}

// Row is Cabling's row of graph link li (as Cabling(g, cat, Options{})[li]); ok is false for an
// index that is not a link. It plans the links that share a cage with li, transitively, once.
func (cb *Cabler) Row(li int) (CableRow, bool) {
	if cb == nil || li < 0 || li >= len(cb.b.g.Links) {
		return CableRow{}, false
	}
	if r, ok := cb.done[li]; ok {
		return r, true
	}
	comp := cb.component(li)
	b := cb.b
	b.links = b.links[:0]
	for _, i := range comp {
		b.links = append(b.links, cb.x[i])
	}
	b.decide()
	rows := b.cableRows(b.plan(&Counts{}), cb.c)
	for k, i := range comp {
		cb.done[i], cb.comp[i] = rows[k], comp
	}
	b.links, b.warn = nil, nil
	return cb.done[li], true
}

// component is the links that share a cage with li, transitively, in plan (link) order.
func (cb *Cabler) component(li int) []int {
	seen := map[int]bool{li: true}
	cages := map[cageID]bool{}
	queue := []int{li}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		l := cb.xlink(i)
		for _, cage := range []cageID{l.a.cage, l.b.cage} {
			if cages[cage] {
				continue
			}
			cages[cage] = true
			for _, j := range cb.cageLinks(cage) {
				if !seen[j] {
					seen[j] = true
					queue = append(queue, j)
				}
			}
		}
	}
	out := make([]int, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	sort.Ints(out)
	return out
}

func (cb *Cabler) xlink(i int) xlink {
	l, ok := cb.x[i]
	if !ok {
		l = cb.c.link(cb.b.g.Links[i])
		cb.x[i] = l
	}
	return l
}

// cageLinks is the links with an end in cage: among the links of the devices that can hold it
// (the switch, the node's HCAs, the HCA), those whose end there collect places in it.
func (cb *Cabler) cageLinks(cage cageID) []int {
	g := cb.b.g
	var devs []int32
	switch cage.kind {
	case 'n':
		devs = cb.nodeHCAs[cage.name]
	default:
		if d, ok := g.Lookup(cage.name); ok {
			devs = []int32{d}
		}
	}
	var out []int
	for _, d := range devs {
		for _, li := range g.LinksOf(d) {
			l := cb.xlink(int(li))
			if l.a.cage == cage || l.b.cage == cage {
				out = append(out, int(li))
			}
		}
	}
	return out
}

// Bundle is the links whose rows share li's Bundle (one multi-link copper cable), li among them,
// in plan order; nil when li's row has none.
func (cb *Cabler) Bundle(li int) []int {
	r, ok := cb.Row(li)
	if !ok || r.Bundle == "" {
		return nil
	}
	var out []int
	for _, i := range cb.comp[li] { // a bundle's links share its cages
		if cb.done[i].Bundle == r.Bundle {
			out = append(out, i)
		}
	}
	return out
}

// CageLinks is the links with an end in twin-port cage `cage` (numbered as CableEnd.Cage) of box,
// a switch or a node (an end there with a Split), in plan order.
func (cb *Cabler) CageLinks(box string, cage int) []int {
	if cb == nil {
		return nil
	}
	g := cb.b.g
	devs := cb.nodeHCAs[box]
	if d, ok := g.Lookup(box); ok {
		devs = []int32{d}
	}
	var out []int
	seen := map[int32]bool{}
	for _, d := range devs {
		for _, li := range g.LinksOf(d) {
			if seen[li] {
				continue
			}
			seen[li] = true
			r, _ := cb.Row(int(li))
			for _, e := range []CableEnd{r.A, r.B} {
				if e.Device == box && e.Cage == cage && e.Split > 0 {
					out = append(out, int(li))
					break
				}
			}
		}
	}
	sort.Ints(out)
	return out
}
