package fabric

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// Build assembles the graph from a Spec and checks what no single resource can see: names and
// ports across resources, speeds, reach, racks, partitions and connectivity. Problems come back in
// a stable order (the order of the Spec). Cables with errors are left out of the graph.
//
// Levels, and the roles of switches that declare none, come from one breadth-first search from
// every HCA at once (E. F. Moore, "The shortest path through a maze", 1959): the tiers of a fat
// tree counted from its endpoints (C. E. Leiserson, IEEE Trans. Computers C-34(10), 1985,
// doi:10.1109/TC.1985.6312192). A cable's reach is held against its kind's reach_m in the
// catalog (from each part's NVIDIA LinkX document, catalog.hcl) on the run RunLength estimates
// from the racks.
func Build(spec *Spec, cat *catalog.Catalog) (*Graph, []Problem) {
	n := len(spec.Switches) + len(spec.HCAs)
	b := builder{spec: spec, cat: cat, g: &Graph{
		Spec:    spec,
		Devices: make([]Device, 0, n),
		Links:   make([]Link, 0, len(spec.Cables)),
		index:   make(map[string]int32, n),
	}}
	b.attributes()
	b.racks()
	b.switches()
	b.nodes()
	b.hcas()
	b.cables()
	b.adjacency()
	b.levels()
	b.checkRoles()
	b.inferRoles()
	b.rackBudgets()
	b.partitions()
	b.connectivity()
	return b.g, b.problems
}

type builder struct {
	spec     *Spec
	cat      *catalog.Catalog
	g        *Graph
	problems []Problem

	rackByName map[string]*Rack
	nodeByName map[string]int
	// leftOut holds the names of devices left out of the graph for a problem already reported
	// (an unknown model, an unknown node): cables and partition members that name them are not
	// reported again, so one unknown model is one error, not one per cable.
	leftOut map[string]bool
	// used[portBase[d]+port-1] = 1 + index of the cable that took the port (0: free). One flat
	// table instead of a map per device: Build runs on every plan of fabrics with 200,000 ports.
	used     []int32
	portBase []int32
	top      int // the highest level (levels)
}

func (b *builder) add(rule string, sev Severity, path Path, format string, args ...any) {
	b.problems = append(b.problems, Problem{Rule: rule, Severity: sev, Path: path, Message: fmt.Sprintf(format, args...)})
}

// at is the path of an element of the spec (see Spec.PathOf).
func (b *builder) at(list string, i int, attrs ...string) Path {
	return b.spec.PathOf(list, i, attrs...)
}

func (b *builder) racks() {
	b.rackByName = make(map[string]*Rack, len(b.spec.Racks))
	for i := range b.spec.Racks {
		r := &b.spec.Racks[i]
		if _, dup := b.rackByName[r.Name]; dup {
			b.add(RuleDuplicateName, Error, b.at("racks", i, "name"), "rack name %q is used twice; every rack needs a unique name", r.Name)
			continue
		}
		b.rackByName[r.Name] = r
	}
}

func (b *builder) rackOf(list string, i int, name string) {
	if name == "" || len(b.spec.Racks) == 0 {
		return
	}
	if _, ok := b.rackByName[name]; !ok {
		b.add(RuleUnknownRack, Error, b.at(list, i, "rack"), "rack %q is not among the fabric's racks (%s)", name, quoteSome(sortedNames(b.rackByName), 8))
	}
}

func (b *builder) addDevice(d Device, list string, i int) bool {
	if _, dup := b.g.index[d.Name]; dup {
		b.add(RuleDuplicateName, Error, b.at(list, i, "name"), "device name %q is already used by another switch or HCA; names must be unique in the fabric", d.Name)
		return false
	}
	b.g.index[d.Name] = int32(len(b.g.Devices))
	b.g.Devices = append(b.g.Devices, d)
	return true
}

func (b *builder) switches() {
	for i, s := range b.spec.Switches {
		m, ok := b.cat.Switches[s.Model]
		if !ok {
			b.leaveOut(s.Name)
			b.add(RuleUnknownModel, Error, b.at("switches", i, "model"), "unknown switch model %q; the catalog has %s", s.Model, quoteSome(b.cat.SwitchNames(), 20))
			continue
		}
		b.rackOf("switches", i, s.Rack)
		if b.addDevice(Device{
			Name: s.Name, Kind: KindSwitch, Model: s.Model, Ports: m.Ports, RateGbps: m.PortRateGbps,
			Role: s.Role, Declared: s.Role != "", Rack: s.Rack, PositionU: s.PositionU, GUID: s.GUID,
			Group: s.Group, Rail: -1, Level: -1, Spec: i,
		}, "switches", i) {
			b.g.numSwitches++
		}
	}
}

func (b *builder) nodes() {
	b.nodeByName = make(map[string]int, len(b.spec.Nodes))
	for i, n := range b.spec.Nodes {
		if _, dup := b.nodeByName[n.Name]; dup {
			b.add(RuleDuplicateName, Error, b.at("nodes", i, "name"), "node name %q is used twice; every node needs a unique name", n.Name)
			continue
		}
		// Switches and nodes share one namespace wherever the fabric is written down: Slurm's
		// topology.conf (SwitchName= and Nodes= read the same host names), OpenSM's node
		// descriptions and node-name-map, the diagram.
		if d, isDev := b.g.index[n.Name]; isDev {
			b.add(RuleDuplicateName, Error, b.at("nodes", i, "name"), "node name %q is already the name of switch %q; switches and nodes share one namespace (Slurm's topology.conf, OpenSM's node descriptions): rename one of them", n.Name, b.g.Devices[d].Name)
		}
		if _, ok := b.cat.Nodes[n.Model]; !ok {
			b.add(RuleUnknownModel, Error, b.at("nodes", i, "model"), "unknown node model %q; the catalog has %s", n.Model, quoteSome(b.cat.NodeNames(), 20))
		}
		b.rackOf("nodes", i, n.Rack)
		b.nodeByName[n.Name] = i
	}
}

func (b *builder) hcas() {
	perNode := map[string]int{}
	device := map[string]int{} // "<node>/<device>" -> the HCA that is that device
	for i, h := range b.spec.HCAs {
		if h.Node != "" && h.Device != "" {
			key := HCAName(h.Node, h.Device)
			if j, dup := device[key]; dup {
				b.add(RuleHCADevice, Error, b.at("hcas", i, "device"), "HCA %q is device %s of node %s, which HCA %q already is: one device is one HCA. Give this HCA the device it is (its name says %q), or remove one of the two",
					h.Name, h.Device, h.Node, b.spec.HCAs[j].Name, deviceOfName(h.Name))
			} else {
				device[key] = i
			}
		}
		ni, ok := b.nodeByName[h.Node]
		if !ok {
			b.leaveOut(h.Name)
			b.add(RuleUnknownNode, Error, b.at("hcas", i, "node"), "HCA %q is on node %q, which is not among the fabric's nodes", h.Name, h.Node)
			continue
		}
		node := b.spec.Nodes[ni]
		modelName := h.Model
		nm, nodeKnown := b.cat.Nodes[node.Model]
		if modelName == "" && nodeKnown {
			modelName = nm.HCAModel
		}
		m, ok := b.cat.HCAs[modelName]
		if !ok {
			b.leaveOut(h.Name) // an unknown HCA model, or the node's unknown model, is reported once
			if h.Model != "" {
				b.add(RuleUnknownModel, Error, b.at("hcas", i, "model"), "unknown HCA model %q; the catalog has %s", h.Model, quoteSome(b.cat.HCANames(), 20))
			}
			continue
		}
		if nodeKnown {
			limit := node.ComputeHCAs
			if limit == 0 {
				limit = nm.ComputeHCAs
			}
			perNode[h.Node]++
			if perNode[h.Node] == limit+1 {
				b.add(RuleHCACount, Error, b.at("hcas", i, "node"), "node %q (%s) holds %d compute HCAs; this is one more. Raise the node's compute_hcas or move the HCA", h.Node, node.Model, limit)
			}
		}
		b.addDevice(Device{
			Name: h.Name, Kind: KindHCA, Model: modelName, Ports: m.Ports, RateGbps: m.PortRateGbps,
			Rack: node.Rack, PositionU: node.PositionU, GUID: h.PortGUID, Node: h.Node, Rail: h.Rail,
			Level: -1, Spec: i,
		}, "hcas", i)
	}
}

// deviceOfName is the device part of an HCA name "<node>/<device>".
func deviceOfName(name string) string {
	_, dev, _ := strings.Cut(name, "/")
	return dev
}

func (b *builder) placement(d *Device) Placement {
	return Placement{Rack: b.rackByName[d.Rack], PositionU: d.PositionU}
}

func (b *builder) end(ci int, side string, e End) (int32, bool) {
	d, ok := b.g.index[e.Device]
	if !ok {
		if b.leftOut[e.Device] {
			return 0, false
		}
		b.add(RuleUnknownDevice, Error, b.at("cables", ci, side, "device"), "cable end %s names %q, which is neither a switch nor an HCA of this fabric", side, e.Device)
		return 0, false
	}
	dev := &b.g.Devices[d]
	if msg := CheckPort(e.Port, dev.Ports, dev.Model); msg != "" {
		b.add(RulePortRange, Error, b.at("cables", ci, side, "port"), "%s (%s)", msg, e.Device)
		return 0, false
	}
	return d, true
}

func (b *builder) cables() {
	b.portBase = make([]int32, len(b.g.Devices)+1)
	for i := range b.g.Devices {
		b.portBase[i+1] = b.portBase[i] + int32(b.g.Devices[i].Ports)
	}
	b.used = make([]int32, b.portBase[len(b.g.Devices)])
	for ci, c := range b.spec.Cables {
		a, okA := b.end(ci, "a", c.A)
		z, okB := b.end(ci, "b", c.B)
		if !okA || !okB {
			continue
		}
		if a == z {
			continue // a loopback: reported by attributes (CheckCableEnds)
		}
		if !b.claim(ci, "a", a, c.A) || !b.claim(ci, "b", z, c.B) {
			continue
		}
		da, db := &b.g.Devices[a], &b.g.Devices[z]
		if da.Kind == KindHCA && db.Kind == KindHCA {
			b.add(RuleUnknownDevice, Error, b.at("cables", ci, "b", "device"), "cable joins two HCAs (%s and %s); an InfiniBand link needs a switch at one end", c.A.Device, c.B.Device)
			continue
		}
		if da.RateGbps != db.RateGbps {
			b.add(RuleSpeedMismatch, Error, b.at("cables", ci), "%s port %d runs at %g Gb/s but %s port %d at %g Gb/s; both ends of a link must run at the same rate", c.A.Device, c.A.Port, da.RateGbps, c.B.Device, c.B.Port, db.RateGbps)
			continue
		}
		link := Link{A: a, B: z, PortA: c.A.Port, PortB: c.B.Port, RateGbps: da.RateGbps, Cable: ci, LengthM: c.LengthM}
		if run, ok := RunLength(b.placement(da), b.placement(db)); ok && c.LengthM == 0 {
			link.LengthM, link.Estimated = run, true
		}
		if c.Kind != "" {
			b.checkReach(ci, c, link, catalog.LinkEnds(da.Kind == KindSwitch, db.Kind == KindSwitch))
		}
		b.g.Links = append(b.g.Links, link)
	}
}

// checkReach holds a declared kind against the cables the catalog has of it for the link's ends,
// as the BOM buys them (catalog.CableFor): a kind's products differ by ends (the twin-port DAC
// between switches reaches 2 m, the splitter DAC to HCAs 3 m), so the kind's longest reach over
// all ends would pass a 2.5 m DAC between switches that nothing sold can cable.
func (b *builder) checkReach(ci int, c Cable, link Link, ends string) {
	if _, ok := b.cat.Reach(c.Kind); !ok {
		if CheckCableKind(c.Kind) == "" { // else reported by attributes (CheckCableKind)
			b.add(RuleCableKind, Error, b.at("cables", ci, "kind"), "the catalog has no cable of kind %q; add one with the provider's catalog_files or use one it has", c.Kind)
		}
		return
	}
	reach, ok := b.cat.ReachFor(c.Kind, ends)
	if ok && link.LengthM <= reach {
		return
	}
	how := "declared"
	if link.Estimated {
		how = "estimated from the rack positions"
	}
	what := fmt.Sprintf("%s <-> %s needs %.1f m (%s) but %s reaches at most %g m %s", c.A.Device, c.B.Device, link.LengthM, how, c.Kind, reach, catalog.Between(ends))
	if !ok {
		what = fmt.Sprintf("the catalog has no %q cable %s (%s <-> %s)", c.Kind, catalog.Between(ends), c.A.Device, c.B.Device)
	}
	// The advice names only a kind the catalog can supply for these ends at this run.
	advice := fmt.Sprintf("no cable kind in the catalog reaches %.1f m %s: shorten the run, or add a cable that does with the provider's catalog_files", link.LengthM, catalog.Between(ends))
	if k, r, found := b.cat.KindFor(ends, link.LengthM); found {
		advice = fmt.Sprintf("use %q (up to %g m) or leave kind unset to let the planner choose", k, r)
	}
	b.add(RuleCableReach, Error, b.at("cables", ci, "kind"), "%s; %s", what, advice)
}

func (b *builder) claim(ci int, side string, d int32, e End) bool {
	slot := &b.used[b.portBase[d]+int32(e.Port)-1]
	if *slot != 0 {
		b.add(RulePortReuse, Error, b.at("cables", ci, side, "port"), "%s port %d is already used by %s; each port takes one cable", e.Device, e.Port, b.spec.PathOf(MapCables, int(*slot-1)).Element())
		return false
	}
	*slot = int32(ci) + 1
	return true
}

func (b *builder) adjacency() {
	g := b.g
	n := len(g.Devices)
	g.AdjStart = make([]int32, n+1)
	for _, l := range g.Links {
		g.AdjStart[l.A+1]++
		g.AdjStart[l.B+1]++
	}
	for i := 0; i < n; i++ {
		g.AdjStart[i+1] += g.AdjStart[i]
	}
	g.AdjLinks = make([]int32, g.AdjStart[n])
	fill := append([]int32(nil), g.AdjStart[:n]...)
	for li, l := range g.Links {
		g.AdjLinks[fill[l.A]] = int32(li)
		fill[l.A]++
		g.AdjLinks[fill[l.B]] = int32(li)
		fill[l.B]++
	}
}

// levels runs a breadth-first search from every HCA at once: a device's level is its distance in
// links from the nearest HCA.
func (b *builder) levels() {
	g := b.g
	queue := make([]int32, 0, len(g.Devices))
	for i := range g.Devices {
		if g.Devices[i].Kind == KindHCA {
			g.Devices[i].Level = 0
			queue = append(queue, int32(i))
		}
	}
	top := 0
	for head := 0; head < len(queue); head++ {
		d := queue[head]
		for _, li := range g.LinksOf(d) {
			o := g.Links[li].Other(d)
			if g.Devices[o].Level < 0 {
				g.Devices[o].Level = g.Devices[d].Level + 1
				if g.Devices[o].Level > top {
					top = g.Devices[o].Level
				}
				queue = append(queue, o)
			}
		}
	}
	b.top = top
}

// inferRoles gives the switches without a declared role (or whose role checkRoles dropped) the
// role their level makes of them: level 1 is a leaf; above that, the highest level of the fabric
// is "core" when there are three switch levels or more and "spine" otherwise.
func (b *builder) inferRoles() {
	g, top := b.g, b.top
	for i := range g.Devices {
		d := &g.Devices[i]
		if d.Kind != KindSwitch || d.Declared {
			continue
		}
		switch {
		case d.Level == 1 || d.Level < 0:
			d.Role = RoleLeaf
		case d.Level >= 3 && d.Level == top:
			d.Role = RoleCore
		default:
			d.Role = RoleSpine
		}
	}
}

type rackUse struct {
	units   []int // occupied flags, index = unit
	powerKW float64
}

func (b *builder) rackBudgets() {
	if len(b.spec.Racks) == 0 {
		return
	}
	use := map[string]*rackUse{}
	occupy := func(list string, i int, rackName string, pos, height int, what string, kw float64) {
		r, ok := b.rackByName[rackName]
		if !ok {
			return
		}
		u := use[rackName]
		if u == nil {
			units := r.Units
			if units == 0 {
				units = DefaultRackUnits
			}
			u = &rackUse{units: make([]int, units+1)}
			use[rackName] = u
		}
		u.powerKW += kw
		top := pos + height - 1
		if pos < 1 || top > len(u.units)-1 {
			b.add(RuleRackUnits, Error, b.at(list, i, "position_u"), "%s at U%d takes %dU, up to U%d, but rack %q has units 1-%d; position_u must be 1-%d", what, pos, height, top, rackName, len(u.units)-1, len(u.units)-height)
			return
		}
		for x := pos; x <= top; x++ {
			if prev := u.units[x]; prev != 0 {
				b.add(RuleRackUnits, Error, b.at(list, i, "position_u"), "%s at U%d-U%d overlaps %s in rack %q at U%d", what, pos, top, b.occupantName(prev), rackName, x)
				return
			}
		}
		for x := pos; x <= top; x++ {
			u.units[x] = occupantID(list, i)
		}
	}
	for i, s := range b.spec.Switches {
		if m, ok := b.cat.Switches[s.Model]; ok && s.Rack != "" {
			occupy("switches", i, s.Rack, s.PositionU, m.Units, "switch "+s.Name, m.PowerKW)
		}
	}
	for i, n := range b.spec.Nodes {
		if m, ok := b.cat.Nodes[n.Model]; ok && n.Rack != "" {
			occupy("nodes", i, n.Rack, n.PositionU, m.Units, "node "+n.Name, m.PowerKW)
		}
	}
	for i, r := range b.spec.Racks {
		u := use[r.Name]
		if u == nil || r.PowerKW == 0 || b.rackByName[r.Name] != &b.spec.Racks[i] {
			continue
		}
		if u.powerKW > r.PowerKW+1e-9 {
			b.add(RuleRackPower, Error, b.at("racks", i, "power_kw"), "rack %q draws %.1f kW at the catalog's maximum power but its budget is %g kW; raise power_kw to at least %.1f or move equipment out", r.Name, u.powerKW, r.PowerKW, u.powerKW)
		}
	}
}

// occupantID packs a list element into a non-zero int for the unit map.
func occupantID(list string, i int) int {
	if list == "switches" {
		return i + 1
	}
	return -(i + 1)
}

func (b *builder) occupantName(id int) string {
	if id > 0 {
		return "switch " + b.spec.Switches[id-1].Name
	}
	return "node " + b.spec.Nodes[-id-1].Name
}

// PartitionKeywords are OpenSM's port-list keywords accepted as a member GUID.
var PartitionKeywords = []string{"ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF"}

func (b *builder) partitions() {
	for pi, p := range b.spec.Partitions {
		for mi, m := range p.Members {
			if m.HCA == "" {
				continue
			}
			d, ok := b.g.index[m.HCA]
			if !ok && b.leftOut[m.HCA] {
				continue
			}
			if !ok || b.g.Devices[d].Kind != KindHCA {
				b.add(RulePartitionMember, Error, b.at("partitions", pi, "members").Index(mi).Attr("hca"),
					"partition %q member %q is not an HCA of this fabric; name an HCA as \"<node>/<device>\" or give its port GUID", p.Name, m.HCA)
			}
		}
	}
}

// connectivity reports a fabric in several pieces, naming each piece by a few of its devices,
// and warns about devices that no cable reaches.
func (b *builder) connectivity() {
	g := b.g
	comp := make([]int32, len(g.Devices))
	for i := range comp {
		comp[i] = -1
	}
	type piece struct {
		switches []string // the first few switch names, sorted
		nSwitch  int
		nHCA     int
		firstHCA string
	}
	var pieces []piece
	var uncabled []string
	for s := range g.Devices {
		if comp[s] >= 0 {
			continue
		}
		if g.AdjStart[s+1] == g.AdjStart[s] {
			uncabled = append(uncabled, g.Devices[s].Name)
			continue
		}
		id := int32(len(pieces))
		var p piece
		stack := []int32{int32(s)}
		comp[s] = id
		for len(stack) > 0 {
			d := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if dev := &g.Devices[d]; dev.Kind == KindSwitch {
				p.nSwitch++
				p.switches = keepSmallest(p.switches, dev.Name, 4)
			} else {
				p.nHCA++
				if p.firstHCA == "" || dev.Name < p.firstHCA {
					p.firstHCA = dev.Name
				}
			}
			for _, li := range g.LinksOf(d) {
				if o := g.Links[li].Other(d); comp[o] < 0 {
					comp[o] = id
					stack = append(stack, o)
				}
			}
		}
		pieces = append(pieces, p)
	}
	if len(pieces) > 1 {
		desc := make([]string, len(pieces))
		for i, p := range pieces {
			sw := strings.Join(p.switches, ", ")
			if p.nSwitch > len(p.switches) {
				sw += fmt.Sprintf(" and %d more", p.nSwitch-len(p.switches))
			}
			desc[i] = fmt.Sprintf("{%d switches (%s), %d HCAs", p.nSwitch, sw, p.nHCA)
			if p.firstHCA != "" {
				desc[i] += " from " + p.firstHCA
			}
			desc[i] += "}"
		}
		b.add(RuleDisconnected, Error, Path{}, "the fabric is in %d disconnected pieces: %s; cable them together or declare them as separate fabrics", len(pieces), strings.Join(desc, " "))
	}
	if len(uncabled) > 0 {
		b.add(RuleUncabled, Warning, Path{}, "%d devices have no cable and take no part in the fabric: %s", len(uncabled), quoteSome(uncabled, 10))
	}
}

// keepSmallest inserts name into the sorted list and keeps at most limit entries.
func keepSmallest(list []string, name string, limit int) []string {
	i := sort.SearchStrings(list, name)
	if i >= limit {
		return list
	}
	list = append(list, "")
	copy(list[i+1:], list[i:])
	list[i] = name
	if len(list) > limit {
		list = list[:limit]
	}
	return list
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// quoteSome lists up to limit names, quoted, and says how many more there are.
func quoteSome(names []string, limit int) string {
	if len(names) == 0 {
		return "none"
	}
	shown := names
	if len(shown) > limit {
		shown = shown[:limit]
	}
	q := make([]string, len(shown))
	for i, n := range shown {
		q[i] = fmt.Sprintf("%q", n)
	}
	s := strings.Join(q, ", ")
	if len(names) > limit {
		s += fmt.Sprintf(" and %d more", len(names)-limit)
	}
	return s
}
