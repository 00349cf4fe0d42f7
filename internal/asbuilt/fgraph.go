package asbuilt

import (
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// nb is a neighbour of a device with the number of links between them.
type nb struct {
	d int32
	n int32
}

// fgraph is a fabric as the fitter sees it: the fabric.Graph with each device's level (HCAs 0,
// leaves 1, spines 2, cores 3), each HCA's node and device name, the nodes, and the links
// grouped by device pair.
type fgraph struct {
	g       *fabric.Graph
	level   []int8
	node    []int32  // HCA: index into nodes; switch: -1
	devName []string // HCA: its device name ("mlx5_0")
	nodes   []fnode
	nbrs    [][]nb // sorted by device
	maxLvl  int8
}

type fnode struct {
	name string
	spec int     // index into Spec.Nodes
	hcas []int32 // device indexes, in Spec order
}

// shape is what the fitter knows of the design's tiers, to read the floor's by: the highest
// level, and the levels whose switches are cabled to each other.
type shape struct {
	maxLevel   int8
	sameLevel1 bool // torus
	sameLevel2 bool // dragonfly+ global links
}

// newFGraph derives the fitter's view of a built graph. Levels are the declared roles where a
// switch has one (a generated design: leaf, spine, core); a floor declares none, and floorLevels
// reads them from the cabling and the design's shape.
func newFGraph(g *fabric.Graph) *fgraph {
	f := &fgraph{
		g: g, level: make([]int8, len(g.Devices)), node: make([]int32, len(g.Devices)),
		devName: make([]string, len(g.Devices)), nbrs: make([][]nb, len(g.Devices)),
	}
	nodeIdx := map[string]int32{}
	for i := range g.Spec.Nodes {
		nodeIdx[g.Spec.Nodes[i].Name] = int32(len(f.nodes))
		f.nodes = append(f.nodes, fnode{name: g.Spec.Nodes[i].Name, spec: i})
	}
	for i := range g.Devices {
		d := &g.Devices[i]
		f.node[i] = -1
		if d.Kind == fabric.KindHCA {
			f.level[i] = 0
			n := nodeIdx[d.Node]
			f.node[i] = n
			f.nodes[n].hcas = append(f.nodes[n].hcas, int32(i))
			f.devName[i] = g.Spec.HCAs[d.Spec].Device
			continue
		}
		lv := d.Level
		if d.Declared {
			switch d.Role {
			case fabric.RoleLeaf:
				lv = 1
			case fabric.RoleSpine:
				lv = 2
			case fabric.RoleCore:
				lv = 3
			}
		}
		if lv > 100 {
			lv = 100
		}
		f.level[i] = int8(lv)
		f.maxLvl = max(f.maxLvl, int8(lv))
	}
	for i := range g.Devices {
		links := g.LinksOf(int32(i))
		ns := make([]nb, 0, len(links))
		for _, li := range links {
			ns = append(ns, nb{d: g.Links[li].Other(int32(i)), n: 1})
		}
		sort.Slice(ns, func(a, b int) bool { return ns[a].d < ns[b].d })
		out := ns[:0]
		for _, x := range ns {
			if len(out) > 0 && out[len(out)-1].d == x.d {
				out[len(out)-1].n++
				continue
			}
			out = append(out, x)
		}
		f.nbrs[i] = out
	}
	return f
}

// mult is the number of links between devices a and b.
func (f *fgraph) mult(a, b int32) int32 {
	ns := f.nbrs[a]
	k := sort.Search(len(ns), func(i int) bool { return ns[i].d >= b })
	if k < len(ns) && ns[k].d == b {
		return ns[k].n
	}
	return 0
}

func (f *fgraph) name(d int32) string { return f.g.Devices[d].Name }

func (f *fgraph) isSwitch(d int32) bool { return f.g.Devices[d].Kind == fabric.KindSwitch }

// atLevel lists the switches of a level, in device order.
func (f *fgraph) atLevel(lv int8) []int32 {
	var out []int32
	for i := range f.level {
		if f.level[i] == lv && f.isSwitch(int32(i)) {
			out = append(out, int32(i))
		}
	}
	return out
}

// profile is the sorted (descending) multiset of link counts from d to devices of level lv.
func (f *fgraph) profile(d int32, lv int8) []int32 {
	var out []int32
	for _, x := range f.nbrs[d] {
		if f.level[x.d] == lv {
			out = append(out, x.n)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a] > out[b] })
	return out
}

// sortedMin is the most links two devices with these (descending) multisets of per-neighbour
// link counts can have in common under any pairing of their neighbours: pairing largest with
// largest maximises a sum of minima (for a <= a' and b <= b', min(a,b) + min(a',b') >=
// min(a,b') + min(a',b), by cases).
func sortedMin(a, b []int32) int64 {
	var s int64
	for i := 0; i < len(a) && i < len(b); i++ {
		s += int64(min(a[i], b[i]))
	}
	return s
}

// floorLevels sets the levels of a floor's switches, which declare no role. The graph's level
// (the distance from the nearest HCA) is wrong for a switch without nodes: an empty leaf of a
// 2-tier tree is 3 links from an HCA, the spines of a dragonfly+ group without nodes 3 and its
// leaves 4. So: a switch with HCAs is a leaf (1), and on a torus every cabled switch is; a switch
// cabled to a leaf is a spine (2); then, on a 3-tier design, a switch cabled to spines is a core
// (3); otherwise, outwards from the spines, a switch cabled to spines only is a leaf without
// nodes and one cabled to spines and to switches not yet placed is a spine of a group without
// nodes (its leaves, and the global links of further groups). A switch none of this reaches is
// fitted to nothing (-1). A leaf without nodes on a 3-tier floor reads as a core.
func (f *fgraph) floorLevels(sh shape) {
	lv := f.level
	sw := func(d int32) bool { return f.isSwitch(d) }
	hasHCA := func(d int32) bool {
		for _, x := range f.nbrs[d] {
			if !sw(x.d) {
				return true
			}
		}
		return false
	}
	adjTo := func(d int32, l int8) bool {
		for _, x := range f.nbrs[d] {
			if sw(x.d) && lv[x.d] == l {
				return true
			}
		}
		return false
	}
	for i := range lv {
		if d := int32(i); sw(d) {
			lv[i] = -1
			if hasHCA(d) || sh.sameLevel1 && len(f.nbrs[d]) > 0 {
				lv[i] = 1
			}
		}
	}
	if sh.maxLevel >= 2 {
		for i := range lv {
			if d := int32(i); sw(d) && lv[i] < 0 && adjTo(d, 1) {
				lv[i] = 2
			}
		}
	}
	for {
		var next []int32
		for i := range lv {
			if d := int32(i); sw(d) && lv[i] < 0 && adjTo(d, 2) {
				next = append(next, d)
			}
		}
		if len(next) == 0 {
			break
		}
		for _, d := range next {
			switch {
			case sh.maxLevel >= 3:
				lv[d] = 3
			case f.onlyTo(d, 2):
				lv[d] = 1
			default:
				lv[d] = 2
			}
		}
		if sh.maxLevel >= 3 {
			break
		}
	}
	f.maxLvl = 0
	for i := range lv {
		f.maxLvl = max(f.maxLvl, lv[i])
	}
}

// onlyTo says whether every switch neighbour of d is at level l.
func (f *fgraph) onlyTo(d int32, l int8) bool {
	for _, x := range f.nbrs[d] {
		if f.isSwitch(x.d) && f.level[x.d] != l {
			return false
		}
	}
	return true
}

// shapeOf reads the shape of a design's graph.
func shapeOf(f *fgraph) shape {
	return shape{maxLevel: f.maxLvl, sameLevel1: f.hasSameLevel(1), sameLevel2: f.hasSameLevel(2)}
}
