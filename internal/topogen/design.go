package topogen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Link tiers, the keys of Summary.LinksByTier.
const (
	TierNodeLeaf      = "node-leaf"      // an HCA port to its leaf (torus: to its switch)
	TierApplianceLeaf = "appliance-leaf" // a reserved slot's fabric-manager appliance to a leaf
	TierLeafSpine     = "leaf-spine"
	TierSpineCore     = "spine-core"
	TierGlobal        = "global" // dragonfly-plus: spine to spine of another group
	TierTorus         = "torus"  // torus-3d: switch to neighbour switch
)

// Group kinds, the Kind of a Group.
const (
	GroupScalableUnit = "scalable-unit" // rail-optimized: one SU
	GroupPod          = "pod"           // fat-tree: a pod of leaves (and, with 3 tiers, its spines)
	GroupDragonfly    = "group"         // dragonfly-plus: one group of leaves and spines
	GroupPlane        = "plane"         // torus-3d: one z plane
	GroupCentral      = "central"       // the switches above the blocks (spines or cores)
)

// Design is a generated fabric. The maps are keyed by name (cables by their lower-tier end,
// "leaf01:33" or "gpu001/mlx5_0:1") and hold exactly the objects the gpucluster_* resources take,
// so a map can feed for_each directly; the List slices hold the same objects in a stable order
// (Spec builds a fabric.Spec from them). Growing the input within the plan only adds entries.
//
// Zero values mean "unset", as in fabric.Spec: a cable's Kind "" leaves the kind to the BOM
// planner (unless Params.CableKind is set) and its LengthM 0 lets fabric.Build estimate the run
// from rack positions; an HCA's Rail -1 means no rail (every kind but rail-optimized). The
// provider maps them to null.
type Design struct {
	Kind  string
	Tiers int // switch tiers: 1-3 for trees, 2 for dragonfly-plus (plus global links), 1 for torus-3d

	Racks      map[string]fabric.Rack
	Switches   map[string]fabric.Switch
	Nodes      map[string]fabric.Node
	HCAs       map[string]fabric.HCA
	Cables     map[string]fabric.Cable
	Appliances map[string]ApplianceLink // keyed like a cable: "ufm01:1"

	RackList      []fabric.Rack
	SwitchList    []fabric.Switch
	NodeList      []fabric.Node
	HCAList       []fabric.HCA
	CableKeys     []string // CableKeys[i] is the key of CableList[i]
	CableList     []fabric.Cable
	ApplianceList []ApplianceLink

	// NameDigits is the width of the numbers in the generated names, by the name_digits
	// argument it answers to ("node", "leaf", "spine", "core", "rack"): what a later design sets
	// to keep these names.
	NameDigits map[string]int

	// CableTiers maps a cable key to its link tier (TierNodeLeaf, ...).
	CableTiers map[string]string

	Summary  Summary
	PortPlan []PortRange
	// Groups are the blocks of the design (scalable units, pods, dragonfly groups or torus
	// planes) and the central switches above them, each with its own maps, so a configuration
	// can run one module instance per group: several small for_each maps plan far faster in
	// Terraform than one big one (the design guide, "Scale"). Every object of the design is in exactly
	// one group; a cable is in the group of its lower-tier end.
	Groups []Group
	// Notes record the sizing decisions (spines rounded up to divide the uplinks, the planned
	// size the upper tiers were built for, ...), in words for the data source's output.
	Notes []string

	// Params are the arguments with every default filled in.
	Params Params

	// headroomAdvice is the note's advice for the top tier's free ports (headroom.go), for
	// fabric.Plan.Advice.
	headroomAdvice string
}

// ApplianceLink is a link from a fabric-manager appliance (UFM) in a reserved node slot to a
// leaf port. Appliances are not graph devices: the catalog has no appliance model and the graph
// holds only switches and HCAs. The link is part of the port plan, the summary and the BOM
// (bom.ExternalLinks), and its leaf port must stay free of any other cable.
type ApplianceLink struct {
	Key       string // "ufm01:1", the appliance end
	Appliance string // "ufm01"
	Port      int    // appliance port, 1-based
	Leaf      string
	LeafPort  int
	Rack      string // the reserved slot's rack and the appliance's unit in it
	PositionU int
	Group     string // the Group it belongs to
}

// Summary counts the design. LinksByTier has every tier of the kind, zero included.
type Summary struct {
	Racks          int
	Nodes          int
	HCAs           int
	Switches       int
	SwitchesByRole map[string]int // leaf, spine, core
	Cables         int            // graph cables (appliance links not included)
	LinksByTier    map[string]int // includes appliance-leaf
	ApplianceLinks int
	Endpoints      int // HCA ports cabled to the fabric
	// Planned capacity: the most nodes (and for rail-optimized SUs, for dragonfly-plus groups)
	// the upper tiers were built for; growth up to it only adds.
	PlannedNodes         int
	PlannedScalableUnits int
	PlannedGroups        int
}

// PortRange documents which ports of a switch role face what, and by which rule they are
// assigned. Together the ranges cover every port the design uses.
type PortRange struct {
	Role  string // leaf, spine, core (torus: leaf)
	First int
	Last  int
	Faces string // "nodes", "spines", "cores", "leaves", "global", "torus neighbours", ...
	Rule  string // how a port number is chosen, in words
}

// Group is one block of the design with its own maps (see Design.Groups).
type Group struct {
	Name       string // "su01", "pod01", "group01", "plane01", or "spines"/"core"
	Kind       string // GroupScalableUnit, GroupPod, ...
	Racks      map[string]fabric.Rack
	Switches   map[string]fabric.Switch
	Nodes      map[string]fabric.Node
	HCAs       map[string]fabric.HCA
	Cables     map[string]fabric.Cable
	Appliances map[string]ApplianceLink
}

// Spec returns the design as a fabric.Spec (no partitions), in the List order.
func (d *Design) Spec() *fabric.Spec {
	return &fabric.Spec{
		Racks:    append([]fabric.Rack(nil), d.RackList...),
		Switches: append([]fabric.Switch(nil), d.SwitchList...),
		Nodes:    append([]fabric.Node(nil), d.NodeList...),
		HCAs:     append([]fabric.HCA(nil), d.HCAList...),
		Cables:   append([]fabric.Cable(nil), d.CableList...),
	}
}

// Group returns the named group.
func (d *Design) Group(name string) (*Group, bool) {
	for i := range d.Groups {
		if d.Groups[i].Name == name {
			return &d.Groups[i], true
		}
	}
	return nil, false
}

// GroupsOf splits s, this design's graph under other names (a fit to a floor), by the rule
// Groups follows, so a fitted fabric runs one module instance per group as the design does:
// a switch or node in the group s.Groups gives it, an HCA in its node's, a cable in the group
// of its lower-tier end (A, or that end's node) and a rack in that of the design's rack of
// its name. It returns all of s keyed as the design keys it (a cable by Key, else its A end)
// and one Group per design group, in Groups order, empty where the fit left the group nothing.
// Appliance links are not in s and so not in what it returns.
func (d *Design) GroupsOf(s *fabric.Spec) (all Group, groups []Group) {
	newGroup := func(name, kind string) Group {
		return Group{Name: name, Kind: kind, Racks: map[string]fabric.Rack{}, Switches: map[string]fabric.Switch{},
			Nodes: map[string]fabric.Node{}, HCAs: map[string]fabric.HCA{}, Cables: map[string]fabric.Cable{}}
	}
	all = newGroup("", "")
	groups = make([]Group, len(d.Groups))
	idx := make(map[string]int, len(d.Groups))
	rackGroup := map[string]int{}
	for i, g := range d.Groups {
		groups[i] = newGroup(g.Name, g.Kind)
		idx[g.Name] = i
		for r := range g.Racks {
			rackGroup[r] = i
		}
	}
	// in is the group of the named device, nil when the design has no such group.
	in := func(device string) *Group {
		if i, ok := idx[s.Groups[device]]; ok {
			return &groups[i]
		}
		return nil
	}
	for _, r := range s.Racks {
		all.Racks[r.Name] = r
		if i, ok := rackGroup[r.Name]; ok {
			groups[i].Racks[r.Name] = r
		}
	}
	for _, sw := range s.Switches {
		all.Switches[sw.Name] = sw
		if g := in(sw.Name); g != nil {
			g.Switches[sw.Name] = sw
		}
	}
	for _, n := range s.Nodes {
		all.Nodes[n.Name] = n
		if g := in(n.Name); g != nil {
			g.Nodes[n.Name] = n
		}
	}
	nodeOf := make(map[string]string, len(s.HCAs))
	for _, h := range s.HCAs {
		all.HCAs[h.Name] = h
		nodeOf[h.Name] = h.Node
		if g := in(h.Node); g != nil {
			g.HCAs[h.Name] = h
		}
	}
	for _, c := range s.Cables {
		key := c.Key
		if key == "" {
			key = EndKey(c.A)
		}
		all.Cables[key] = c
		low := c.A.Device
		if n, ok := nodeOf[low]; ok {
			low = n
		}
		if g := in(low); g != nil {
			g.Cables[key] = c
		}
	}
	return all, groups
}

// PortPlanText renders the port plan as lines "leaf ports 1-32: nodes: ...".
func (d *Design) PortPlanText() string {
	var b strings.Builder
	for _, r := range d.PortPlan {
		fmt.Fprintf(&b, "%s ports %d-%d: %s: %s\n", r.Role, r.First, r.Last, r.Faces, r.Rule)
	}
	return b.String()
}

// ---- construction ----

// member is an object on its way into the design, with the group it belongs to.
type groupSet struct {
	name, kind string
	racks      []string
	switches   []string
	nodes      []string
	hcas       []string
	cables     []string
	appliances []string
}

type builder struct {
	des    *Design
	groups []*groupSet
	gidx   map[string]int
	racks  map[int]string // rack number -> name, racks made so far
	lay    *layout
	rackW  int
}

func newBuilder(kind string, p Params) *builder {
	return &builder{
		des: &Design{
			Kind: kind, Params: p, CableTiers: map[string]string{},
		},
		gidx:  map[string]int{},
		racks: map[int]string{},
	}
}

func (b *builder) group(name, kind string) *groupSet {
	if i, ok := b.gidx[name]; ok {
		return b.groups[i]
	}
	b.gidx[name] = len(b.groups)
	g := &groupSet{name: name, kind: kind}
	b.groups = append(b.groups, g)
	return g
}

func (b *builder) note(format string, args ...any) {
	b.des.Notes = append(b.des.Notes, fmt.Sprintf(format, args...))
}

func (b *builder) addSwitch(g *groupSet, s fabric.Switch) {
	b.des.SwitchList = append(b.des.SwitchList, s)
	g.switches = append(g.switches, s.Name)
}

func (b *builder) addNode(g *groupSet, n fabric.Node) {
	b.des.NodeList = append(b.des.NodeList, n)
	g.nodes = append(g.nodes, n.Name)
}

func (b *builder) addHCA(g *groupSet, h fabric.HCA) {
	b.des.HCAList = append(b.des.HCAList, h)
	g.hcas = append(g.hcas, h.Name)
}

// addCable adds a cable keyed by its A end, which callers make the lower-tier end.
func (b *builder) addCable(g *groupSet, tier string, c fabric.Cable) {
	key := EndKey(c.A)
	b.des.CableKeys = append(b.des.CableKeys, key)
	b.des.CableList = append(b.des.CableList, c)
	b.des.CableTiers[key] = tier
	g.cables = append(g.cables, key)
}

func (b *builder) addAppliance(g *groupSet, a ApplianceLink) {
	a.Group = g.name
	b.des.ApplianceList = append(b.des.ApplianceList, a)
	g.appliances = append(g.appliances, a.Key)
}

// EndKey is the stable key of a cable end: "leaf01:33", "gpu001/mlx5_0:1".
func EndKey(e fabric.End) string { return fmt.Sprintf("%s:%d", e.Device, e.Port) }

// finish builds the maps, the groups and the summary from the lists.
func (b *builder) finish() *Design {
	d := b.des
	d.Racks = make(map[string]fabric.Rack, len(d.RackList))
	for _, r := range d.RackList {
		d.Racks[r.Name] = r
	}
	d.Switches = make(map[string]fabric.Switch, len(d.SwitchList))
	for _, s := range d.SwitchList {
		d.Switches[s.Name] = s
	}
	d.Nodes = make(map[string]fabric.Node, len(d.NodeList))
	for _, n := range d.NodeList {
		d.Nodes[n.Name] = n
	}
	d.HCAs = make(map[string]fabric.HCA, len(d.HCAList))
	for _, h := range d.HCAList {
		d.HCAs[h.Name] = h
	}
	d.Cables = make(map[string]fabric.Cable, len(d.CableList))
	for i, c := range d.CableList {
		d.Cables[d.CableKeys[i]] = c
	}
	d.Appliances = make(map[string]ApplianceLink, len(d.ApplianceList))
	for _, a := range d.ApplianceList {
		d.Appliances[a.Key] = a
	}
	for _, gs := range b.groups {
		g := Group{
			Name: gs.name, Kind: gs.kind,
			Racks:      make(map[string]fabric.Rack, len(gs.racks)),
			Switches:   make(map[string]fabric.Switch, len(gs.switches)),
			Nodes:      make(map[string]fabric.Node, len(gs.nodes)),
			HCAs:       make(map[string]fabric.HCA, len(gs.hcas)),
			Cables:     make(map[string]fabric.Cable, len(gs.cables)),
			Appliances: make(map[string]ApplianceLink, len(gs.appliances)),
		}
		for _, n := range gs.racks {
			g.Racks[n] = d.Racks[n]
		}
		for _, n := range gs.switches {
			g.Switches[n] = d.Switches[n]
		}
		for _, n := range gs.nodes {
			g.Nodes[n] = d.Nodes[n]
		}
		for _, n := range gs.hcas {
			g.HCAs[n] = d.HCAs[n]
		}
		for _, n := range gs.cables {
			g.Cables[n] = d.Cables[n]
		}
		for _, n := range gs.appliances {
			g.Appliances[n] = d.Appliances[n]
		}
		d.Groups = append(d.Groups, g)
	}

	s := &d.Summary
	s.Racks, s.Nodes, s.HCAs, s.Switches = len(d.RackList), len(d.NodeList), len(d.HCAList), len(d.SwitchList)
	s.SwitchesByRole = map[string]int{}
	for _, sw := range d.SwitchList {
		s.SwitchesByRole[sw.Role]++
	}
	s.Cables = len(d.CableList)
	if s.LinksByTier == nil {
		s.LinksByTier = map[string]int{}
	}
	for _, t := range d.CableTiers {
		s.LinksByTier[t]++
	}
	s.ApplianceLinks = len(d.ApplianceList)
	if s.ApplianceLinks > 0 {
		s.LinksByTier[TierApplianceLeaf] = s.ApplianceLinks
	}
	s.Endpoints = s.LinksByTier[TierNodeLeaf]
	return d
}

// tiers initialises LinksByTier with zero counts, so the summary always lists the kind's tiers.
func (b *builder) tiers(names ...string) {
	b.des.Summary.LinksByTier = map[string]int{}
	for _, n := range names {
		b.des.Summary.LinksByTier[n] = 0
	}
}

// ---- rack layout ----

// layout places devices in racks. Each block (SU, pod, group, plane) is a row: its compute racks
// on both sides and its network racks in the middle, so node-to-leaf runs stay short. Switches
// above the blocks (spines of a 2-tier tree, cores) sit in a central network row placed in the
// middle of the block rows. Everything is sized by the plan, so a rack's name, row and position
// never change as the design grows.
//
// Rack numbers: central racks first (1..centralRacks), then block b's racks in row order (left
// compute racks, network racks, right compute racks), so numbers run along each row.
type layout struct {
	blocks        int // planned blocks
	slots         int // node slots per block
	nodesPerRack  int
	computeRacks  int // per block
	blockSwitches int // switches per block
	netRacks      int // network racks per block
	central       int // central switches
	centralRacks  int
	perRack       int // switches per network rack
	units         int // rack units
	nodeUnits     int
	switchUnits   int
	left          int // compute racks left of the network racks
	centralStart  int // row position of the first central rack
	powerKW       float64
}

func newLayout(blocks, slots, blockSwitches, central int, p Params, nodeUnits, switchUnits int, nodePowerKW float64) (*layout, *Error) {
	l := &layout{
		blocks: blocks, slots: slots, blockSwitches: blockSwitches, central: central,
		perRack: p.SwitchesPerRack, units: p.RackUnits, nodeUnits: nodeUnits,
		switchUnits: switchUnits, powerKW: p.RackPowerKW,
	}
	l.nodesPerRack = p.RackUnits / nodeUnits
	if nodePowerKW > 0 {
		if byPower := int(p.RackPowerKW/nodePowerKW + 1e-9); byPower < l.nodesPerRack {
			l.nodesPerRack = byPower
		}
	}
	if l.nodesPerRack < 1 {
		return nil, refuse("rack_power_kw", fmt.Sprintf("rack_power_kw >= %g", nodePowerKW),
			"a %s node draws up to %g kW and takes %dU; a rack of %dU and %g kW holds none",
			p.NodeModel, nodePowerKW, nodeUnits, p.RackUnits, p.RackPowerKW)
	}
	if fit := p.RackUnits / switchUnits; l.perRack > fit {
		l.perRack = fit
	}
	l.computeRacks = ceilDiv(slots, l.nodesPerRack)
	l.netRacks = ceilDiv(blockSwitches, l.perRack)
	l.centralRacks = ceilDiv(central, l.perRack)
	l.left = (l.computeRacks + 1) / 2
	// Centre the central row on the block rows' network racks.
	mid := l.left + 1 + l.netRacks/2
	l.centralStart = mid - l.centralRacks/2
	if l.centralStart < 1 {
		l.centralStart = 1
	}
	return l, nil
}

func (l *layout) racksPerBlock() int { return l.computeRacks + l.netRacks }

func (l *layout) totalRacks() int { return l.centralRacks + l.blocks*l.racksPerBlock() }

// row of block b (1-based rows); the central row, when there is one, sits in the middle.
func (l *layout) blockRow(b int) int {
	if l.centralRacks == 0 || b < l.blocks/2 {
		return b + 1
	}
	return b + 2
}

func (l *layout) centralRow() int { return l.blocks/2 + 1 }

// rackAt returns the rack's row and row position by rack number.
func (l *layout) rackAt(n int) (row, pos int) {
	if n <= l.centralRacks {
		return l.centralRow(), l.centralStart + n - 1
	}
	i := n - l.centralRacks - 1
	return l.blockRow(i / l.racksPerBlock()), i%l.racksPerBlock() + 1
}

// computePos is the row position of compute rack ci of a block; networkPos of network rack ni.
func (l *layout) computePos(ci int) int {
	if ci < l.left {
		return ci + 1
	}
	return ci + l.netRacks + 1
}

func (l *layout) networkPos(ni int) int { return l.left + ni + 1 }

// rack makes rack number n if needed, puts it in group g, and returns its name.
func (b *builder) rack(g *groupSet, n int) string {
	if name, ok := b.racks[n]; ok {
		return name
	}
	name := fmt.Sprintf("%s%0*d", b.des.Params.RackPrefix, b.rackW, n)
	row, pos := b.lay.rackAt(n)
	b.des.RackList = append(b.des.RackList, fabric.Rack{
		Name: name, Row: row, Position: pos, Units: b.lay.units, PowerKW: b.lay.powerKW,
	})
	b.racks[n] = name
	g.racks = append(g.racks, name)
	return name
}

// nodeSlot places slot s of block blk: compute rack s/nodesPerRack, stacked from U1 up.
func (b *builder) nodeSlot(g *groupSet, blk, s int) (rack string, u int) {
	l := b.lay
	n := l.centralRacks + blk*l.racksPerBlock() + l.computePos(s/l.nodesPerRack)
	return b.rack(g, n), 1 + (s%l.nodesPerRack)*l.nodeUnits
}

// topU stacks switches from the top of the rack down: shorter runs to the overhead tray.
func (l *layout) topU(j int) int {
	return l.units - (j%l.perRack+1)*l.switchUnits + 1
}

// blockSwitch places switch j of block blk in the block's network racks.
func (b *builder) blockSwitch(g *groupSet, blk, j int) (rack string, u int) {
	l := b.lay
	n := l.centralRacks + blk*l.racksPerBlock() + l.networkPos(j/l.perRack)
	return b.rack(g, n), l.topU(j)
}

// centralSwitch places central switch j.
func (b *builder) centralSwitch(g *groupSet, j int) (rack string, u int) {
	return b.rack(g, j/b.lay.perRack+1), b.lay.topU(j)
}

// sortRacks orders RackList by rack number (racks are made on demand, out of order).
func (b *builder) sortRacks() {
	num := make(map[string]int, len(b.racks))
	for n, name := range b.racks {
		num[name] = n
	}
	sort.Slice(b.des.RackList, func(i, j int) bool {
		return num[b.des.RackList[i].Name] < num[b.des.RackList[j].Name]
	})
	for _, g := range b.groups {
		sort.Slice(g.racks, func(i, j int) bool { return num[g.racks[i]] < num[g.racks[j]] })
	}
}

// ---- small helpers ----

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func digits(n int) int { return len(fmt.Sprint(n)) }

func width(n, least int) int {
	if w := digits(n); w > least {
		return w
	}
	return least
}

func name(prefix string, w, n int) string { return fmt.Sprintf("%s%0*d", prefix, w, n) }

// divisors returns the divisors of n in ascending order.
func divisors(n int) []int {
	var out []int
	for i := 1; i <= n; i++ {
		if n%i == 0 {
			out = append(out, i)
		}
	}
	return out
}

// smallestDivisorAtLeast returns the smallest divisor of n that is >= x, or 0 if none.
func smallestDivisorAtLeast(n, x int) int {
	for _, v := range divisors(n) {
		if v >= x {
			return v
		}
	}
	return 0
}

// ---- the normalized design ----

// Normalized returns the design's own arguments as gpucluster_fabric's `design` takes them:
// every default filled in and what the kind resolved (Kind.Normalize: the planned size the upper
// tiers were built for, the tiers that hold it, a dragonfly+ group's shape, a torus's endpoints
// per switch). The size arguments given (node_count, scalable_units, group_count) stay as given,
// so growing one within the planned size changes that one argument of the normalized design and
// nothing else. Generate(d.Normalized()) builds exactly d's graph (TestNormalizedRegenerates).
func (d *Design) Normalized() Params {
	p := d.Params
	if p.HCAGUIDs != nil {
		m := make(map[string]string, len(p.HCAGUIDs))
		for k, v := range p.HCAGUIDs {
			m[k] = v
		}
		p.HCAGUIDs = m
	}
	if p.Extra != nil {
		m := make(map[string]float64, len(p.Extra))
		for k, v := range p.Extra {
			m[k] = v
		}
		p.Extra = m
	}
	if k := KindByName(d.Kind); k != nil && k.Normalize != nil {
		k.Normalize(d, &p)
	}
	return p
}

// SizeAttribute names the argument that sizes the design: what a generated element is reported
// on when a problem is found with it (Kind.SizeAttribute; node_count by default).
func (d *Design) SizeAttribute() string {
	if k := KindByName(d.Kind); k != nil && k.SizeAttribute != nil {
		return k.SizeAttribute(d.Params)
	}
	return "node_count"
}

// FabricSpec is the design as a fabric.Spec, with the group of each switch and node (Spec.Groups),
// whose elements carry their map key (the name; a
// cable its key) and, as Origin, the design attribute that produced them (SizeAttribute), so a
// problem found in a generated element is reported on the design.
func (d *Design) FabricSpec() *fabric.Spec {
	s := d.Spec()
	s.Plan = &fabric.Plan{Nodes: d.Summary.Nodes, PlannedNodes: d.Summary.PlannedNodes, Advice: d.headroomAdvice}
	s.Torus = d.TorusLayout()
	s.Groups = map[string]string{}
	for _, g := range d.Groups {
		for name := range g.Switches {
			s.Groups[name] = g.Name
		}
		for name := range g.Nodes {
			s.Groups[name] = g.Name
		}
	}
	origin := d.SizeAttribute()
	for i := range s.Racks {
		s.Racks[i].Ref = fabric.Ref{Key: s.Racks[i].Name, Origin: origin}
	}
	for i := range s.Switches {
		s.Switches[i].Ref = fabric.Ref{Key: s.Switches[i].Name, Origin: origin}
	}
	for i := range s.Nodes {
		s.Nodes[i].Ref = fabric.Ref{Key: s.Nodes[i].Name, Origin: origin}
	}
	for i := range s.HCAs {
		s.HCAs[i].Ref = fabric.Ref{Key: s.HCAs[i].Name, Origin: origin}
	}
	for i := range s.Cables {
		s.Cables[i].Ref = fabric.Ref{Key: d.CableKeys[i], Origin: origin}
	}
	return s
}
