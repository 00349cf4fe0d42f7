package diagram

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/scheduler"
)

// DefaultFoldAbove: up to this many nodes each node gets a box. 32 is one scalable unit of DGX
// H100 (RA-11333-001); beyond it the node row of a 1,600 px wide picture leaves under 50 px per
// box, too little for a name.
const DefaultFoldAbove = 32

// Options tune the picture.
type Options struct {
	Title string
	// FoldAbove: node boxes are folded when the fabric has more nodes than this; 0 means
	// DefaultFoldAbove, a negative value never folds.
	FoldAbove int
	// NodeGroups maps a node to its scalable unit or generator group (su01), the first choice
	// for folding. May be nil.
	NodeGroups map[string]string
	// Highlights from the analysis; nil draws none.
	Highlights *Highlights
}

// Highlights are what the analysis found worth pointing at.
type Highlights struct {
	// CutSideA and CutSideB are the switches on each side of the witness cut (analysis.Cut).
	CutSideA, CutSideB []string
	// CutEndpoints are the HCAs the witness puts on the other side from their switch: their
	// access links cross it (an "access links" cut has every switch on one side).
	CutEndpoints []string
	CutLabel     string // e.g. "witness cut: 204800 Gb/s across 512 links"
	// Oversubscribed maps a switch to its down:up ratio, for switches above the limit.
	Oversubscribed map[string]float64
}

// FromAnalysis takes the witness cut and the switches whose down:up ratio exceeds limit (1 when
// limit is 0: anything blocking).
func FromAnalysis(r analysis.Result, limit float64) *Highlights {
	if limit == 0 {
		limit = 1
	}
	h := &Highlights{Oversubscribed: map[string]float64{}}
	if r.Cut.CrossingLinks > 0 {
		h.CutSideA = append(h.CutSideA, r.Cut.SwitchesA...)
		h.CutSideB = append(h.CutSideB, r.Cut.SwitchesB...)
		h.CutEndpoints = append(h.CutEndpoints, r.Cut.MovedEndpoints...)
		h.CutLabel = fmt.Sprintf("witness cut: %s Gb/s across %d links (%d | %d endpoints)", gbps(r.Cut.CapacityGbps), r.Cut.CrossingLinks, r.Cut.EndpointsA, r.Cut.EndpointsB)
	}
	for _, s := range r.PerSwitch {
		if s.Oversubscription > limit+1e-9 {
			h.Oversubscribed[s.Name] = s.Oversubscription
		}
	}
	return h
}

// Box is a switch or a set of nodes.
type Box struct {
	ID     string // DOT node id, unique
	Label  string // first line: switch name, node name, or group name
	Detail string // second line: model, ratio, or folded node list
	Tier   int    // 0 nodes, 1 leaves, 2 spines, ...
	Switch bool
	Over   float64 // oversubscription when highlighted
	Side   int8    // 0, or 1/2 for the witness cut's sides
}

// Bundle is every link between two boxes.
type Bundle struct {
	A, B  int // box indexes; A is the upper (or, at equal tiers, the earlier) box
	Links int
	Gbps  float64
	Cut   bool
}

// Diagram is the model both renderings draw.
type Diagram struct {
	Title   string
	Boxes   []Box
	Bundles []Bundle
	Rows    [][]int // Rows[tier] = box indexes left to right
	Folded  string  // how nodes were folded ("" = one box per node)
	Legend  []string
}

// Build makes the model from a graph.
func Build(g *fabric.Graph, opts Options) (*Diagram, error) {
	if g == nil || g.Spec == nil {
		return nil, fmt.Errorf("diagram: no fabric graph")
	}
	fold := opts.FoldAbove
	if fold == 0 {
		fold = DefaultFoldAbove
	}
	d := &Diagram{Title: opts.Title}
	hl := opts.Highlights
	side := map[string]int8{}
	moved := map[string]bool{}
	if hl != nil {
		for _, e := range hl.CutEndpoints {
			moved[e] = true
		}
		for _, s := range hl.CutSideA {
			side[s] = 1
		}
		for _, s := range hl.CutSideB {
			side[s] = 2
		}
	}
	boxOf := make([]int, len(g.Devices)) // device -> box
	maxTier := 1
	for i := 0; i < g.NumSwitches(); i++ {
		dev := &g.Devices[i]
		tier := dev.Level
		if tier < 1 {
			tier = 1 // unreached switches sit with the leaves
		}
		maxTier = max(maxTier, tier)
		b := Box{ID: dev.Name, Label: dev.Name, Detail: dev.Model, Tier: tier, Switch: true, Side: side[dev.Name]}
		if hl != nil {
			if r, ok := hl.Oversubscribed[dev.Name]; ok {
				b.Over = r
				b.Detail = fmt.Sprintf("%s, %s:1 oversubscribed", dev.Model, ratio(r))
			}
		}
		boxOf[i] = len(d.Boxes)
		d.Boxes = append(d.Boxes, b)
	}

	// Nodes, in spec order, with the key they fold under.
	var nodes []fabric.Node
	seen := map[string]bool{}
	for _, n := range g.Spec.Nodes {
		if !seen[n.Name] {
			seen[n.Name] = true
			nodes = append(nodes, n)
		}
	}
	keyOf := map[string]string{}
	switch {
	case fold < 0 || len(nodes) <= fold:
	case coversAll(nodes, opts.NodeGroups):
		d.Folded = "per scalable unit or group"
		for _, n := range nodes {
			keyOf[n.Name] = opts.NodeGroups[n.Name]
		}
	case racksSet(nodes):
		d.Folded = "per rack"
		for _, n := range nodes {
			keyOf[n.Name] = n.Rack
		}
	default:
		d.Folded = "per leaf unit"
		top, err := scheduler.Build(g, scheduler.Options{})
		if err != nil {
			return nil, err
		}
		for _, u := range top.Units {
			for _, n := range u.Nodes {
				keyOf[n] = u.Name
			}
		}
		for _, n := range top.Unattached {
			keyOf[n] = "unattached"
		}
	}
	nodeBox := map[string]int{}
	byID := map[string]int{}
	members := map[int][]string{}
	models := map[int]map[string]int{}
	for _, n := range nodes {
		id := "node:" + n.Name
		label := n.Name
		if d.Folded != "" {
			label = keyOf[n.Name]
			id = "nodes:" + label
		}
		bi, ok := byID[id]
		if !ok {
			bi = len(d.Boxes)
			byID[id] = bi
			d.Boxes = append(d.Boxes, Box{ID: id, Label: label, Detail: n.Model, Tier: 0})
			models[bi] = map[string]int{}
		}
		nodeBox[n.Name] = bi
		members[bi] = append(members[bi], n.Name)
		models[bi][n.Model]++
	}
	if d.Folded != "" {
		for bi, ms := range members {
			var parts []string
			for _, m := range sortedKeys(models[bi]) {
				parts = append(parts, fmt.Sprintf("%d × %s", models[bi][m], m))
			}
			d.Boxes[bi].Detail = scheduler.Compress(ms) + ": " + strings.Join(parts, ", ")
		}
	}
	for i := g.NumSwitches(); i < len(g.Devices); i++ {
		if b, ok := nodeBox[g.Devices[i].Node]; ok {
			boxOf[i] = b
		} else {
			boxOf[i] = -1
		}
	}

	// Bundles.
	type pair struct{ a, b int }
	idx := map[pair]int{}
	for li := range g.Links {
		l := &g.Links[li]
		a, b := boxOf[l.A], boxOf[l.B]
		if a < 0 || b < 0 || a == b {
			continue
		}
		// Upper box first; at equal tiers the earlier box.
		if d.Boxes[b].Tier > d.Boxes[a].Tier || (d.Boxes[b].Tier == d.Boxes[a].Tier && b < a) {
			a, b = b, a
		}
		k := pair{a, b}
		i, ok := idx[k]
		if !ok {
			i = len(d.Bundles)
			idx[k] = i
			sa, sb := d.Boxes[a].Side, d.Boxes[b].Side
			d.Bundles = append(d.Bundles, Bundle{A: a, B: b, Cut: sa != 0 && sb != 0 && sa != sb})
		}
		if moved[g.Devices[l.A].Name] || moved[g.Devices[l.B].Name] {
			d.Bundles[i].Cut = true // an access link the witness cuts
		}
		d.Bundles[i].Links++
		d.Bundles[i].Gbps += l.RateGbps
	}

	d.Rows = make([][]int, maxTier+1)
	for i, b := range d.Boxes {
		d.Rows[b.Tier] = append(d.Rows[b.Tier], i)
	}
	if d.Folded != "" {
		d.Legend = append(d.Legend, fmt.Sprintf("%d nodes folded %s", len(nodes), d.Folded))
	}
	if hl != nil && hl.CutLabel != "" {
		d.Legend = append(d.Legend, hl.CutLabel+" (red)")
	}
	if hl != nil && len(hl.Oversubscribed) > 0 {
		d.Legend = append(d.Legend, fmt.Sprintf("%d oversubscribed switches (orange)", len(hl.Oversubscribed)))
	}
	return d, nil
}

func coversAll(nodes []fabric.Node, groups map[string]string) bool {
	if len(groups) == 0 {
		return false
	}
	for _, n := range nodes {
		if groups[n.Name] == "" {
			return false
		}
	}
	return true
}

func racksSet(nodes []fabric.Node) bool {
	for _, n := range nodes {
		if n.Rack == "" {
			return false
		}
	}
	return len(nodes) > 0
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// gbps prints a capacity without trailing zeros.
func gbps(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

func ratio(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// BundleLabel is "2 × 400G = 800 Gb/s", or "400 Gb/s" for a single link.
func (d *Diagram) BundleLabel(b Bundle) string {
	if b.Links == 1 {
		return gbps(b.Gbps) + " Gb/s"
	}
	per := b.Gbps / float64(b.Links)
	return fmt.Sprintf("%d × %sG = %s Gb/s", b.Links, gbps(per), gbps(b.Gbps))
}
