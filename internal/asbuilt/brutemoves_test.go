package asbuilt

import (
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// bruteView is a small 2-tier rail-optimized fabric as the brute force sees it: devices by
// name with their kind, each HCA's node and device name, and the cables counted per unordered
// pair of devices.
type bruteView struct {
	kind   map[string]string // "hca", "leaf", "spine"
	leaves []string
	spines []string
	nodes  []string
	hcas   map[string]map[string]string // node -> device name -> HCA
	devs   []string
	pairs  map[[2]string]int
}

func pairOf(a, b string) [2]string {
	if b < a {
		a, b = b, a
	}
	return [2]string{a, b}
}

func newBruteView(s *fabric.Spec) bruteView {
	v := bruteView{kind: kindsOf(s), hcas: map[string]map[string]string{}, pairs: map[[2]string]int{}}
	devs := map[string]bool{}
	for _, h := range s.HCAs {
		if v.hcas[h.Node] == nil {
			v.hcas[h.Node] = map[string]string{}
		}
		v.hcas[h.Node][h.Device] = h.Name
		devs[h.Device] = true
	}
	for _, sw := range s.Switches {
		switch v.kind[sw.Name] {
		case "leaf":
			v.leaves = append(v.leaves, sw.Name)
		case "spine":
			v.spines = append(v.spines, sw.Name)
		}
	}
	for _, n := range s.Nodes {
		v.nodes = append(v.nodes, n.Name)
	}
	for d := range devs {
		v.devs = append(v.devs, d)
	}
	sort.Strings(v.devs)
	for _, c := range s.Cables {
		v.pairs[pairOf(c.A.Device, c.B.Device)]++
	}
	return v
}

// injections calls f with every injection of as into bs of size min(len(as), len(bs)).
func injections(as, bs []string, f func(map[string]string)) {
	cur := map[string]string{}
	used := map[string]bool{}
	want := min(len(as), len(bs))
	var rec func(i, got int)
	rec = func(i, got int) {
		if got == want {
			f(cur)
			return
		}
		if len(as)-i < want-got {
			return
		}
		rec(i+1, got) // as[i] left out
		for _, b := range bs {
			if !used[b] {
				used[b], cur[as[i]] = true, b
				rec(i+1, got+1)
				used[b] = false
				delete(cur, as[i])
			}
		}
	}
	rec(0, 0)
}

// maxFlowMoves is the most left-over floor cables that can be moved under the technician's
// rules, by Ford-Fulkerson on the aggregated graph: source -> floor pair (its left-over
// cables) -> design pair (a pair at the image of one of the floor pair's ends whose other end
// is of the kind of the floor pair's other end) -> sink (its free links).
func maxFlowMoves(left map[[2]string]int, free map[[2]string]int, phi map[string]string, kind, dkind map[string]string) int {
	var fps, dps [][2]string
	for p, n := range left {
		if n > 0 {
			fps = append(fps, p)
		}
	}
	for p, n := range free {
		if n > 0 {
			dps = append(dps, p)
		}
	}
	sort.Slice(fps, func(a, b int) bool { return fps[a][0] < fps[b][0] || fps[a][0] == fps[b][0] && fps[a][1] < fps[b][1] })
	sort.Slice(dps, func(a, b int) bool { return dps[a][0] < dps[b][0] || dps[a][0] == dps[b][0] && dps[a][1] < dps[b][1] })
	// Nodes: 0 source, 1 sink, then floor pairs, then design pairs.
	n := 2 + len(fps) + len(dps)
	capm := make([][]int, n)
	for i := range capm {
		capm[i] = make([]int, n)
	}
	for i, p := range fps {
		capm[0][2+i] = left[p]
		for j, q := range dps {
			ok := false
			for k := 0; k < 2; k++ {
				stay, move := p[k], p[1-k]
				img := phi[stay]
				if img == "" {
					continue
				}
				for kk := 0; kk < 2; kk++ {
					if q[kk] == img && dkind[q[1-kk]] == kind[move] {
						ok = true
					}
				}
			}
			if ok {
				capm[2+i][2+len(fps)+j] = 1 << 20
			}
		}
	}
	for j, q := range dps {
		capm[2+len(fps)+j][1] = free[q]
	}
	flow := 0
	for {
		prev := make([]int, n)
		for i := range prev {
			prev[i] = -1
		}
		prev[0] = 0
		queue := []int{0}
		for h := 0; h < len(queue) && prev[1] < 0; h++ {
			u := queue[h]
			for w := 0; w < n; w++ {
				if prev[w] < 0 && capm[u][w] > 0 {
					prev[w] = u
					queue = append(queue, w)
				}
			}
		}
		if prev[1] < 0 {
			return flow
		}
		aug := 1 << 30
		for w := 1; w != 0; w = prev[w] {
			aug = min(aug, capm[prev[w]][w])
		}
		for w := 1; w != 0; w = prev[w] {
			capm[prev[w]][w] -= aug
			capm[w][prev[w]] += aug
		}
		flow += aug
	}
}

// bruteKeptMoves is the best (kept, moved) pair, lexicographically, over every level-preserving
// assignment of a small 2-tier floor onto a 2-tier design: every injection of the floor's
// device names into the design's, of its leaves into the design's leaves and of its spines into
// the design's spines, and every assignment of its nodes to the design's classes of alike node
// slots (slots whose HCAs reach the same leaves; within a class every slot is alike, so the
// order of the slots a class's nodes take changes no count). Injections are maximal: mapping one
// more floor device onto a free design device never lowers what is kept or what can be moved.
// For each, a floor pair of devices keeps min(floor cables, design links between the images),
// and the rest move as far as maxFlowMoves allows.
func bruteKeptMoves(t testing.TB, des, floor *fabric.Spec) (kept, moved int) {
	t.Helper()
	fl, de := newBruteView(floor), newBruteView(des)
	// Design node classes by the leaves of their HCAs, per device name.
	classOf := map[string]string{}
	var classes []string
	members := map[string][]string{}
	leafOfHCA := map[string]string{}
	for p := range de.pairs {
		if de.kind[p[0]] == "hca" {
			leafOfHCA[p[0]] = p[1]
		} else if de.kind[p[1]] == "hca" {
			leafOfHCA[p[1]] = p[0]
		}
	}
	for _, n := range de.nodes {
		sig := ""
		for _, d := range de.devs {
			sig += d + "=" + leafOfHCA[de.hcas[n][d]] + ";"
		}
		if members[sig] == nil {
			classes = append(classes, sig)
		}
		classOf[n] = sig
		members[sig] = append(members[sig], n)
	}
	best := [2]int{-1, -1}
	injections(fl.devs, de.devs, func(sigma map[string]string) {
		injections(fl.leaves, de.leaves, func(phiL map[string]string) {
			injections(fl.spines, de.spines, func(phiS map[string]string) {
				// Nodes to classes, maximal: as many nodes placed as slots allow.
				load := map[string]int{}
				nodeTo := map[string]string{}
				slots := len(de.nodes)
				want := min(len(fl.nodes), slots)
				var rec func(i, got int)
				rec = func(i, got int) {
					if got == want {
						phi := map[string]string{}
						for k, v := range phiL {
							phi[k] = v
						}
						for k, v := range phiS {
							phi[k] = v
						}
						for n, d := range nodeTo {
							for dev, h := range fl.hcas[n] {
								if y, ok := sigma[dev]; ok {
									if dh, ok := de.hcas[d][y]; ok {
										phi[h] = dh
									}
								}
							}
						}
						k, mv := keptMoves(fl, de, phi)
						if k > best[0] || k == best[0] && mv > best[1] {
							best = [2]int{k, mv}
						}
						return
					}
					if len(fl.nodes)-i < want-got {
						return
					}
					rec(i+1, got)
					n := fl.nodes[i]
					for _, c := range classes {
						if load[c] < len(members[c]) {
							nodeTo[n] = members[c][load[c]]
							load[c]++
							rec(i+1, got+1)
							load[c]--
							delete(nodeTo, n)
						}
					}
				}
				rec(0, 0)
			})
		})
	})
	return best[0], best[1]
}

func keptMoves(fl, de bruteView, phi map[string]string) (int, int) {
	kept := 0
	left := map[[2]string]int{}
	used := map[[2]string]int{}
	for p, n := range fl.pairs {
		a, b := phi[p[0]], phi[p[1]]
		k := 0
		if a != "" && b != "" {
			k = min(n, de.pairs[pairOf(a, b)])
			used[pairOf(a, b)] += k
		}
		kept += k
		left[p] = n - k
	}
	free := map[[2]string]int{}
	for p, n := range de.pairs {
		free[p] = n - used[p]
	}
	return kept, maxFlowMoves(left, free, phi, fl.kind, de.kind)
}

// The fit against every assignment on small floors: it keeps the most cables any assignment
// keeps and, among the assignments that do, moves the most of the rest (the fewest cable ends
// handled), under the technician's rules; and its work order keeps them (checkWorkOrder).
func TestFitMovesBruteForce(t *testing.T) {
	cat := tinyCatalog(t)
	p := func(sus, planned, nodes int) topogen.Params {
		return topogen.Params{Kind: topogen.KindRailOptimized, SwitchModel: "T8", NodeModel: "N2", ScalableUnits: sus, PlannedScalableUnits: planned, Nodes: nodes}
	}
	cases := []struct {
		floor, design topogen.Params
	}{
		{p(1, 1, 0), p(2, 2, 0)}, // grown past the plan: the spine layer re-planned
		{p(1, 2, 0), p(2, 2, 0)}, // grown within the plan
		{p(2, 2, 7), p(2, 2, 0)}, // a partly built floor filled up
		{p(2, 2, 6), p(2, 2, 0)}, // its last unit of two nodes, a rail swap there ties the leaves' rails
		{p(2, 2, 0), p(2, 2, 0)}, // damaged, at its size
	}
	rng := rand.New(rand.NewSource(9))
	const trials = 6
	for ci, c := range cases {
		des := generate(t, c.design, cat)
		for trial := 0; trial < trials; trial++ {
			floor := relabel(generate(t, c.floor, cat).FabricSpec(), cat, int64(1000+100*ci+trial))
			did := perturb(floor, cat, rng, trial%3)
			if _, probs := fabric.Build(floor, cat); hasErrors(probs) {
				continue
			}
			f := mustFit(t, des, floor, cat)
			wo, err := f.WorkOrder(cat)
			if err != nil {
				t.Fatal(err)
			}
			checkWorkOrder(t, f, wo)
			k, mv := bruteKeptMoves(t, des.FabricSpec(), floor)
			r := f.Report
			if r.LinksKept != k || r.LinksMoved != mv {
				t.Errorf("case %d trial %d (%v): kept %d moved %d; the best assignment keeps %d and moves %d", ci, trial, did, r.LinksKept, r.LinksMoved, k, mv)
			}
		}
	}
}

// A partly built unit of two nodes, one with its rails swapped: its two leaves each have one
// cable of each device name, so their rails tie; every node's swap in turn, against brute force.
func TestFitTiedRailsBruteForce(t *testing.T) {
	cat := tinyCatalog(t)
	p := topogen.Params{Kind: topogen.KindRailOptimized, SwitchModel: "T8", NodeModel: "N2", ScalableUnits: 2, PlannedScalableUnits: 2}
	des := generate(t, p, cat)
	p.Nodes = 6
	base := relabel(generate(t, p, cat).FabricSpec(), cat, 77)
	checked := 0
	for _, n := range base.Nodes {
		floor := relabel(generate(t, p, cat).FabricSpec(), cat, 77)
		var mine []int
		for i, c := range floor.Cables {
			if strings.HasPrefix(hcaEnd(c), n.Name+"/") {
				mine = append(mine, i)
			}
		}
		perLeaf := 0 // HCA cables on the node's first leaf: 2 in the unit of two nodes
		for _, c := range floor.Cables {
			if strings.Contains(c.A.Device, "/") && c.B.Device == floor.Cables[mine[0]].B.Device ||
				strings.Contains(c.B.Device, "/") && c.A.Device == floor.Cables[mine[0]].A.Device && !strings.Contains(c.A.Device, "/") {
				perLeaf++
			}
		}
		if perLeaf != 2 {
			continue
		}
		checked++
		swapSwitchEnds(&floor.Cables[mine[0]], &floor.Cables[mine[1]])
		f := mustFit(t, des, floor, cat)
		k, mv := bruteKeptMoves(t, des.FabricSpec(), floor)
		if r := f.Report; r.LinksKept != k || r.LinksMoved != mv {
			t.Errorf("%s swapped: kept %d moved %d; the best assignment keeps %d and moves %d", n.Name, r.LinksKept, r.LinksMoved, k, mv)
		}
	}
	if checked != 2 {
		t.Fatalf("%d nodes in the unit of two", checked)
	}
}

var _ = catalog.Default
