package analysis_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// TestModelRoutesMatchOpenSM runs OpenSM 3.3 on ibsim for generated fabrics with each routing
// engine the effective-bisection model reproduces, reads the forwarding tables OpenSM dumped
// (opensm-lfts.dump) and compares, for every ordered pair of endpoints, the path through the
// dumped tables with the path through the model's: the same switches left by the same ports.
func TestModelRoutesMatchOpenSM(t *testing.T) {
	testrig.RequirePeers(t)
	trees := []string{"ftree", "updn", "minhop"}
	for _, tc := range []struct {
		name    string
		p       topogen.Params
		engines []string
		damage  func(*fabric.Spec) // applied to the design before the graph is built
		spec    *fabric.Spec       // used instead of the design when set
	}{
		{"fat-tree 2-tier 8 leaves, the last half full", topogen.Params{Kind: "fat-tree", Nodes: 30, PlannedNodes: 32, Tiers: 2}, trees, nil, nil},
		// leaf01 loses 12 of its 32 HCA cables: the leaves that carry fewer end ports now
		// come first in GUID order, which minhop's sort by end ports reorders and ftree pads
		// with dummy targets.
		{"fat-tree 2-tier 8 leaves, leaf01 with 20 HCAs", topogen.Params{Kind: "fat-tree", Nodes: 32, Tiers: 2}, trees, uncableHCAs(12), nil},
		{"fat-tree 2-tier 16 leaves x 8 spines (512 GPUs)", topogen.Params{Kind: "fat-tree", Nodes: 64, Tiers: 2, Spines: 8}, trees, nil, nil},
		// Damage as users plan it: three leaf-spine cables missing on different leaves, and
		// spine02 gone (its cables unplugged), so port groups differ in size and some leaves
		// reach a spine by fewer links.
		{"fat-tree 2-tier 8 leaves, 3 uplinks missing, spine02 gone", topogen.Params{Kind: "fat-tree", Nodes: 32, Tiers: 2}, trees, damageUplinks, nil},
		// The same tree cabled the other way: each leaf's uplinks to one spine on consecutive
		// ports (topogen deals them round-robin), under which minhop matches ftree's numbers.
		{"fat-tree 2-tier 16 leaves x 8 spines, uplinks blocked by spine", topogen.Params{}, trees, nil, fatTreeSpec(16, 8, 32)},
		{"fat-tree 3-tier 2 pods", topogen.Params{Kind: "fat-tree", Nodes: 132, Tiers: 3}, trees, nil, nil},
		{"rail-optimized 1 SU", topogen.Params{Kind: "rail-optimized", ScalableUnits: 1}, trees, nil, nil},
		{"rail-optimized 1 SU, one node slot for UFM (RA-11333-001)", topogen.Params{Kind: "rail-optimized", ScalableUnits: 1, ReservedNodeSlots: 1}, trees, nil, nil},
		{"dragonfly+ 3 groups", topogen.Params{Kind: "dragonfly-plus", Groups: 3, LeavesPerGroup: 4, SpinesPerGroup: 4, Nodes: 12}, []string{"updn", "minhop", "ftree"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			if spec == nil {
				d, err := topogen.Generate(tc.p, catalog.Default())
				if err != nil {
					t.Fatalf("topogen: %v", err)
				}
				spec = d.Spec()
			}
			if tc.damage != nil {
				tc.damage(spec)
			}
			g := buildGraph(t, spec)
			if want := opensm.DefaultEngine(g); want != tc.engines[0] {
				t.Fatalf("the provider configures %s on this fabric; the test starts with %s", want, tc.engines[0])
			}
			sim := testrig.StartIBSim(t, opensm.ExpectedTopology(g))
			for _, engine := range tc.engines {
				t.Run(engine, func(t *testing.T) {
					lfts, cfg := runOpenSMWithDump(t, sim, g, engine)
					total, same, first := compareRoutes(t, g, cfg, lfts)
					t.Logf("%s on %s: %d of %d endpoint paths equal (%.2f%%)", engine, tc.name, same, total, 100*float64(same)/float64(total))
					if same != total {
						t.Errorf("%d of %d paths differ from OpenSM's; first:\n%s", total-same, total, first)
					}
				})
			}
		})
	}
}

// runOpenSMWithDump routes the simulated fabric once with engine, as the provider would
// configure it, and returns the dumped forwarding tables.
func runOpenSMWithDump(t *testing.T, sim *testrig.IBSim, g *fabric.Graph, engine string) (*LFTs, opensm.Config) {
	t.Helper()
	dir := filepath.Join(sim.Dir, engine)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := renderInto(t, g, dir, opensm.GraphOptions{RoutingEngine: engine, Options: map[string]string{
		"log_flags": "0x43", "dump_files_dir": dir,
	}})
	smHost := opensm.HCADescription(g, g.Endpoints()[0])
	began := time.Now()
	r, err := sim.RunOpenSMOnce(t, smHost, cfg.Paths.Path(opensm.FileOpenSMConf), 2*time.Minute)
	if err != nil {
		t.Fatalf("opensm: %v\n%s", err, r.Stdout)
	}
	v := opensm.ParseLog(r.Stdout + r.Stderr + readLog(t, dir))
	if err := v.Check(opensm.Expect{Engine: engine, OptionFile: cfg.Paths.Path(opensm.FileOpenSMConf)}); err != nil {
		t.Fatalf("%v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileLFTDump))
	if err != nil {
		t.Fatalf("OpenSM wrote no LFT dump: %v", err)
	}
	lfts, err := ParseLFTs(string(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("opensm -o with %s: %s, %d switch tables", engine, time.Since(began).Round(time.Millisecond), len(lfts.Switches))
	return lfts, cfg
}

// compareRoutes follows every endpoint pair through OpenSM's tables and the model's and counts
// the equal paths; first describes the first difference.
func compareRoutes(t *testing.T, g *fabric.Graph, cfg opensm.Config, lfts *LFTs) (total, same int, first string) {
	t.Helper()
	rt, err := analysis.ComputeRoutes(g, mustModelRouting(t, g, cfg))
	if err != nil || rt == nil {
		t.Fatalf("model: %v", err)
	}
	if rt.Engine != cfg.RoutingEngine {
		t.Fatalf("the model routes with %s (%v), OpenSM with %s", rt.Engine, rt.Fallbacks, cfg.RoutingEngine)
	}
	nguid := simNodeGUIDs(t, g)
	type end struct {
		dev  int32
		port int
	}
	peer := map[end]end{}
	for _, l := range g.Links {
		peer[end{l.A, l.PortA}] = end{l.B, l.PortB}
		peer[end{l.B, l.PortB}] = end{l.A, l.PortA}
	}
	tables := map[int32]*SwitchLFT{}
	for i := range g.Devices {
		if g.Devices[i].Kind != fabric.KindSwitch {
			continue
		}
		if sw, ok := lfts.Switch(nguid[i]); ok {
			tables[int32(i)] = sw
		}
	}
	eps := rt.Endpoints()
	lids := make([]int, len(eps))
	devs := make([]int32, len(eps))
	for i, e := range eps {
		d, _ := g.Lookup(e.HCA)
		devs[i] = d
		lid, ok := lfts.LIDOf(nguid[d] + opensm.GUID(e.Port))
		if !ok {
			t.Fatalf("no LID for %s port %d (port GUID %s) in the dump", e.HCA, e.Port, nguid[d]+opensm.GUID(e.Port))
		}
		lids[i] = lid
	}
	osmPath := func(src, dst int) ([]analysis.Hop, bool) {
		var hops []analysis.Hop
		at := peer[end{devs[src], eps[src].Port}]
		for i := 0; i < 64; i++ {
			tbl := tables[at.dev]
			if tbl == nil {
				return hops, false
			}
			p, ok := tbl.Ports[lids[dst]]
			if !ok {
				return hops, false
			}
			hops = append(hops, analysis.Hop{Switch: g.Devices[at.dev].Name, Port: p})
			next, ok := peer[end{at.dev, p}]
			if !ok {
				return hops, false
			}
			if next.dev == devs[dst] && next.port == eps[dst].Port {
				return hops, true
			}
			if g.Devices[next.dev].Kind != fabric.KindSwitch {
				return hops, false
			}
			at = next
		}
		return hops, false
	}
	for s := range eps {
		for d := range eps {
			if s == d {
				continue
			}
			total++
			want, okW := osmPath(s, d)
			got, okG := rt.Path(s, d)
			if okW && okG && slices.Equal(want, got) {
				same++
			} else if first == "" {
				first = fmt.Sprintf("  %s -> %s (LID %d)\n  OpenSM: %v (complete %v)\n  model:  %v (complete %v)", eps[s].HCA, eps[d].HCA, lids[d], want, okW, got, okG)
			}
		}
	}
	return total, same, first
}

// uncableHCAs removes the cables of the first n HCAs (they stay declared, without a link).
func uncableHCAs(n int) func(*fabric.Spec) {
	return func(s *fabric.Spec) {
		drop := map[string]bool{}
		for _, h := range s.HCAs[:n] {
			drop[h.Name] = true
		}
		kept := s.Cables[:0]
		for _, c := range s.Cables {
			if !drop[c.A.Device] && !drop[c.B.Device] {
				kept = append(kept, c)
			}
		}
		s.Cables = kept
	}
}

// damageUplinks removes the 1st, 40th and 70th leaf-spine cable and every cable of spine02.
func damageUplinks(s *fabric.Spec) {
	isSpine := func(d string) bool { return strings.HasPrefix(d, "spine") }
	kept := s.Cables[:0]
	n := 0
	for _, c := range s.Cables {
		if isSpine(c.A.Device) || isSpine(c.B.Device) {
			n++
			if n == 1 || n == 40 || n == 70 || c.A.Device == "spine02" || c.B.Device == "spine02" {
				continue
			}
		}
		kept = append(kept, c)
	}
	s.Cables = kept
}

// TestModelFallbackMatchesOpenSM: on a fabric ftree refuses (one leaf under two spines: "not a
// fat tree" to ftree) OpenSM falls back to minhop and exits 0; the model says the same and its
// minhop paths equal OpenSM's.
func TestModelFallbackMatchesOpenSM(t *testing.T) {
	testrig.RequirePeers(t)
	g := buildGraph(t, fatTreeSpec(1, 2, 16))
	sim := testrig.StartIBSim(t, opensm.ExpectedTopology(g))
	dir := filepath.Join(sim.Dir, "fallback")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := renderInto(t, g, dir, opensm.GraphOptions{RoutingEngine: "ftree", Options: map[string]string{"log_flags": "0x43", "dump_files_dir": dir}})
	r, err := sim.RunOpenSMOnce(t, smHost, cfg.Paths.Path(opensm.FileOpenSMConf), time.Minute)
	if err != nil {
		t.Fatalf("opensm: %v\n%s", err, r.Stdout)
	}
	v := opensm.ParseLog(r.Stdout + r.Stderr + readLog(t, dir))
	if v.Engine != "minhop" || len(v.Failed) != 1 || v.Failed[0] != "ftree" {
		t.Fatalf("OpenSM routed with %q after %v; the test expects ftree to fail and minhop to route", v.Engine, v.Failed)
	}
	rt, err := analysis.ComputeRoutes(g, mustModelRouting(t, g, cfg))
	if err != nil || rt.Engine != "minhop" || len(rt.Fallbacks) != 1 || !strings.HasPrefix(rt.Fallbacks[0], "ftree:") {
		t.Fatalf("model: %+v, %v; want ftree to fail and minhop to route", rt, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, FileLFTDump))
	if err != nil {
		t.Fatal(err)
	}
	lfts, err := ParseLFTs(string(b))
	if err != nil {
		t.Fatal(err)
	}
	cfg.RoutingEngine = "minhop" // what routed
	total, same, first := compareRoutes(t, g, cfg, lfts)
	if same != total {
		t.Fatalf("%d of %d paths differ; first:\n%s", total-same, total, first)
	}
	t.Logf("fallback: model and OpenSM both route with minhop after ftree fails (%s); %d of %d paths equal", rt.Fallbacks[0], same, total)
}
