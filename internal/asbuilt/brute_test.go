package asbuilt

import (
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// transport against brute force: every assignment of up to 7 items to up to 4 classes of
// capacity 1-2 (or to none), on random sparse weights.
func TestTransportBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 3000; trial++ {
		n, k := 1+rng.Intn(7), 1+rng.Intn(4)
		caps := make([]int32, k)
		for c := range caps {
			caps[c] = int32(rng.Intn(3))
		}
		w := make([][]int64, n)
		cands := make([][]cand, n)
		for i := range w {
			w[i] = make([]int64, k)
			for c := range w[i] {
				if rng.Intn(3) > 0 {
					w[i][c] = int64(1 + rng.Intn(9))
					cands[i] = append(cands[i], cand{class: int32(c), w: w[i][c]})
				}
			}
		}
		got := transport(cands, caps)
		var total int64
		load := make([]int32, k)
		for i, c := range got {
			if c >= 0 {
				if w[i][c] == 0 {
					t.Fatalf("trial %d: item %d in class %d, not a candidate", trial, i, c)
				}
				total += w[i][c]
				load[c]++
			}
		}
		for c := range load {
			if load[c] > caps[c] {
				t.Fatalf("trial %d: class %d holds %d, capacity %d", trial, c, load[c], caps[c])
			}
		}
		var best int64
		var rec func(i int, sum int64)
		rec = func(i int, sum int64) {
			if i == n {
				best = max(best, sum)
				return
			}
			rec(i+1, sum)
			for c := 0; c < k; c++ {
				if w[i][c] > 0 && load[c] < caps[c] {
					load[c]++
					rec(i+1, sum+w[i][c])
					load[c]--
				}
			}
		}
		clear(load)
		rec(0, 0)
		if total != best {
			t.Fatalf("trial %d: transport %d, brute force %d (weights %v, caps %v)", trial, total, best, w, caps)
		}
	}
}

// tinyCatalog has an 8-port switch and a node of 2 HCAs, so that a rail-optimized design of 2
// SU (8 nodes, 4 leaves, 2 spines) is small enough to try every assignment on.
func tinyCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	return testrig.Catalog(t, "tiny.hcl", `
switch_model "T8" {
  ports          = 8
  port_rate_gbps = 400
}
node_model "N2" {
  units        = 1
  compute_hcas = 2
  hca_model    = "ConnectX-7-OSFP"
}
`)
}

// bruteMax is the most floor cables any level-preserving assignment keeps, by trying every
// one: every partial injection of the floor's device names into the design's (sigma), of its
// leaves into the design's leaves and of its spines into the design's spines; for each, the
// best placement of nodes by dynamic programming over the sets of design nodes taken (exact,
// and independent of the fitter's transport).
func bruteMax(t testing.TB, des, floor *fabric.Spec, cat *catalog.Catalog) int {
	t.Helper()
	type view struct {
		leaves, spines []string
		nodes          []string
		hcaOf          map[string]map[string]string // node -> device -> HCA name
		leafOf         map[string]string            // HCA -> leaf
		pairs          map[[2]string]int            // leaf, spine -> links
		devs           []string
	}
	viewOf := func(s *fabric.Spec) view {
		g, probs := fabric.Build(s, cat)
		if hasErrors(probs) {
			t.Fatalf("build: %v", probs)
		}
		v := view{hcaOf: map[string]map[string]string{}, leafOf: map[string]string{}, pairs: map[[2]string]int{}}
		isHCA := map[string]bool{}
		devs := map[string]bool{}
		for _, h := range s.HCAs {
			isHCA[h.Name] = true
			if v.hcaOf[h.Node] == nil {
				v.hcaOf[h.Node] = map[string]string{}
			}
			v.hcaOf[h.Node][h.Device] = h.Name
			devs[h.Device] = true
		}
		leaf := map[string]bool{}
		for _, l := range g.Links {
			a, b := g.Devices[l.A].Name, g.Devices[l.B].Name
			switch {
			case isHCA[a]:
				v.leafOf[a], leaf[b] = b, true
			case isHCA[b]:
				v.leafOf[b], leaf[a] = a, true
			}
		}
		for _, l := range g.Links {
			a, b := g.Devices[l.A].Name, g.Devices[l.B].Name
			if isHCA[a] || isHCA[b] {
				continue
			}
			if leaf[b] {
				a, b = b, a
			}
			v.pairs[[2]string{a, b}]++
		}
		for _, sw := range s.Switches {
			if leaf[sw.Name] {
				v.leaves = append(v.leaves, sw.Name)
			} else {
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
		return v
	}
	fl, de := viewOf(floor), viewOf(des)
	// partial injections of a into b
	var inj func(a, b []string, i int, used map[string]bool, cur map[string]string, f func(map[string]string))
	inj = func(a, b []string, i int, used map[string]bool, cur map[string]string, f func(map[string]string)) {
		if i == len(a) {
			f(cur)
			return
		}
		inj(a, b, i+1, used, cur, f)
		for _, x := range b {
			if !used[x] {
				used[x], cur[a[i]] = true, x
				inj(a, b, i+1, used, cur, f)
				used[x] = false
				delete(cur, a[i])
			}
		}
	}
	best := 0
	inj(fl.devs, de.devs, 0, map[string]bool{}, map[string]string{}, func(sigma map[string]string) {
		inj(fl.leaves, de.leaves, 0, map[string]bool{}, map[string]string{}, func(phiL map[string]string) {
			// node -> slot weights under sigma and phiL
			w := make([][]int, len(fl.nodes))
			for i, n := range fl.nodes {
				w[i] = make([]int, len(de.nodes))
				for j, dn := range de.nodes {
					for dev, h := range fl.hcaOf[n] {
						y, ok := sigma[dev]
						if !ok {
							continue
						}
						if dh, ok := de.hcaOf[dn][y]; ok && phiL[fl.leafOf[h]] != "" && phiL[fl.leafOf[h]] == de.leafOf[dh] {
							w[i][j]++
						}
					}
				}
			}
			// best node placement: DP over floor nodes and the set of design nodes taken
			memo := map[[2]int]int{}
			var dp func(i, mask int) int
			dp = func(i, mask int) int {
				if i == len(fl.nodes) {
					return 0
				}
				k := [2]int{i, mask}
				if v, ok := memo[k]; ok {
					return v
				}
				b := dp(i+1, mask)
				for j := range de.nodes {
					if mask&(1<<j) == 0 && w[i][j] > 0 {
						b = max(b, w[i][j]+dp(i+1, mask|1<<j))
					}
				}
				memo[k] = b
				return b
			}
			nodeLeaf := dp(0, 0)
			inj(fl.spines, de.spines, 0, map[string]bool{}, map[string]string{}, func(phiS map[string]string) {
				ls := 0
				for p, n := range fl.pairs {
					a, b := phiL[p[0]], phiS[p[1]]
					if a == "" || b == "" {
						continue
					}
					ls += min(n, de.pairs[[2]string{a, b}])
				}
				best = max(best, nodeLeaf+ls)
			})
		})
	})
	return best
}

// perturb damages a floor the ways a hand-built one is damaged: rail swaps, dead cables,
// uplinks on the wrong spine, an extra uplink.
func perturb(s *fabric.Spec, cat *catalog.Catalog, rng *rand.Rand, n int) []string {
	var did []string
	for k := 0; k < n; k++ {
		var hca, up []int
		for i, c := range s.Cables {
			if strings.Contains(c.A.Device, "/") || strings.Contains(c.B.Device, "/") {
				hca = append(hca, i)
			} else {
				up = append(up, i)
			}
		}
		switch rng.Intn(5) {
		case 0: // a rail swap: the switch ends of two HCA cables of one node
			a := hca[rng.Intn(len(hca))]
			node, _, _ := strings.Cut(hcaEnd(s.Cables[a]), "/")
			for _, b := range hca {
				if b != a && strings.HasPrefix(hcaEnd(s.Cables[b]), node+"/") {
					swapSwitchEnds(&s.Cables[a], &s.Cables[b])
					did = append(did, "swap")
					break
				}
			}
		case 4: // two HCA cables of any nodes swapped
			a, b := hca[rng.Intn(len(hca))], hca[rng.Intn(len(hca))]
			swapSwitchEnds(&s.Cables[a], &s.Cables[b])
			did = append(did, "cross")
		case 1: // a dead cable
			i := rng.Intn(len(s.Cables))
			s.Cables = append(s.Cables[:i], s.Cables[i+1:]...)
			did = append(did, "dead")
		case 2, 3: // an uplink moved to another switch's free port, or an extra one
			if len(up) == 0 {
				continue
			}
			free := freePorts(s, cat)
			c := s.Cables[up[rng.Intn(len(up))]]
			var to []string
			for _, sw := range s.Switches {
				if sw.Name != c.A.Device && sw.Name != c.B.Device && len(free[sw.Name]) > 0 {
					to = append(to, sw.Name)
				}
			}
			sort.Strings(to)
			if len(to) == 0 {
				continue
			}
			dst := to[rng.Intn(len(to))]
			nc := fabric.Cable{A: c.A, B: fabric.End{Device: dst, Port: free[dst][0]}}
			if len(free[c.A.Device]) > 0 && rng.Intn(2) == 0 {
				nc.A = fabric.End{Device: c.A.Device, Port: free[c.A.Device][0]}
				s.Cables = append(s.Cables, nc)
				did = append(did, "extra")
			} else {
				for i := range s.Cables {
					if s.Cables[i] == c {
						s.Cables[i] = nc
						break
					}
				}
				did = append(did, "miswire")
			}
		}
	}
	return did
}

var bruteTrials = 20

func hcaEnd(c fabric.Cable) string {
	if strings.Contains(c.A.Device, "/") {
		return c.A.Device
	}
	return c.B.Device
}

// The fitter against every assignment, on small rail-optimized floors, grown within and past
// their plan and damaged (rail swaps, cables swapped between nodes, dead cables, uplinks on the
// wrong switch, extra uplinks): it keeps as many cables as the best assignment. Its bound is
// never below the best, and equals it but where cables were swapped between nodes of different
// units (then the leaf bound still counts both). A floor larger than the design (shrinking,
// which the generator's growth never asks) is held to the bound's validity only.
func TestFitBruteForce(t *testing.T) {
	cat := tinyCatalog(t)
	p := func(sus, planned int) topogen.Params {
		return topogen.Params{Kind: topogen.KindRailOptimized, SwitchModel: "T8", NodeModel: "N2", ScalableUnits: sus, PlannedScalableUnits: planned}
	}
	cases := []struct {
		floor, design topogen.Params
		exact         bool
	}{
		{p(2, 2), p(2, 2), true},
		{p(1, 1), p(2, 2), true},
		{p(1, 2), p(2, 2), true},
		{p(2, 2), p(1, 1), false},
	}
	rng := rand.New(rand.NewSource(5))
	tight, trials := 0, 0
	for ci, c := range cases {
		des := generate(t, c.design, cat)
		for trial := 0; trial < bruteTrials; trial++ {
			floor := relabel(generate(t, c.floor, cat).FabricSpec(), cat, int64(100*ci+trial))
			did := perturb(floor, cat, rng, trial%4)
			if _, probs := fabric.Build(floor, cat); hasErrors(probs) {
				continue
			}
			f := mustFit(t, des, floor, cat)
			want := bruteMax(t, des.FabricSpec(), floor, cat)
			r := f.Report
			trials++
			if r.LinksKept > want || r.LinksKeptMax < want {
				t.Fatalf("case %d trial %d (%v): kept %d, best %d, bound %d", ci, trial, did, r.LinksKept, want, r.LinksKeptMax)
			}
			if !c.exact {
				continue
			}
			if r.LinksKept != want {
				t.Errorf("case %d trial %d (%v): kept %d, the best assignment keeps %d (bound %d, tiers %+v)", ci, trial, did, r.LinksKept, want, r.LinksKeptMax, r.Tiers)
			}
			cross := strings.Contains(strings.Join(did, " "), "cross")
			switch {
			case r.LinksKeptMax == want:
				tight++
			case !cross:
				t.Errorf("case %d trial %d (%v): the bound %d is above the maximum %d", ci, trial, did, r.LinksKeptMax, want)
			}
		}
	}
	t.Logf("%d floors; on the %d grown ones the bound equals the maximum on %d", trials, 3*bruteTrials, tight)
	if trials < 3*bruteTrials {
		t.Fatalf("only %d floors built", trials)
	}
}
