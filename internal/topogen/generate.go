package topogen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// gen carries what every kind of this package needs while it generates.
type gen struct {
	p     Params
	cat   *catalog.Catalog
	sw    catalog.SwitchModel
	nm    catalog.NodeModel
	hm    catalog.HCAModel
	r     int // switch radix
	h     int // compute HCAs per node
	d, u  int // leaf down and up ports at the requested oversubscription
	b     *builder
	nodeW int
	// The largest offsets added to the GUID bases, so that a base too large to hold them is
	// refused rather than wrapped (checkGUIDRange).
	maxSwitchOff, maxHCAOff uint64
	// torusNames: switches are named with the torus prefix, whatever their role (checkNames).
	torusNames bool
	// advise, set by a kind, names the argument setting that keeps a share of the top tier's
	// ports free at the size built now (headroom.go).
	advise func(share float64) string
}

// Generate builds the design the parameters describe, or refuses with an *Error that names the
// argument at fault, the reason and the nearest buildable input. It finds the kind in the kind
// table, refuses an argument the kind does not read, fills the defaults and hands over to the
// kind's generator.
func Generate(p Params, cat *catalog.Catalog) (*Design, error) {
	if cat == nil {
		return nil, fmt.Errorf("topogen: nil catalog")
	}
	k := KindByName(p.Kind)
	if k == nil {
		return nil, refuse("kind", "", "unknown kind %q; valid kinds: %s", p.Kind, strings.Join(KindNames(), ", "))
	}
	if err := k.checkReads(&p); err != nil {
		return nil, err
	}
	return k.Generate(p.withDefaults(k), cat)
}

// newGen looks up the models of p and splits the leaf's ports, for a kind of this package. What
// the catalog cannot give is refused on the argument that names it.
func newGen(p Params, cat *catalog.Catalog) (*gen, *Error) {
	sw, ok := cat.Switches[p.SwitchModel]
	if !ok {
		return nil, refuse("switch_model", "", "unknown switch model %q; the catalog has %s", p.SwitchModel, strings.Join(cat.SwitchNames(), ", "))
	}
	nm, ok := cat.Nodes[p.NodeModel]
	if !ok {
		return nil, refuse("node_model", "", "unknown node model %q; the catalog has %s", p.NodeModel, strings.Join(cat.NodeNames(), ", "))
	}
	hm, ok := cat.HCAs[nm.HCAModel]
	if !ok {
		return nil, refuse("node_model", "", "node model %q names HCA model %q, which the catalog lacks", nm.Name, nm.HCAModel)
	}
	g := &gen{p: p, cat: cat, sw: sw, nm: nm, hm: hm, r: sw.Ports, h: nm.ComputeHCAs, b: newBuilder(p.Kind, p)}
	if k := KindByName(p.Kind); k != nil && k.reads(arg("oversubscription")) {
		if err := g.split(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// buildWith is the Generate of a kind of this package: the common checks, the kind's generator
// (build), then what every design gets: the spare-port note, the inventory's GUIDs, and the
// checks that no GUID wraps and no two devices share a name.
func buildWith(build func(g *gen) *Error) func(Params, *catalog.Catalog) (*Design, error) {
	return func(p Params, cat *catalog.Catalog) (*Design, error) {
		g, err := newGen(p, cat)
		if err != nil {
			return nil, err
		}
		if err := g.checkModels(); err != nil {
			return nil, err
		}
		if err := g.checkArgs(); err != nil {
			return nil, err
		}
		if err := build(g); err != nil {
			return nil, err
		}
		if g.u > 0 && g.b.des.Tiers >= 2 && g.d+g.u < g.r {
			g.b.note("oversubscription %s splits a %d-port %s %d:%d (%d down, %d up); %s stay spare on every leaf",
				ratioText(g.d, g.u), g.r, g.sw.Name, g.d, g.u, g.d, g.u, plural(g.r-g.d-g.u, "port"))
		}
		g.b.sortRacks()
		if err := g.checkGUIDRange(); err != nil {
			return nil, err
		}
		if err := g.applyGUIDs(); err != nil {
			return nil, err
		}
		if err := g.checkNames(); err != nil {
			return nil, err
		}
		d := g.b.finish()
		g.headroom(d, g.advise)
		return d, nil
	}
}

// largestWith is the Largest of a kind of this package.
func largestWith(largest func(g *gen) string) func(Params, *catalog.Catalog) string {
	return func(p Params, cat *catalog.Catalog) string {
		g, err := newGen(p, cat)
		if err != nil {
			return ""
		}
		return largest(g)
	}
}

// checkModels refuses models that cannot be cabled together and a cable kind the catalog lacks.
func (g *gen) checkModels() *Error {
	p, nm, hm, sw, cat := g.p, g.nm, g.hm, g.sw, g.cat
	if nm.ComputeHCAs < 1 {
		return refuse("node_model", "", "node model %q has no compute HCAs to attach to a fabric", nm.Name)
	}
	if hm.PortRateGbps != sw.PortRateGbps {
		return refuse("switch_model", "", "%s's %s ports run at %g Gb/s but %s ports at %g Gb/s; both ends of a link must run at the same rate",
			nm.Name, hm.Name, hm.PortRateGbps, sw.Name, sw.PortRateGbps)
	}
	if !validCableKind(p.CableKind) {
		return refuse("cable_kind", "", "unknown cable kind %q; valid kinds: %s", p.CableKind, strings.Join(catalog.CableKinds, ", "))
	}
	if k := p.CableKind; k != "" && !catalogHasKind(cat, k) {
		// The built-in catalog has no AOC (no NDR OSFP AOC for Quantum-2 appears in the public
		// sources); writing the kind on every cable would only fail the fabric's build.
		return refuse("cable_kind", fmt.Sprintf("cable_kind = %q, or a %s cable added with catalog_files", catalog.KindFiberMM, k),
			"the catalog has no %s cable to build with (the built-in catalog lists none: no NDR OSFP %s part appears in the public sources)", k, strings.ToUpper(k))
	}
	return nil
}

// split turns the oversubscription into whole down and up port counts. A ratio is accepted
// when some split of the radix gives exactly it: the reduced fraction p/q = ratio with p+q <= r,
// scaled by k = floor(r/(p+q)) to use as many ports as it can (d = k*p down, u = k*q up); the
// r - d - u ports left over stay spare (2:1 on 64 ports: 42 down, 21 up, 1 spare). "Exactly"
// is up to float rounding (1e-9 relative), so 43/21 written as an HCL expression matches.
func (g *gen) split() *Error {
	o := g.p.Oversubscription
	r := g.r
	if o < 1 || math.IsNaN(o) || math.IsInf(o, 0) {
		return refuse("oversubscription", "oversubscription = 1", "oversubscription is down:up at the leaf as a number >= 1 (1 = non-blocking), not %g", o)
	}
	if d, u, ok := exactSplit(o, r); ok {
		g.d, g.u = d, u
		return nil
	}
	var near []string
	for _, c := range nearestSplits(o, r) {
		near = append(near, fmt.Sprintf("oversubscription = %s (%d:%d on %d ports%s)", ratioText(c[0], c[1]), c[0], c[1], r, spareText(r-c[0]-c[1])))
	}
	return refuse("oversubscription", strings.Join(near, " or "),
		"%g:1 is not the ratio of any split of a %d-port %s into whole down and up port counts (down + up <= %d)", o, r, g.sw.Name, r)
}

// exactSplit returns the split of r ports at ratio o using the most ports, if there is one.
func exactSplit(o float64, r int) (d, u int, ok bool) {
	for q := 1; q < r; q++ {
		p := math.Round(o * float64(q))
		if p < 1 || p+float64(q) > float64(r) {
			continue
		}
		if math.Abs(p/float64(q)-o) <= 1e-9*o {
			k := r / (int(p) + q)
			return k * int(p), k * q, true
		}
	}
	return 0, 0, false
}

// nearestSplits returns the splits of r ports whose ratios are nearest below and above o, each
// using the most ports its ratio allows.
func nearestSplits(o float64, r int) [][2]int {
	var lo, hi [2]int
	loV, hiV := 0.0, math.Inf(1)
	for u := 1; u < r; u++ {
		for d := u; d+u <= r; d++ {
			v := float64(d) / float64(u)
			if v < o && v > loV {
				lo, loV = [2]int{d, u}, v
			}
			if v > o && v < hiV {
				hi, hiV = [2]int{d, u}, v
			}
		}
	}
	var out [][2]int
	for _, c := range [][2]int{hi, lo} {
		if c[1] == 0 {
			continue
		}
		d, u, _ := exactSplit(float64(c[0])/float64(c[1]), r)
		out = append(out, [2]int{d, u})
	}
	return out
}

// ratioText writes d/u as a value the generator accepts back: the shortest decimal when it
// has at most 4 decimals (2, 2.5, 1.75), else the fraction, which Terraform evaluates as an
// expression (43/21).
func ratioText(d, u int) string {
	v := float64(d) / float64(u)
	if s := strconv.FormatFloat(v, 'f', -1, 64); len(s) <= len(strconv.Itoa(d/u))+5 {
		return s
	}
	gcd := func(a, b int) int {
		for b != 0 {
			a, b = b, a%b
		}
		return a
	}(d, u)
	return fmt.Sprintf("%d/%d", d/gcd, u/gcd)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func spareText(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d spare", n)
}

func (g *gen) ratio() string { return fmt.Sprintf("%d:%d", g.d, g.u) }

func (g *gen) setLayout(blocks, slots, blockSwitches, central, plannedNodes int) *Error {
	l, err := newLayout(blocks, slots, blockSwitches, central, g.p, g.nm.Units, g.sw.Units, g.nm.PowerKW)
	if err != nil {
		return err
	}
	g.b.lay = l
	g.b.rackW = g.digits("rack", g.p.RackDigits, l.totalRacks(), 2)
	g.nodeW = g.digits("node", g.p.NodeDigits, plannedNodes, 3)
	return nil
}

// digits is the width of the numbers of one kind of device's names: set (name_digits), else
// the digits of the planned count n, at least least. The design records it (Design.NameDigits),
// so a later design can be told the width to keep.
func (g *gen) digits(kind string, set, n, least int) int {
	w := set
	if w == 0 {
		w = width(n, least)
	}
	if g.b.des.NameDigits == nil {
		g.b.des.NameDigits = map[string]int{}
	}
	g.b.des.NameDigits[kind] = w
	return w
}

// switchGUID: base + tier<<20 + n, so a switch keeps its GUID whatever is added around it.
// A sum past 64 bits is refused after generation (checkGUIDRange), never used.
func (g *gen) switchGUID(tier, n int) string {
	off := uint64(tier)<<20 + uint64(n)
	g.maxSwitchOff = max(g.maxSwitchOff, off)
	return FormatGUID(g.p.SwitchGUIDBase + off)
}

// node adds node n (0-based) and returns its name.
func (g *gen) node(gs *groupSet, n int, rack string, u int) string {
	nm := name(g.p.NodePrefix, g.nodeW, n+1)
	g.b.addNode(gs, fabric.Node{Name: nm, Model: g.nm.Name, Rack: rack, PositionU: u})
	return nm
}

// hca adds HCA i (0-based) of node n as "<node>/<fabric.DefaultHCADevice(i)>" and returns its name. Its GUID is
// HCAGUIDBase + n*h + i + 1: fixed by the node's number, so growth never renumbers it.
func (g *gen) hca(gs *groupSet, node string, n, i, rail int) string {
	dev := fabric.DefaultHCADevice(i)
	hn := fabric.HCAName(node, dev)
	off := uint64(n*g.h + i + 1)
	g.maxHCAOff = max(g.maxHCAOff, off)
	g.b.addHCA(gs, fabric.HCA{
		Name: hn, Node: node, Device: dev,
		PortGUID: FormatGUID(g.p.HCAGUIDBase + off), Rail: rail,
	})
	return hn
}

func (g *gen) cable(a string, pa int, b string, pb int) fabric.Cable {
	return fabric.Cable{A: fabric.End{Device: a, Port: pa}, B: fabric.End{Device: b, Port: pb}, Kind: g.p.CableKind}
}

func (g *gen) link(a string, pa int, b string, pb int) fabric.Cable { return g.cable(a, pa, b, pb) }

// applyGUIDs puts the inventory's burned-in GUIDs in place of the derived ones and checks that
// no GUID is used twice.
func (g *gen) applyGUIDs() *Error {
	d := g.b.des
	if len(g.p.HCAGUIDs) > 0 {
		idx := make(map[string]int, len(d.HCAList))
		for i, h := range d.HCAList {
			idx[h.Name] = i
		}
		keys := make([]string, 0, len(g.p.HCAGUIDs))
		for k := range g.p.HCAGUIDs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			i, ok := idx[k]
			if !ok {
				ex := "gpu001/mlx5_0"
				if len(d.HCAList) > 0 {
					ex = d.HCAList[0].Name
				}
				return refuse("hca_guids", "", "%q is not an HCA of this design; keys are HCA names such as %q", k, ex)
			}
			// A burned-in GUID is checked as the fabric checks every GUID (fabric.CheckGUID:
			// 16 hex digits), so one copied with digits missing is refused, not zero-padded.
			if msg := fabric.CheckGUID(ibstatToHex(g.p.HCAGUIDs[k])); msg != "" {
				return refuse("hca_guids", "", "%s: %s", k, msg)
			}
			v, err := ParseGUID(g.p.HCAGUIDs[k])
			if err != nil {
				return refuse("hca_guids", "", "%s: %v", k, err)
			}
			d.HCAList[i].PortGUID = FormatGUID(v)
		}
	}
	seen := make(map[string]string, len(d.HCAList)+len(d.SwitchList))
	check := func(guid, owner string) *Error {
		if prev, dup := seen[guid]; dup {
			return refuse("hca_guids", "", "GUID %s is used by both %s and %s; every GUID in a subnet is unique", guid, prev, owner)
		}
		seen[guid] = owner
		return nil
	}
	for _, s := range d.SwitchList {
		if err := check(s.GUID, s.Name); err != nil {
			return err
		}
	}
	for _, h := range d.HCAList {
		if err := check(h.PortGUID, h.Name); err != nil {
			return err
		}
	}
	return nil
}

// checkGUIDRange refuses a GUID base that the design's offsets would carry past 64 bits. GUID
// arithmetic never wraps: 0xffffffffffffffff + 0x100001 would give 0x0000000000100000, a GUID of
// another device range, with nothing to say so. The refusal names the largest base that holds
// every offset this design uses.
func (g *gen) checkGUIDRange() *Error {
	for _, c := range []struct {
		attr, what string
		base, off  uint64
	}{
		{"switch_guid_base", "switch", g.p.SwitchGUIDBase, g.maxSwitchOff},
		{"hca_guid_base", "HCA", g.p.HCAGUIDBase, g.maxHCAOff},
	} {
		if c.off == 0 || c.base <= math.MaxUint64-c.off {
			continue
		}
		largest := uint64(math.MaxUint64) - c.off
		return refuse(c.attr, fmt.Sprintf("%s = %q", c.attr, FormatGUID(largest)),
			"%s %s plus this design's largest %s GUID offset (%#x) passes 0xffffffffffffffff, and GUIDs never wrap; the largest base that fits is %s",
			c.attr, FormatGUID(c.base), c.what, c.off, FormatGUID(largest))
	}
	return nil
}

// checkNames refuses two devices of one name. The prefixes make every name, and a leaf prefix
// "gpu0" beside the node prefix "gpu" names a switch and a node gpu001 alike, which nothing
// downstream can tell apart (the fabric's maps, OpenSM's node-name-map and the cable labels all
// key by name). The refusal names both prefixes and both devices, on the prefix set away from
// its default.
func (g *gen) checkNames() *Error {
	d := g.b.des
	type owner struct{ what, prefix string }
	seen := make(map[string]owner, len(d.SwitchList)+len(d.NodeList)+len(d.ApplianceList))
	var clash *Error
	add := func(name string, o owner) {
		if clash != nil {
			return
		}
		prev, dup := seen[name]
		if !dup {
			seen[name] = o
			return
		}
		at := prev.prefix
		if pa := arg(o.prefix); pa.String(&g.p) != pa.defString {
			at = o.prefix
		}
		clash = refuse(at, fmt.Sprintf("%s = %q (its default), or any prefix that starts no name another prefix starts", at, arg(at).defString),
			"%s = %q names %s %s and %s = %q names %s %s: two devices of one name, which the fabric's maps, OpenSM's node-name-map and the cable labels cannot tell apart; every device name is unique in a fabric",
			prev.prefix, arg(prev.prefix).String(&g.p), prev.what, name, o.prefix, arg(o.prefix).String(&g.p), o.what, name)
	}
	for _, s := range d.SwitchList {
		prefix := "prefixes." + s.Role
		if g.torusNames {
			prefix = "prefixes.torus"
		}
		add(s.Name, owner{s.Role + " switch", prefix})
	}
	for _, n := range d.NodeList {
		add(n.Name, owner{"node", "prefixes.node"})
	}
	for _, a := range d.ApplianceList { // one appliance per link: names do not repeat
		add(a.Appliance, owner{"fabric-manager appliance", "prefixes.appliance"})
	}
	return clash
}

func catalogHasKind(cat *catalog.Catalog, kind string) bool {
	for _, c := range cat.Cables {
		if c.Kind == kind {
			return true
		}
	}
	return false
}
