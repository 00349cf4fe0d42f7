package bom

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
)

// Item categories, in the order the BOM lists them.
const (
	CategorySwitch      = "switch"
	CategoryNode        = "node"
	CategoryHCA         = "hca"
	CategoryTransceiver = "transceiver"
	CategoryCable       = "cable"
)

var categoryOrder = map[string]int{CategorySwitch: 0, CategoryNode: 1, CategoryHCA: 2, CategoryTransceiver: 3, CategoryCable: 4}

// Transceiver ends, as the catalog's `end` attribute spells them.
const (
	EndSwitch   = "switch"
	EndNodeTwin = "node-twin"
	EndHCA      = "hca"
)

// Item is one BOM line. Its JSON and attribute names are those of the `bom` output
// (fixed by the design guide): sku, description, quantity, unit_price, cost.
type Item struct {
	SKU         string   `json:"sku"`
	Description string   `json:"description"`
	Category    string   `json:"category"`
	Quantity    int      `json:"quantity"`
	UnitPrice   *float64 `json:"unit_price"` // nil: the catalog has no sourced price
	Cost        *float64 `json:"cost"`       // Quantity x UnitPrice; nil when unpriced
	PriceSource string   `json:"price_source,omitempty"`
}

// End is one end of a cabling-plan row.
type End struct {
	Device    string `json:"device"`
	Port      int    `json:"port"`
	Rack      string `json:"rack"`
	PositionU int    `json:"position_u"`
}

// Row is one logical link of the cabling plan. A twin-port copper cable carries two links, so
// its two rows share Bundle (the label of the first of them); fiber rows have no bundle.
type Row struct {
	Label   string  `json:"label"` // the lower-tier end, "gpu001/mlx5_0:1", "leaf01:33"
	A       End     `json:"a"`
	B       End     `json:"b"`
	Kind    string  `json:"kind"`
	LengthM float64 `json:"length_m"` // the standard length ordered; 0 when the run is unknown
	SKU     string  `json:"sku"`
	Bundle  string  `json:"bundle,omitempty"`
}

// Counts summarises the physical quantities.
type Counts struct {
	Switches           int `json:"switches"`
	Nodes              int `json:"nodes"`
	HCAs               int `json:"hcas"`   // compute HCAs in the fabric, ordered separately or not
	Links              int `json:"links"`  // logical links, graph and external
	Cables             int `json:"cables"` // physical cables (a twin copper cable carries 2 links)
	GraphCables        int `json:"graph_cables"`
	ExternalCables     int `json:"external_cables"`
	SwitchTransceivers int `json:"switch_transceivers"`
	NodeTransceivers   int `json:"node_transceivers"` // twin-port flat-top modules in node cages
	HCATransceivers    int `json:"hca_transceivers"`  // single-port modules (PCIe HCAs, appliances)
}

// BOM is a bill of materials with its cabling plan.
type BOM struct {
	Items     []Item   `json:"items"`
	TotalCost float64  `json:"total_cost"` // sum of priced items' cost
	Unpriced  []string `json:"unpriced"`   // SKUs without a sourced price, sorted
	Counts    Counts   `json:"counts"`
	Warnings  []string `json:"warnings"`
	Plan      []Row    `json:"-"` // the rows Counts counts, one per link; Cabling adds cages and parts
	// BeyondFloor is, for a design fitted to a floor, what it needs beyond the floor; nil
	// otherwise.
	BeyondFloor *Beyond `json:"beyond_floor,omitempty"`
}

// ExternalLink is a link from a device outside the graph (a fabric-manager appliance) to a
// switch port of the graph. Its own end takes a single-port transceiver when optical.
type ExternalLink struct {
	Label      string // e.g. "ufm01:1"
	Device     string
	Port       int
	Rack       string
	PositionU  int
	Switch     string
	SwitchPort int
	Kind       string  // "" = planner's choice
	LengthM    float64 // 0 = from rack placement
}

// Options extend FromGraph.
type Options struct {
	External []ExternalLink
	// Only, when set, counts only the items of the graph's elements whose Ref.Origin it is (the
	// floor's part of a design fitted to it, asbuilt.OriginAsBuilt): its switches, nodes, HCAs
	// and cables, and a transceiver in each cage with one of those cables. Kinds, lengths and
	// parts are still decided over every link, so each item is the one the whole design has
	// there, and the difference to the whole design's BOM is what it needs beyond them. External
	// links are never counted then.
	Only string
}

// FromGraph is the BOM of a built fabric graph: one item per SKU, the cabling plan, and the
// counts. Its rules are NVIDIA's: the cable-reach and copper rules of the LinkX documents (MCP4Y10
// and MCP7Y00 twin-port copper, MCA4J80 ACC to 5 m, MMA4Z00-NS and MMA4Z00-NS400 multimode
// transceivers with MFP7E10 fibre to 50 m, MMS4X00 single-mode), one transceiver per switch
// cage, per twin-port node cage and per other HCA port as DGX SuperPOD RA-11333-001 (Table 8)
// counts them; the package doc states each.
func FromGraph(g *fabric.Graph, cat *catalog.Catalog) BOM { return Build(g, cat, Options{}) }

func optical(kind string) bool { return kind == catalog.KindFiberMM || kind == catalog.KindFiberSM }

func copper(kind string) bool { return kind == catalog.KindDAC || kind == catalog.KindACC }

type endType uint8

const (
	endSwitchTwin endType = iota // a switch OSFP cage of two ports
	endNodeTwin                  // a node cage holding two single-port HCAs (DGX H100)
	endSingle                    // any other HCA port, or an external appliance port
)

type xend struct {
	device string
	port   int
	rack   string
	u      int
	place  fabric.Placement
	typ    endType
	cage   cageID // ends in the same cage share a transceiver
	// ports is how many ports the cage has (the catalog's PortsPerCage for a switch, 2 for a
	// node's twin-port cage, else 1): a module or copper cable plugged in serves that many links.
	ports int
	level int
	sw    bool
}

// cageID identifies an OSFP cage: kind 's' switch (idx = cage, 0-based), 'n' node with twin-port
// cages (idx = cage), 'h' HCA port (idx = port), 'x' external device port.
type cageID struct {
	kind byte
	name string
	idx  int
}

// bundleID identifies a twin-port copper cable: 't' straight between two cages, 's' splitter
// from one switch cage.
type bundleID struct {
	kind byte
	a, b cageID
}

type xlink struct {
	a, b     xend
	declKind string
	lengthM  float64
	known    bool // lengthM is a real run (declared or estimated)
	external bool
	counted  bool // its items count (Options.Only)
	// decided
	kind    string
	product *catalog.Cable
	stdLen  float64
	ok      bool
	bundle  bundleID
	bundled bool // one copper cable carries this link and the other links of its cage
}

type builder struct {
	g     *fabric.Graph
	cat   *catalog.Catalog
	racks map[string]*fabric.Rack
	links []xlink
	items map[[2]string]*Item
	warn  []string

	xcvrNames, cableNames []string // sorted catalog names, for deterministic picks
	products              map[string]*catalog.Cable
	only                  string // Options.Only
}

// newBuilder is a builder over g, its racks by name (the first of a repeated name); only is
// Options.Only. A nil graph or spec gives a builder with no racks, for Build's empty BOM.
func newBuilder(g *fabric.Graph, cat *catalog.Catalog, only string) *builder {
	b := &builder{g: g, cat: cat, racks: map[string]*fabric.Rack{}, items: map[[2]string]*Item{}, only: only}
	if g == nil || g.Spec == nil {
		return b
	}
	for i := range g.Spec.Racks {
		r := &g.Spec.Racks[i]
		if _, dup := b.racks[r.Name]; !dup {
			b.racks[r.Name] = r
		}
	}
	return b
}

// counts reports whether an element of this origin is counted (Options.Only).
func (b *builder) counts(origin string) bool { return b.only == "" || origin == b.only }

// productRef shares one copy of a cable product between the links that use it.
func (b *builder) productRef(c catalog.Cable) *catalog.Cable {
	if p, ok := b.products[c.Name]; ok {
		return p
	}
	if b.products == nil {
		b.products = map[string]*catalog.Cable{}
	}
	b.products[c.Name] = &c
	return &c
}

func (b *builder) warnf(format string, args ...any) {
	b.warn = append(b.warn, fmt.Sprintf(format, args...))
}

// Build is FromGraph with options (external links).
func Build(g *fabric.Graph, cat *catalog.Catalog, opts Options) BOM {
	b := newBuilder(g, cat, opts.Only)
	var out BOM
	if g == nil || g.Spec == nil || cat == nil {
		return out.finish(b)
	}
	b.hardware(&out.Counts)
	b.collect(opts.External)
	b.decide()
	out.Plan = b.plan(&out.Counts)
	b.transceivers(&out.Counts)
	return out.finish(b)
}

func (out BOM) finish(b *builder) BOM {
	for _, it := range b.items {
		if it.UnitPrice != nil {
			c := *it.UnitPrice * float64(it.Quantity)
			it.Cost = &c
			out.TotalCost += c
		}
		out.Items = append(out.Items, *it)
	}
	sortItems(out.Items)
	out.Unpriced = unpriced(out.Items)
	out.Warnings = b.warn
	if out.Warnings == nil {
		out.Warnings = []string{}
	}
	return out
}

func sortItems(items []Item) {
	sort.Slice(items, func(i, j int) bool {
		a, b := items[i], items[j]
		if categoryOrder[a.Category] != categoryOrder[b.Category] {
			return categoryOrder[a.Category] < categoryOrder[b.Category]
		}
		return a.SKU < b.SKU
	})
}

func unpriced(items []Item) []string {
	set := map[string]bool{}
	for _, it := range items {
		if it.UnitPrice == nil {
			set[it.SKU] = true
		}
	}
	out := sortedKeys(set)
	return out
}

// add counts one more of a SKU.
func (b *builder) add(category, sku, desc string, price *catalog.Price) {
	k := [2]string{category, sku}
	it := b.items[k]
	if it == nil {
		it = &Item{SKU: sku, Description: desc, Category: category}
		if price != nil {
			p := price.USD
			it.UnitPrice = &p
			it.PriceSource = price.Source
		}
		b.items[k] = it
	}
	it.Quantity++
}

func skuOr(sku, name string) string {
	if sku != "" {
		return sku
	}
	return name
}

// hardware counts switches, nodes and the HCAs that are ordered on their own.
func (b *builder) hardware(c *Counts) {
	g := b.g
	for i := range g.Devices {
		d := &g.Devices[i]
		if d.Kind != fabric.KindSwitch || !b.counts(g.Spec.Switches[d.Spec].Origin) {
			continue
		}
		m := b.cat.Switches[d.Model]
		b.add(CategorySwitch, skuOr(m.SKU, m.Name), m.Description, m.Price)
		c.Switches++
	}
	nodeModel := map[string]string{}
	var unknown []string // one warning for them all: a fleet of one unknown model is thousands of nodes
	defer func() {
		if len(unknown) > 0 {
			b.warnf("%d node(s) of a model not in the catalog, listed unpriced: %s", len(unknown), listed.First(unknown, listed.Few, ", "))
		}
	}()
	for _, n := range g.Spec.Nodes {
		if _, dup := nodeModel[n.Name]; dup {
			continue
		}
		nodeModel[n.Name] = n.Model
		if !b.counts(n.Origin) {
			continue
		}
		m, ok := b.cat.Nodes[n.Model]
		if !ok {
			b.add(CategoryNode, n.Model, "node model not in the catalog", nil)
			unknown = append(unknown, fmt.Sprintf("%s (%q)", n.Name, n.Model))
		} else {
			b.add(CategoryNode, skuOr(m.SKU, m.Name), m.Description, m.Price)
		}
		c.Nodes++
	}
	for i := range g.Devices {
		d := &g.Devices[i]
		if d.Kind != fabric.KindHCA || !b.counts(g.Spec.HCAs[d.Spec].Origin) {
			continue
		}
		c.HCAs++
		nm, ok := b.cat.Nodes[nodeModel[d.Node]]
		// A node sold as a complete system (a SKU of its own, DGX H100) ships with its compute
		// HCAs; an HCA of another model than the node's own is an added card.
		if ok && nm.SKU != "" && d.Model == nm.HCAModel {
			continue
		}
		m := b.cat.HCAs[d.Model]
		b.add(CategoryHCA, skuOr(m.SKU, m.Name), m.Description, m.Price)
	}
}

// collect turns graph links and external links into xlinks with their cage identities.
func (b *builder) collect(ext []ExternalLink) {
	g := b.g
	c := b.newCollector()
	b.links = make([]xlink, 0, len(g.Links)+len(ext))
	for _, l := range g.Links {
		b.links = append(b.links, c.link(l))
	}
	var stray []string // one warning for them all
	defer func() {
		if len(stray) > 0 {
			b.warnf("%d external link(s) name a switch that is not in the fabric, left out: %s", len(stray), listed.First(stray, listed.Few, ", "))
		}
	}()
	for _, x := range ext {
		di, ok := g.Lookup(x.Switch)
		if !ok || g.Devices[di].Kind != fabric.KindSwitch {
			stray = append(stray, fmt.Sprintf("%s (switch %q)", x.Label, x.Switch))
			continue
		}
		sw := c.end(di, x.SwitchPort)
		a := xend{device: x.Device, port: x.Port, rack: x.Rack, u: x.PositionU, typ: endSingle,
			cage: cageID{'x', x.Device, x.Port}, ports: 1, place: fabric.Placement{Rack: b.racks[x.Rack], PositionU: x.PositionU}}
		l := xlink{a: a, b: sw, declKind: x.Kind, lengthM: x.LengthM, known: x.LengthM > 0, external: true, counted: b.only == ""}
		if !l.known {
			if run, ok := fabric.RunLength(a.place, sw.place); ok {
				l.lengthM, l.known = run, true
			}
		}
		b.links = append(b.links, l)
	}
}

// collector makes the xlinks of graph links: their ends' cages and placement.
type collector struct {
	b *builder
	// twin holds the nodes with twin-port cages; ordinal is each HCA's ordinal within its
	// node, in device (Spec) order: HCAs 2c and 2c+1 share cage c of such a node.
	twin    map[string]bool
	ordinal []int
}

func (b *builder) newCollector() *collector {
	g := b.g
	c := &collector{b: b, twin: map[string]bool{}, ordinal: make([]int, len(g.Devices))}
	for _, n := range g.Spec.Nodes {
		if m, ok := b.cat.Nodes[n.Model]; ok && m.TwinPortCages {
			c.twin[n.Name] = true
		}
	}
	perNode := map[string]int{}
	for i := range g.Devices {
		if d := &g.Devices[i]; d.Kind == fabric.KindHCA {
			c.ordinal[i] = perNode[d.Node]
			perNode[d.Node]++
		}
	}
	return c
}

// end is port of device di as a cable end.
func (c *collector) end(di int32, port int) xend {
	b := c.b
	d := &b.g.Devices[di]
	e := xend{device: d.Name, port: port, rack: d.Rack, u: d.PositionU, level: d.Level, sw: d.Kind == fabric.KindSwitch}
	e.place = fabric.Placement{Rack: b.racks[d.Rack], PositionU: d.PositionU}
	switch {
	case d.Kind == fabric.KindSwitch:
		per := b.cat.Switches[d.Model].PortsPerCage()
		e.typ = endSwitchTwin
		if per == 1 {
			e.typ = endSingle
		}
		e.cage, e.ports = cageID{'s', d.Name, (port - 1) / per}, per
	case c.twin[d.Node] && d.Ports == 1:
		e.typ = endNodeTwin
		e.cage, e.ports = cageID{'n', d.Node, c.ordinal[di] / 2}, 2
	default:
		e.typ = endSingle
		e.cage, e.ports = cageID{'h', d.Name, port}, 1
	}
	return e
}

// link is graph link l as an xlink, not yet decided.
func (c *collector) link(l fabric.Link) xlink {
	a, z := c.end(l.A, l.PortA), c.end(l.B, l.PortB)
	// The row's A end is the lower-tier end (an HCA, then the lower switch level), as the
	// generator keys cables; equal levels keep the declared order.
	if z.level >= 0 && (a.level < 0 || z.level < a.level) {
		a, z = z, a
	}
	cb := c.b.g.Spec.Cables[l.Cable]
	return xlink{a: a, b: z, declKind: cb.Kind, lengthM: l.LengthM, known: l.LengthM > 0, counted: c.b.counts(cb.Origin)}
}

// decide picks kind, product and standard length for every link, bundling copper per cage.
func (b *builder) decide() {
	cageLinks := make(map[cageID][]int, 2*len(b.links))
	for i, l := range b.links {
		cageLinks[l.a.cage] = append(cageLinks[l.a.cage], i)
		cageLinks[l.b.cage] = append(cageLinks[l.b.cage], i)
	}
	// bundleOf returns the links a multi-port copper cable could carry together with link i (the
	// links of its cage), the cable ends ("switch-switch" straight, "switch-hca" splitter), the
	// ports of the cage(s) the cable plugs into, which the cable must carry (a twin-port cable in a
	// cage of 2, a quad in a cage of 4), and a key; ok is false when the cage pairing rules out
	// copper.
	bundleOf := func(i int) (members []int, endsKind string, ports int, key bundleID, ok bool) {
		l := b.links[i]
		twinA, twinB := l.a.typ != endSingle, l.b.typ != endSingle
		switch {
		case twinA && twinB:
			la, lb := cageLinks[l.a.cage], cageLinks[l.b.cage]
			// A straight cable's two plugs are alike: it joins cages of one size.
			if !sameSet(la, lb) || l.a.ports != l.b.ports {
				return nil, "", 0, bundleID{}, false
			}
			ka, kb := l.a.cage, l.b.cage
			if less(kb, ka) {
				ka, kb = kb, ka
			}
			return la, catalog.EndsSwitchSwitch, l.a.ports, bundleID{'t', ka, kb}, true
		case twinA != twinB:
			sw := l.a
			if !twinA {
				sw = l.b
			}
			if sw.typ != endSwitchTwin {
				return nil, "", 0, bundleID{}, false
			}
			members = cageLinks[sw.cage]
			for _, m := range members {
				o := b.links[m]
				if o.a.typ != endSingle && o.b.typ != endSingle {
					return nil, "", 0, bundleID{}, false
				}
			}
			return members, catalog.EndsSwitchHCA, sw.ports, bundleID{kind: 's', a: sw.cage}, true
		}
		return nil, "", 0, bundleID{}, false
	}
	decided := make([]bool, len(b.links))
	var uncounted []int
	defer func() { b.warnUncounted(uncounted) }()
	alone := map[string][]string{} // per declared kind, the links whose cage mates go elsewhere: one warning each
	defer func() {
		for _, k := range sortedKeys(alone) {
			b.warnf("%d link(s) are %s, but the other links of their cage go elsewhere: a copper cable that carries the whole cage cannot serve them, each counted as one cable of its own: %s",
				len(alone[k]), k, listed.First(alone[k], listed.Few, ", "))
		}
	}()
	for i := range b.links {
		if decided[i] {
			continue
		}
		l := &b.links[i]
		members, endsKind, cagePorts, key, bundleOK := bundleOf(i)
		kinds := catalog.PlannerKinds
		if l.declKind != "" {
			kinds = []string{l.declKind}
		}
		if bundleOK && l.known {
			// Copper only if every link of the bundle is undecided, has a known run and names
			// the same kind (or none).
			maxLen := 0.0
			for _, m := range members {
				o := b.links[m]
				if decided[m] || !o.known || o.declKind != l.declKind {
					bundleOK = false
					break
				}
				maxLen = max(maxLen, o.lengthM)
			}
			if bundleOK {
				for _, k := range kinds {
					if !copper(k) {
						continue
					}
					p, sl, found := b.cat.CableForCage(k, endsKind, cagePorts, maxLen)
					// A straight product cannot act as a splitter, nor the reverse; and a cable
					// plugged into a cage carries all its ports' links (CableForCage), so a
					// twin-port cable cannot serve a cage of 4 ports, nor a quad one of 2.
					if !found || (endsKind == catalog.EndsSwitchHCA) != (p.Ends == catalog.EndsSwitchHCA) {
						continue
					}
					for _, m := range members {
						o := &b.links[m]
						o.kind, o.product, o.stdLen, o.ok, o.bundle, o.bundled = k, b.productRef(p), sl, true, key, true
						decided[m] = true
					}
					break
				}
			}
			if decided[i] {
				continue
			}
		}
		decided[i] = true
		e := catalog.LinkEnds(l.a.sw, l.b.sw)
		if !l.known {
			k := catalog.KindFiberMM
			if l.declKind != "" {
				k = l.declKind
			}
			l.kind = k
			if b.cableNames == nil {
				b.cableNames = sortedKeys(b.cat.Cables)
			}
			for _, name := range b.cableNames {
				if c := b.cat.Cables[name]; c.Serves(k, e) {
					l.product, l.ok = b.productRef(c), true
					break
				}
			}
			if !l.ok {
				uncounted = append(uncounted, i)
			}
			continue
		}
		for _, k := range kinds {
			if copper(k) && l.declKind == "" {
				continue // undeclared copper only comes in whole bundles, handled above
			}
			if p, sl, found := b.cat.CableFor(k, e, l.lengthM); found {
				l.kind, l.product, l.stdLen, l.ok = k, b.productRef(p), sl, true
				break
			}
		}
		if !l.ok {
			uncounted = append(uncounted, i)
			l.kind = l.declKind
		}
		if l.declKind != "" && copper(l.declKind) && l.ok && l.product.Links > 1 {
			alone[l.declKind] = append(alone[l.declKind], fabric.CableLabel(l.a.end(), l.b.end()))
		}
	}
}

func sameSet(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[int]bool{}
	for _, v := range a {
		m[v] = true
	}
	for _, v := range b {
		if !m[v] {
			return false
		}
	}
	return true
}

func label(e xend) string { return e.end().String() }

// end is the fabric's end of e, whose String and CableLabel are the one spelling of labels.
func (e xend) end() fabric.End { return fabric.End{Device: e.device, Port: e.port} }

// plan writes one row per link and counts the cables: one per bundle, one per other link.
func (b *builder) plan(c *Counts) []Row {
	rows := make([]Row, 0, len(b.links))
	bundleLabel := map[bundleID]string{}
	bundleSeen := map[bundleID]bool{}
	for _, l := range b.links {
		if l.bundled {
			if _, ok := bundleLabel[l.bundle]; !ok {
				bundleLabel[l.bundle] = label(l.a)
			}
		}
	}
	for _, l := range b.links {
		r := Row{
			Label: label(l.a),
			A:     End{Device: l.a.device, Port: l.a.port, Rack: l.a.rack, PositionU: l.a.u},
			B:     End{Device: l.b.device, Port: l.b.port, Rack: l.b.rack, PositionU: l.b.u},
			Kind:  l.kind, LengthM: l.stdLen,
		}
		if l.counted {
			c.Links++
		}
		if l.ok {
			if l.known {
				r.SKU = l.product.SKU(l.stdLen)
			} else {
				r.SKU = l.product.Name
			}
		}
		count := l.ok && l.counted
		if l.bundled {
			r.Bundle = bundleLabel[l.bundle]
			count = count && !bundleSeen[l.bundle]
			bundleSeen[l.bundle] = bundleSeen[l.bundle] || l.counted
		}
		if count {
			desc := l.product.Description
			if l.known {
				desc += fmt.Sprintf(", %g m", l.stdLen)
			} else {
				desc += ", length to be determined (place both ends in racks or set length_m)"
			}
			b.add(CategoryCable, r.SKU, desc, l.product.Price)
			c.Cables++
			if l.external {
				c.ExternalCables++
			} else {
				c.GraphCables++
			}
		}
		rows = append(rows, r)
	}
	unknown := 0
	for _, l := range b.links {
		if !l.known {
			unknown++
		}
	}
	if unknown > 0 {
		b.warnf("%d links have no length (devices without rack placement and no length_m); their cables are listed by product line without a length", unknown)
	}
	return rows
}

// transceivers counts one module per cage (and medium) with at least one optical link.
func (b *builder) transceivers(c *Counts) {
	type key struct {
		cage  cageID
		media string
	}
	type use struct {
		typ     endType
		ports   int
		maxLen  float64 // over every link of the cage, counted or not: the module the design has
		counted bool
	}
	cages := map[key]*use{}
	var order []key
	for _, l := range b.links {
		if !l.ok || !optical(l.kind) {
			continue
		}
		for _, e := range []xend{l.a, l.b} {
			k := key{e.cage, l.kind}
			u := cages[k]
			if u == nil {
				u = &use{typ: e.typ, ports: e.ports}
				cages[k] = u
				order = append(order, k)
			}
			u.maxLen = max(u.maxLen, l.lengthM)
			u.counted = u.counted || l.counted
		}
	}
	b.mixedCages()
	missing := map[string]int{}
	for _, k := range order {
		u := cages[k]
		if !u.counted {
			continue
		}
		// A switch whose cages hold one port each counts as a single-port end.
		endName := map[endType]string{endSwitchTwin: EndSwitch, endNodeTwin: EndNodeTwin, endSingle: EndHCA}[u.typ]
		t, ok := b.transceiver(k.media, endName, u.ports, u.maxLen)
		if !ok {
			missing[fmt.Sprintf("%s for a %s end (a cage of %d port(s))", k.media, endName, u.ports)]++
			continue
		}
		b.add(CategoryTransceiver, skuOr(t.SKU, t.Name), t.Description, t.Price)
		switch endName {
		case EndSwitch:
			c.SwitchTransceivers++
		case EndNodeTwin:
			c.NodeTransceivers++
		default:
			c.HCATransceivers++
		}
	}
	for _, what := range sortedKeys(missing) {
		b.warnf("no %s transceiver in the catalog: %d not counted", what, missing[what])
	}
}

// transceiver picks the module of the medium and end type that serves a cage of ports links (one
// module per cage: a twin-port module in a cage of 2, a 4-link one in a cage of 4) with the
// shortest reach that covers the run (ties by name).
func (b *builder) transceiver(media, end string, ports int, lengthM float64) (catalog.Transceiver, bool) {
	var best catalog.Transceiver
	found := false
	if b.xcvrNames == nil {
		b.xcvrNames = sortedKeys(b.cat.Transceivers)
	}
	for _, name := range b.xcvrNames {
		t := b.cat.Transceivers[name]
		if t.Media != media || t.End != end || t.Links != ports || t.ReachM < lengthM {
			continue
		}
		if !found || t.ReachM < best.ReachM {
			best, found = t, true
		}
	}
	return best, found
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// mixedCages warns about twin-port cages whose two links want different things (copper and
// fiber, or two media): one cage takes one module or one cable, so such a cage cannot be built
// as declared. The planner never creates one; declared kinds can.
func (b *builder) mixedCages() {
	type uses struct {
		first string
		all   map[string]bool // set only once a second, different use appears
	}
	what := make(map[cageID]*uses, 2*len(b.links))
	var conflicts []cageID
	for _, l := range b.links {
		if !l.ok {
			continue
		}
		use := l.kind
		if !optical(l.kind) {
			use = l.kind + " cable " + label(l.a)
			if l.bundled {
				use = l.kind + " twin-port cable"
			}
		}
		for _, e := range []xend{l.a, l.b} {
			if e.typ == endSingle {
				continue
			}
			u := what[e.cage]
			switch {
			case u == nil:
				what[e.cage] = &uses{first: use}
			case u.all == nil && u.first != use:
				u.all = map[string]bool{u.first: true, use: true}
				conflicts = append(conflicts, e.cage)
			case u.all != nil:
				u.all[use] = true
			}
		}
	}
	// One warning for the fabric, not one per cage: the same declaration usually repeats on
	// every cage of a tier.
	if len(conflicts) == 0 {
		return
	}
	var ex []string
	for _, c := range conflicts[:min(3, len(conflicts))] {
		ex = append(ex, fmt.Sprintf("cage %d of %s (%s)", c.idx+1, c.name, strings.Join(sortedKeys(what[c].all), ", ")))
	}
	more := ""
	if len(conflicts) > len(ex) {
		more = fmt.Sprintf(" and %d more", len(conflicts)-len(ex))
	}
	b.warnf("%d cages hold links that one module or cable cannot serve together: %s%s; one OSFP cage takes one transceiver or one cable plug (declare the same optical kind on every link of a cage, or a copper cable that carries them all)",
		len(conflicts), strings.Join(ex, ", "), more)
}

// warnUncounted says once per cable kind which links the BOM could not count, and why: the
// catalog has no cable of that kind at all (the built-in one has no AOC: no NDR OSFP AOC for
// Quantum-2 appears in NVIDIA's LinkX documents), or none that reaches the run.
func (b *builder) warnUncounted(idx []int) {
	if len(idx) == 0 {
		return
	}
	byKind := map[string][]int{}
	for _, i := range idx {
		byKind[b.links[i].declKind] = append(byKind[b.links[i].declKind], i)
	}
	for _, k := range sortedKeys(byKind) {
		ls := byKind[k]
		l := &b.links[ls[0]]
		ex := fabric.CableLabel(l.a.end(), l.b.end())
		if l.known {
			ex += fmt.Sprintf(" (%.1f m)", l.lengthM)
		}
		n := fmt.Sprintf("%d link(s)", len(ls))
		switch {
		case k == "":
			b.warnf("%s: no cable in the catalog reaches the run, e.g. %s; not counted", n, ex)
		case !b.hasKind(k):
			b.warnf("%s name cable kind %q, but the catalog has no %s cable (the built-in catalog lists none: no NDR OSFP %s part appears in the public sources), e.g. %s; not counted. Add the part you buy with catalog_files, or use kind %q (transceivers and multimode fiber, up to 50 m)",
				n, k, k, strings.ToUpper(k), ex, catalog.KindFiberMM)
		default:
			b.warnf("%s: no %s cable in the catalog reaches the run, e.g. %s; not counted", n, k, ex)
		}
	}
}

func (b *builder) hasKind(k string) bool {
	for _, c := range b.cat.Cables {
		if c.Kind == k {
			return true
		}
	}
	return false
}

func less(a, b cageID) bool {
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	if a.name != b.name {
		return a.name < b.name
	}
	return a.idx < b.idx
}
