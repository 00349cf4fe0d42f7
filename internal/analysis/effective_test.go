package analysis

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// designGraph builds a generated design's graph.
func designGraph(t testing.TB, p topogen.Params) *fabric.Graph {
	t.Helper()
	d, err := topogen.Generate(p, catalog.Default())
	if err != nil {
		t.Fatalf("topogen.Generate(%+v): %v", p, err)
	}
	g, problems := fabric.Build(d.Spec(), catalog.Default())
	if fabric.HasErrors(problems) {
		t.Fatalf("fabric.Build: %v", problems)
	}
	return g
}

// routingOf is what the provider passes: the declared switch GUIDs and the top tier as roots.
func routingOf(t testing.TB, g *fabric.Graph, engine string) Routing {
	t.Helper()
	r := Routing{Engines: engineList(engine), GUIDs: make([]uint64, len(g.Devices))}
	top := 0
	for i := range g.Devices {
		d := &g.Devices[i]
		if d.GUID != "" {
			v, err := strconv.ParseUint(strings.TrimPrefix(d.GUID, "0x"), 16, 64)
			if err != nil {
				t.Fatalf("GUID %q of %s: %v", d.GUID, d.Name, err)
			}
			r.GUIDs[i] = v
		}
		if d.Kind == fabric.KindSwitch && d.Level > top {
			top = d.Level
		}
	}
	for i := range g.Devices {
		if d := &g.Devices[i]; d.Kind == fabric.KindSwitch && d.Level == top {
			r.Roots = append(r.Roots, int32(i))
		}
	}
	return r
}

// fatTree512 is the 512-GPU two-tier fat tree of the issue: 64 DGX H100 (512 HCAs), 16 leaves
// x 8 spines, 1:1.
func fatTree512(t testing.TB) *fabric.Graph {
	g := designGraph(t, topogen.Params{Kind: "fat-tree", Nodes: 64, Tiers: 2, Spines: 8})
	r := Analyze(g, nil)
	if r.Endpoints != 512 || r.Tiers != 2 {
		t.Fatalf("fat tree: %d endpoints, %d tiers; want 512, 2", r.Endpoints, r.Tiers)
	}
	return g
}

// TestRoutesComplete checks that every engine gives every endpoint pair a loop-free path of
// the fewest switch hops the fabric allows, on a two-tier and a three-tier tree.
func TestRoutesComplete(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    *fabric.Graph
		hops int // switches on the longest shortest path
		step int // sources checked: every step-th
	}{
		{"2-tier", fatTree512(t), 3, 1},
		{"3-tier", designGraph(t, topogen.Params{Kind: "fat-tree", Nodes: 132, Tiers: 3}), 5, 16},
	} {
		for _, engine := range []string{"ftree", "updn", "minhop"} {
			t.Run(tc.name+"/"+engine, func(t *testing.T) {
				rt, err := ComputeRoutes(tc.g, routingOf(t, tc.g, engine))
				if err != nil || rt == nil {
					t.Fatalf("ComputeRoutes: %v", err)
				}
				if rt.Engine != engine {
					t.Fatalf("routed with %s (fallbacks %v), want %s", rt.Engine, rt.Fallbacks, engine)
				}
				eps := rt.Endpoints()
				longest := 0
				for s := 0; s < len(eps); s += tc.step {
					for d := range eps {
						if s == d {
							continue
						}
						path, ok := rt.Path(s, d)
						if !ok {
							t.Fatalf("no path %s -> %s: %v", eps[s].HCA, eps[d].HCA, path)
						}
						if eps[s].Switch == eps[d].Switch && len(path) != 1 {
							t.Fatalf("%s -> %s on one leaf crosses %v", eps[s].HCA, eps[d].HCA, path)
						}
						if len(path) > longest {
							longest = len(path)
						}
					}
				}
				if longest != tc.hops {
					t.Fatalf("longest path crosses %d switches, want %d", longest, tc.hops)
				}
			})
		}
	}
}

// TestFtreeSpreadsDestinations checks ftree's defining property on a non-blocking two-tier
// tree (Zahavi 2012): every source reaches a destination through the same spine-to-leaf
// channel, and the destinations of one leaf come down distinct channels, one per uplink, so
// the down direction never congests. minhop balances each switch on its own and, on this
// cabling (leaf uplinks round-robin over the spines), sends four destinations of a leaf down
// one channel.
func TestFtreeSpreadsDestinations(t *testing.T) {
	g := fatTree512(t)
	entries := func(engine string) (perLeafMin int) {
		rt, err := ComputeRoutes(g, routingOf(t, g, engine))
		if err != nil {
			t.Fatal(err)
		}
		eps := rt.Endpoints()
		channels := map[string]map[Hop]bool{} // leaf -> the channels its destinations come down
		for d := range eps {
			var entry *Hop
			for s := range eps {
				if eps[s].Switch == eps[d].Switch {
					continue
				}
				path, ok := rt.Path(s, d)
				if !ok || len(path) != 3 {
					t.Fatalf("%s: path %s -> %s: %v", engine, eps[s].HCA, eps[d].HCA, path)
				}
				if entry == nil {
					entry = &path[1]
				} else if *entry != path[1] && engine == "ftree" {
					t.Fatalf("ftree: %s reaches %s down %v, another source down %v", eps[s].HCA, eps[d].HCA, path[1], *entry)
				}
			}
			if channels[eps[d].Switch] == nil {
				channels[eps[d].Switch] = map[Hop]bool{}
			}
			channels[eps[d].Switch][*entry] = true
		}
		perLeafMin = 1 << 30
		for _, c := range channels {
			perLeafMin = min(perLeafMin, len(c))
		}
		return perLeafMin
	}
	if n := entries("ftree"); n != 32 {
		t.Fatalf("ftree: the 32 destinations of some leaf come down only %d distinct channels", n)
	}
	if n := entries("minhop"); n == 32 {
		t.Fatalf("minhop spreads destinations like ftree; the fabric no longer tells the engines apart")
	}
}

// TestEffectiveBisection512 measures the 512-GPU tree under each engine: deterministic, below
// the capacity ratio (1.0) as static routing must be on random patterns, and ftree at least as
// good as minhop.
func TestEffectiveBisection512(t *testing.T) {
	g := fatTree512(t)
	capacity := Analyze(g, nil).BisectionRatio
	if capacity != 1 {
		t.Fatalf("capacity (proved bisection) ratio %v, want 1 for the non-blocking tree", capacity)
	}
	res := map[string]*Effective{}
	for _, engine := range []string{"ftree", "updn", "minhop"} {
		e, err := EffectiveBisection(g, routingOf(t, g, engine))
		if err != nil || e == nil {
			t.Fatalf("%s: %v", engine, err)
		}
		again, _ := EffectiveBisection(g, routingOf(t, g, engine))
		if again.RatioMean != e.RatioMean || again.RatioP05 != e.RatioP05 {
			t.Fatalf("%s: not deterministic: %+v then %+v", engine, e, again)
		}
		if e.RoutingEngine != engine || e.Samples != DefaultSamples {
			t.Fatalf("%s: %+v", engine, e)
		}
		if !(e.RatioP05 > 0 && e.RatioP05 <= e.RatioMean && e.RatioMean < 1) {
			t.Fatalf("%s: mean %v p05 %v; want 0 < p05 <= mean < 1", engine, e.RatioMean, e.RatioP05)
		}
		res[engine] = e
		t.Logf("512-GPU 2-tier fat tree, %s: effective bisection mean %.4f, p05 %.4f over %d patterns (capacity ratio %v)", engine, e.RatioMean, e.RatioP05, e.Samples, capacity)
	}
	if res["ftree"].RatioMean < res["minhop"].RatioMean {
		t.Errorf("ftree (%v) below minhop (%v)", res["ftree"].RatioMean, res["minhop"].RatioMean)
	}
	other, err := EffectiveBisection(g, Routing{Engines: []string{"ftree"}, GUIDs: routingOf(t, g, "").GUIDs, Roots: routingOf(t, g, "").Roots, Seed: 7})
	if err != nil || other.RatioMean == res["ftree"].RatioMean {
		t.Errorf("another seed gives the same mean %v (%v)", other.RatioMean, err)
	}
}

// TestEffectiveNotModelled: engines the model does not reproduce give no number, and an
// engine that fails falls back the way OpenSM does.
func TestEffectiveNotModelled(t *testing.T) {
	g := fatTree512(t)
	r := routingOf(t, g, "torus-2QoS")
	if e, err := EffectiveBisection(g, r); e != nil || err != nil {
		t.Fatalf("torus-2QoS: %+v, %v; want nil, nil", e, err)
	}
	r = routingOf(t, g, "ftree")
	r.Roots = nil
	if rt, err := ComputeRoutes(g, r); err == nil || !strings.Contains(err.Error(), "not modelled") {
		t.Fatalf("ftree without roots (OpenSM ranks from the HCAs): %+v, %v; want not modelled", rt, err)
	}
	// One leaf under two spines: ftree refuses it and OpenSM falls back to minhop, unless told not to.
	one := designGraph(t, topogen.Params{Kind: "fat-tree", Nodes: 4, Tiers: 2, Spines: 2})
	r = routingOf(t, one, "ftree")
	rt, err := ComputeRoutes(one, r)
	if err != nil || rt.Engine != "minhop" || len(rt.Fallbacks) != 1 || rt.Fallbacks[0] != "ftree: fewer than two leaf switches" {
		t.Fatalf("ftree on one leaf: %+v, %v; want a fallback to minhop", rt, err)
	}
	r.Engines, r.NoFallback = []string{"ftree"}, true
	if _, err := ComputeRoutes(one, r); err == nil || !strings.Contains(err.Error(), "no routing engine can route") {
		t.Fatalf("ftree,no_fallback on one leaf: %v", err)
	}
}

// TestPatternArithmetic checks the congestion arithmetic on a fabric small enough to do by
// hand: two leaves of two HCAs, one uplink each to one spine. A pattern pairs the four HCAs in
// one of three ways: both pairs inside the leaves (nothing shared: ratio 1), or both pairs across
// (each uplink and each spine down-link carries two flows: every flow gets half, ratio 0.5).
func TestPatternArithmetic(t *testing.T) {
	g, problems := fabric.Build(fatTree(treeParams{pods: 1, podLeaves: 2, podSpines: 1, hostsPerLeaf: 2, leafUp: 1}), catalog.Default())
	if fabric.HasErrors(problems) {
		t.Fatal(problems)
	}
	r := Routing{Engines: []string{"ftree"}, GUIDs: make([]uint64, len(g.Devices))}
	for i := range g.Devices {
		r.GUIDs[i] = uint64(0x1000 + i)
		if g.Devices[i].Kind == fabric.KindSwitch && g.Devices[i].Level == 2 {
			r.Roots = append(r.Roots, int32(i))
		}
	}
	rt, err := ComputeRoutes(g, r)
	if err != nil || rt.Engine != "ftree" {
		t.Fatalf("%+v, %v", rt, err)
	}
	seen := map[float64]int{}
	for _, x := range rt.sample(300, 1) {
		seen[x]++
	}
	if len(seen) != 2 || seen[1] == 0 || seen[0.5] == 0 {
		t.Fatalf("pattern ratios %v, want only 1 and 0.5", seen)
	}
	// A uniformly random matching is intra-leaf with probability 1/3.
	if f := float64(seen[1]) / 300; f < 0.25 || f > 0.42 {
		t.Errorf("intra-leaf patterns %.2f of 300, want about 1/3", f)
	}
}

// TestEffectiveDependsOnCabling: minhop balances each switch on its own, so which leaf port
// goes to which spine matters. With each leaf's four links to a spine on consecutive ports it
// gets what ftree gets on the 512-GPU tree; dealt round-robin (as the generator cables) the
// destinations that share an uplink index collide on one spine down-link and it loses more than
// half. ftree sorts its port groups by switch and is indifferent.
func TestEffectiveDependsOnCabling(t *testing.T) {
	mean := map[string]float64{}
	for _, blocked := range []bool{false, true} {
		b := newSpecBuilder()
		var spines []string
		for j := 0; j < 8; j++ {
			spines = append(spines, b.sw(fmt.Sprintf("spine%02d", j+1), fabric.RoleSpine, ""))
		}
		for i := 0; i < 16; i++ {
			leaf := b.sw(fmt.Sprintf("leaf%02d", i+1), fabric.RoleLeaf, "")
			for h := 0; h < 32; h++ {
				b.cable(b.hca(), leaf)
			}
			for u := 0; u < 32; u++ {
				s := spines[u%8]
				if blocked {
					s = spines[u/4]
				}
				b.cable(leaf, s)
			}
		}
		g, problems := fabric.Build(&b.spec, catalog.Default())
		if fabric.HasErrors(problems) {
			t.Fatal(problems)
		}
		for _, engine := range []string{"ftree", "minhop"} {
			r := Routing{Engines: engineList(engine), GUIDs: make([]uint64, len(g.Devices))}
			for i := range g.Devices {
				r.GUIDs[i] = uint64(0x1000 + i)
				if g.Devices[i].Kind == fabric.KindSwitch && g.Devices[i].Level == 2 {
					r.Roots = append(r.Roots, int32(i))
				}
			}
			e, err := EffectiveBisection(g, r)
			if err != nil || e == nil {
				t.Fatalf("%s: %v", engine, err)
			}
			mean[fmt.Sprint(engine, blocked)] = e.RatioMean
		}
	}
	t.Logf("means: %v", mean)
	if mean["ftreefalse"] != mean["ftreetrue"] {
		t.Errorf("ftree depends on the cabling: %v", mean)
	}
	if mean["minhoptrue"] != mean["ftreetrue"] {
		t.Errorf("minhop on blocked cabling %v, ftree %v: expected equal", mean["minhoptrue"], mean["ftreetrue"])
	}
	if mean["minhopfalse"] > mean["minhoptrue"]/2 {
		t.Errorf("minhop on round-robin cabling %v, not below half of blocked %v", mean["minhopfalse"], mean["minhoptrue"])
	}
}

// TestEffectiveNeverPanics runs the model on random wirings, valid or messy (loops, parallel
// links, HCAs left uncabled, switches in pieces), with every engine and random roots: it runs
// on every plan, so it must return numbers or an error, never panic; minhop, which OpenSM
// falls back to, must route every pair its switches connect, without loops.
func TestEffectiveNeverPanics(t *testing.T) {
	cat := catalog.Default()
	rng := rand.New(rand.NewPCG(9, 10))
	modelled := 0
	for i := 0; i < 1500; i++ {
		spec := randomSpec(rng, 8, 16)
		if i%2 == 0 {
			spec = messySpec(rng)
		}
		g, _ := fabric.Build(spec, cat)
		if g == nil {
			continue
		}
		r := Routing{GUIDs: make([]uint64, len(g.Devices))}
		var sws []int32
		for d := range g.Devices {
			r.GUIDs[d] = rng.Uint64()>>8 | 1
			if g.Devices[d].Kind == fabric.KindSwitch {
				sws = append(sws, int32(d))
			}
		}
		for _, s := range sws {
			if rng.IntN(3) == 0 {
				r.Roots = append(r.Roots, s)
			}
		}
		for _, engine := range []string{"ftree", "updn", "minhop"} {
			r.Engines = engineList(engine)
			e, err := EffectiveBisection(g, r)
			if err == nil && e != nil {
				modelled++
				// (p05 may exceed the mean: when 95 of 100 patterns get everything, it is 1.)
				if !(e.RatioP05 >= 0 && e.RatioP05 <= 1 && e.RatioMean >= 0 && e.RatioMean <= 1) {
					t.Fatalf("case %d %s: mean %v p05 %v", i, engine, e.RatioMean, e.RatioP05)
				}
			}
		}
		r.Engines = []string{"minhop"}
		rt, err := ComputeRoutes(g, r)
		if err != nil {
			continue
		}
		n := rt.n
		comp := make([]int32, len(n.dev)) // connected components of the switches
		for s := range comp {
			comp[s] = -1
		}
		for s := range comp {
			if comp[s] >= 0 {
				continue
			}
			comp[s] = int32(s)
			queue := []int32{int32(s)}
			for h := 0; h < len(queue); h++ {
				x := queue[h]
				for p := 1; p <= n.nports[x]; p++ {
					if y, ok := n.toSwitch(x, p); ok && comp[y] < 0 {
						comp[y] = int32(s)
						queue = append(queue, y)
					}
				}
			}
		}
		for a := range n.eps {
			for b := range n.eps {
				if a == b {
					continue
				}
				_, ok := rt.Path(a, b)
				if want := comp[n.eps[a].sw] == comp[n.eps[b].sw]; ok != want {
					t.Fatalf("case %d: minhop path %d -> %d complete %v, switches connected %v", i, a, b, ok, want)
				}
			}
		}
	}
	if modelled < 500 {
		t.Fatalf("only %d engine runs gave a number; the generator no longer exercises the model", modelled)
	}
}

// engineList is one engine as a routing list; "" is OpenSM's default (an empty list).
func engineList(engine string) []string {
	if engine == "" {
		return nil
	}
	return []string{engine}
}
