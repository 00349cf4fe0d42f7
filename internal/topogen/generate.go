package topogen

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// gen carries what every kind needs while it generates.
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
}

// Generate builds the design the parameters describe, or refuses with an *Error that names the
// argument at fault, the reason and the nearest buildable input.
func Generate(p Params, cat *catalog.Catalog) (*Design, error) {
	if cat == nil {
		return nil, fmt.Errorf("topogen: nil catalog")
	}
	p = p.withDefaults()
	known := false
	for _, k := range Kinds {
		known = known || k == p.Kind
	}
	if !known {
		return nil, refuse("kind", "", "unknown kind %q; valid kinds: %s", p.Kind, strings.Join(Kinds, ", "))
	}
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
	if nm.ComputeHCAs < 1 {
		return nil, refuse("node_model", "", "node model %q has no compute HCAs to attach to a fabric", nm.Name)
	}
	if hm.PortRateGbps != sw.PortRateGbps {
		return nil, refuse("switch_model", "", "%s's %s ports run at %g Gb/s but %s ports at %g Gb/s; both ends of a link must run at the same rate",
			nm.Name, hm.Name, hm.PortRateGbps, sw.Name, sw.PortRateGbps)
	}
	if !validCableKind(p.CableKind) {
		return nil, refuse("cable_kind", "", "unknown cable kind %q; valid kinds: %s", p.CableKind, strings.Join(catalog.CableKinds, ", "))
	}
	g := &gen{p: p, cat: cat, sw: sw, nm: nm, hm: hm, r: sw.Ports, h: nm.ComputeHCAs, b: newBuilder(p.Kind, p)}
	if p.Kind != KindTorus3D {
		if err := g.split(); err != nil {
			return nil, err
		}
	}
	var err *Error
	switch p.Kind {
	case KindFatTree:
		err = g.fatTree()
	case KindRailOptimized:
		err = g.railOptimized()
	case KindDragonflyPlus:
		err = g.dragonflyPlus()
	case KindTorus3D:
		err = g.torus()
	}
	if err != nil {
		return nil, err
	}
	g.b.sortRacks()
	if err := g.applyGUIDs(); err != nil {
		return nil, err
	}
	return g.b.finish(), nil
}

// split turns the oversubscription into whole down and up port counts: up = r/(ratio+1).
func (g *gen) split() *Error {
	o := g.p.Oversubscription
	r := g.r
	if o < 1 || math.IsNaN(o) || math.IsInf(o, 0) {
		return refuse("oversubscription", "oversubscription = 1", "oversubscription is down:up at the leaf as a number >= 1 (1 = non-blocking), not %g", o)
	}
	x := float64(r) / (o + 1)
	u := int(math.Round(x))
	if math.Abs(x-float64(u)) > 1e-6 || u < 1 || u >= r {
		var near []string
		for _, c := range []int{int(math.Floor(x)), int(math.Ceil(x))} {
			if c >= 1 && c < r {
				near = append(near, fmt.Sprintf("oversubscription = %.4g (%d:%d)", float64(r-c)/float64(c), r-c, c))
			}
		}
		return refuse("oversubscription", strings.Join(dedupe(near), " or "),
			"%g:1 does not split a %d-port %s into whole down and up port counts (up = %d/(%g+1) = %.4g)", o, r, g.sw.Name, r, o, x)
	}
	g.d, g.u = r-u, u
	return nil
}

func dedupe(s []string) []string {
	var out []string
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func (g *gen) ratio() string { return fmt.Sprintf("%d:%d", g.d, g.u) }

func (g *gen) setLayout(blocks, slots, blockSwitches, central, plannedNodes int) *Error {
	l, err := newLayout(blocks, slots, blockSwitches, central, g.p, g.nm.Units, g.sw.Units, g.nm.PowerKW)
	if err != nil {
		return err
	}
	g.b.lay = l
	g.b.rackW = width(l.totalRacks(), 2)
	g.nodeW = width(plannedNodes, 3)
	return nil
}

// switchGUID: base + tier<<20 + n, so a switch keeps its GUID whatever is added around it.
func (g *gen) switchGUID(tier, n int) string {
	return FormatGUID(g.p.SwitchGUIDBase + uint64(tier)<<20 + uint64(n))
}

// node adds node n (0-based) and returns its name.
func (g *gen) node(gs *groupSet, n int, rack string, u int) string {
	nm := name(g.p.NodePrefix, g.nodeW, n+1)
	g.b.addNode(gs, fabric.Node{Name: nm, Model: g.nm.Name, Rack: rack, PositionU: u})
	return nm
}

// hca adds HCA i (0-based) of node n as "<node>/mlx5_<i>" and returns its name. Its GUID is
// HCAGUIDBase + n*h + i + 1: fixed by the node's number, so growth never renumbers it.
func (g *gen) hca(gs *groupSet, node string, n, i, rail int) string {
	dev := fmt.Sprintf("mlx5_%d", i)
	hn := fabric.HCAName(node, dev)
	g.b.addHCA(gs, fabric.HCA{
		Name: hn, Node: node, Device: dev,
		PortGUID: FormatGUID(g.p.HCAGUIDBase + uint64(n*g.h+i+1)), Rail: rail,
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
