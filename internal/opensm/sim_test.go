package opensm

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// smHost is where OpenSM and the diags attach in the simulated fabric: the first GPU's HCA, as
// on a cluster whose SM runs on a compute node.
const smHost = "gpu001 mlx5_0"

// writeFiles writes a rendered file set into cfg.Paths the way internal/remote does on a host.
func writeFiles(t *testing.T, p Paths, files Files) {
	t.Helper()
	for _, name := range FileNames {
		if err := os.WriteFile(p.Path(name), []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// simFatTree declares 4 leaves x 2 spines x 16 HCAs, with two partitions, and starts ibsim on
// its expected topology.
func simFatTree(t *testing.T) (*fabric.Graph, *testrig.IBSim) {
	t.Helper()
	spec := fatTreeSpec(4, 2, 16)
	var compute []fabric.Member
	for h := 0; h < 32; h++ {
		compute = append(compute, fabric.Member{HCA: spec.HCAs[h].Name, Membership: Full})
	}
	spec.Partitions = []fabric.Partition{
		{Name: "compute", PKey: "0x0001", IPoIB: true, MTU: 4096, RateGbps: 400, Members: compute},
		{Name: "storage", PKey: "0x0002", Members: []fabric.Member{
			{HCA: spec.HCAs[40].Name, Membership: Limited},
			{GUID: "SELF", Membership: Full},
		}},
	}
	g := buildGraph(t, spec)
	began := time.Now()
	sim := testrig.StartIBSim(t, ExpectedTopology(g))
	t.Logf("ibsim ready in %s", time.Since(began).Round(time.Millisecond))
	return g, sim
}

func renderInto(t *testing.T, g *fabric.Graph, dir string) (Config, Files) {
	t.Helper()
	o := GraphOptions{Paths: Paths{ConfigDir: dir}, Options: map[string]string{}}
	o.Options["log_file"] = filepath.Join(dir, "opensm.log")
	o.Options["force_log_flush"] = "TRUE"
	cfg, err := FromGraph(g, o)
	if err != nil {
		t.Fatalf("FromGraph: %v", err)
	}
	files, err := Render(cfg)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	writeFiles(t, cfg.Paths, files)
	return cfg, files
}

func readLog(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "opensm.log"))
	if err != nil {
		t.Fatalf("reading OpenSM log: %v", err)
	}
	return string(b)
}

func pkeysOf(t *testing.T, sim *testrig.IBSim, lid int) string {
	t.Helper()
	r, err := sim.Run(t, smHost, 20*time.Second, "smpquery", "pkeys", fmt.Sprint(lid), "1")
	if err != nil {
		t.Fatalf("smpquery pkeys %d: %v", lid, err)
	}
	return r.Stdout
}

func discover(t *testing.T, sim *testrig.IBSim) *Discovered {
	t.Helper()
	r, err := sim.Run(t, smHost, 30*time.Second, "ibnetdiscover")
	if err != nil {
		t.Fatalf("ibnetdiscover: %v", err)
	}
	t.Logf("ibnetdiscover: %s", r.Elapsed.Round(time.Millisecond))
	d, err := ParseTopology(r.Stdout)
	if err != nil {
		t.Fatalf("parsing ibnetdiscover output: %v\n%s", err, r.Stdout)
	}
	return d
}

// TestSimulatedFatTree runs the real programs on the declared 2-tier fat tree: OpenSM routes it
// with ftree from the rendered files, ibnetdiscover finds exactly the declared fabric, the
// partitions reach the ports, a counter set in the simulator shows in perfquery, and an unlinked
// cable shows up as missing.
func TestSimulatedFatTree(t *testing.T) {
	testrig.RequirePeers(t)
	g, sim := simFatTree(t)
	dir := sim.Dir
	cfg, _ := renderInto(t, g, dir)
	if cfg.RoutingEngine != "ftree" || len(cfg.Roots) != 2 || len(cfg.ComputeNodes) != 64 {
		t.Fatalf("FromGraph chose %q with %d roots and %d CNs; want ftree, 2, 64", cfg.RoutingEngine, len(cfg.Roots), len(cfg.ComputeNodes))
	}
	conf := cfg.Paths.Path(FileOpenSMConf)

	r, err := sim.RunOpenSMOnce(t, smHost, conf, 60*time.Second)
	if err != nil {
		t.Fatalf("opensm: %v\n%s", err, r.Stdout)
	}
	t.Logf("opensm -o: %s", r.Elapsed.Round(time.Millisecond))
	v := ParseLog(r.Stdout + r.Stderr + readLog(t, dir))
	if err := v.Check(Expect{Engine: "ftree", Roots: 2, Leaves: 4, OptionFile: conf}); err != nil {
		t.Fatalf("%v\nstdout:\n%s\nlog:\n%s", err, r.Stdout, readLog(t, dir))
	}
	if !v.SubnetUp {
		t.Errorf("OpenSM never logged SUBNET UP")
	}

	t.Run("no drift", func(t *testing.T) {
		rep := DriftWith(g, discover(t, sim), DriftOptions{Simulated: true})
		if !rep.Clean() {
			t.Fatalf("drift on the fabric as declared:\n%s", rep)
		}
		// On real hardware the same links would have to run at 4xNDR: the simulator's 4xHDR
		// is reported as degraded when the stand-in is not expected.
		hw := DriftWith(g, discover(t, sim), DriftOptions{})
		if len(hw.Degraded) != len(g.Links) || hw.Degraded[0].Want != "4xNDR" || hw.Degraded[0].Got != "4xHDR" {
			t.Fatalf("without the simulator option every link should be 4xHDR instead of 4xNDR; got %d degraded of %d, first %+v", len(hw.Degraded), len(g.Links), hw.Degraded[0])
		}
	})

	t.Run("partitions", func(t *testing.T) {
		lids := sim.LIDs(t)
		lidOf := func(h int) int {
			lid, ok := lids[hcaGUID(h).String()]
			if !ok {
				t.Fatalf("no LID for HCA %d (%s) in guid2lid", h, hcaGUID(h))
			}
			return lid
		}
		if p := pkeysOf(t, sim, lidOf(5)); !strings.Contains(p, "0x8001") {
			t.Errorf("HCA 5, a full member of compute (0x0001), lacks 0x8001:\n%s", p)
		}
		if p := pkeysOf(t, sim, lidOf(40)); !strings.Contains(p, "0x0002") || strings.Contains(p, "0x8002") || strings.Contains(p, "0x8001") {
			t.Errorf("HCA 40, a limited member of storage only, should show 0x0002 and neither 0x8002 nor 0x8001:\n%s", p)
		}
		if p := pkeysOf(t, sim, lidOf(50)); strings.Contains(p, "0x8001") || strings.Contains(p, "0x0002") {
			t.Errorf("HCA 50 is in no tenant partition but shows one:\n%s", p)
		}
		if p := pkeysOf(t, sim, lidOf(0)); !strings.Contains(p, "0x8002") {
			t.Errorf("the SM port (SELF) is a full member of storage but lacks 0x8002:\n%s", p)
		}
	})

	t.Run("perfquery", func(t *testing.T) {
		lid := sim.LIDs(t)[fmt.Sprintf("0x%016x", 0x0002c90300001003)] // leaf01
		set := map[string]uint64{"SymbolErrorCounter": 7, "LinkDownedCounter": 3, "PortRcvErrors": 11, "PortXmitDiscards": 5, "PortXmitWait": 12345}
		for _, name := range []string{"SymbolErrorCounter", "LinkDownedCounter", "PortRcvErrors", "PortXmitDiscards", "PortXmitWait"} {
			reply := sim.Console(t, fmt.Sprintf(`PerformanceSet "leaf01"[2] PortCounters.%s=%d`, name, set[name]))
			if !strings.Contains(reply, "has been set to") {
				t.Fatalf("PerformanceSet %s: %q", name, reply)
			}
		}
		r, err := sim.Run(t, smHost, 20*time.Second, "perfquery", fmt.Sprint(lid), "2")
		if err != nil {
			t.Fatal(err)
		}
		pcs, err := ParsePerfQuery(r.Stdout)
		if err != nil || len(pcs) != 1 {
			t.Fatalf("ParsePerfQuery: %v, %d blocks\n%s", err, len(pcs), r.Stdout)
		}
		if pcs[0].LID != lid || pcs[0].Port != 2 {
			t.Errorf("block is for lid %d port %d, want %d port 2", pcs[0].LID, pcs[0].Port, lid)
		}
		for name, want := range set {
			if got := pcs[0].Counters[name]; got != want {
				t.Errorf("%s = %d, want %d", name, got, want)
			}
		}
	})

	t.Run("unlinked cable is missing", func(t *testing.T) {
		reply := sim.Console(t, `Unlink "leaf01"[17]`)
		if strings.Contains(reply, "not found") || strings.Contains(reply, "can't") {
			t.Fatalf("Unlink: %s", reply)
		}
		rep := DriftWith(g, discover(t, sim), DriftOptions{Simulated: true})
		want := "missing link: leaf01[17] <-> spine01[1]"
		if got := rep.Lines(); len(got) != 1 || got[0] != want {
			t.Fatalf("drift after Unlink:\n%s\nwant only: %s", rep, want)
		}
	})

	t.Run("verdict catches a fallback", func(t *testing.T) {
		// Render refuses lmc > 0 with ftree; write what a careless hand would, and check that
		// the log verdict sees OpenSM fall back to minhop while exiting 0.
		bad := filepath.Join(dir, "fallback.conf")
		text := fmt.Sprintf("routing_engine ftree\nlmc 1\nlog_file %s\n", filepath.Join(dir, "fallback.log"))
		if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := sim.RunOpenSMOnce(t, smHost, bad, 60*time.Second)
		if err != nil {
			t.Fatalf("opensm exits 0 on a fallback, got %v", err)
		}
		logText, _ := os.ReadFile(filepath.Join(dir, "fallback.log"))
		v := ParseLog(r.Stdout + string(logText))
		if v.Engine != "minhop" || len(v.Failed) != 1 || v.Failed[0] != "ftree" {
			t.Fatalf("verdict: engine %q failed %v; want minhop after ftree", v.Engine, v.Failed)
		}
		if err := v.Check(Expect{Engine: "ftree"}); err == nil || !strings.Contains(err.Error(), "fallback") {
			t.Fatalf("Check should report the fallback, got %v", err)
		}
	})
}

// TestPartitionChangeBySIGHUP changes partitions.conf under a running OpenSM: Reload says a
// SIGHUP is enough, and after it the new member carries the P_Key.
func TestPartitionChangeBySIGHUP(t *testing.T) {
	testrig.RequirePeers(t)
	g, sim := simFatTree(t)
	dir := sim.Dir
	cfg, before := renderInto(t, g, dir)
	conf := cfg.Paths.Path(FileOpenSMConf)
	osm := sim.StartOpenSM(t, smHost, conf)
	if !testrig.WaitFor(60*time.Second, func() bool { return strings.Contains(readLogIfAny(dir), "SUBNET UP") || osm.Exited() }) || osm.Exited() {
		t.Fatalf("OpenSM did not bring the subnet up:\n%s\n%s", osm.Output(), readLogIfAny(dir))
	}
	lid := sim.LIDs(t)[hcaGUID(50).String()]
	if p := pkeysOf(t, sim, lid); strings.Contains(p, "0x8001") {
		t.Fatalf("HCA 50 is not in compute yet but shows 0x8001")
	}

	// Add HCA 50 to compute.
	cfg.Partitions[0].Members = append(cfg.Partitions[0].Members, Member{GUID: hcaGUID(50), Membership: Full})
	after, err := Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := Reload(before, after)
	if d.Action != ActionSIGHUP {
		t.Fatalf("Reload = %v (%v), want sighup", d.Action, d.Reasons)
	}
	writeFiles(t, cfg.Paths, after)
	offset := len(readLogIfAny(dir))
	if err := osm.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if !testrig.WaitFor(30*time.Second, func() bool { return strings.Contains(pkeysOf(t, sim, lid), "0x8001") }) {
		t.Fatalf("after SIGHUP HCA 50 still lacks 0x8001; log since:\n%s", readLogIfAny(dir)[offset:])
	}
	// The P_Key lands early in the heavy sweep; its routing lines follow, later on a loaded
	// machine: wait for the sweep to be logged whole rather than read the log at once.
	want := Expect{Engine: "ftree", Roots: 2}
	var v Verdict
	testrig.WaitFor(30*time.Second, func() bool {
		v = ParseLog(readLogIfAny(dir)[offset:])
		return v.Check(want) == nil
	})
	if err := v.Check(want); err != nil {
		t.Fatalf("heavy sweep after SIGHUP: %v", err)
	}
	// The SA of the running OpenSM agrees: HCA 50's P_Key table record holds 0x8001.
	r, err := sim.Run(t, smHost, 20*time.Second, "saquery", "--smkey", "1", "PKTR", fmt.Sprint(lid))
	if err != nil {
		t.Fatalf("saquery: %v", err)
	}
	if !strings.Contains(r.Stdout, "0x8001") {
		t.Fatalf("saquery PKTR %d lacks 0x8001:\n%s", lid, r.Stdout)
	}

	// A new routing engine is not applied by SIGHUP: Reload asks for a restart, and a SIGHUP
	// alone leaves OpenSM routing with ftree. (It stays ftree and does not fall back because
	// the CN file keeps its contents when the engine no longer reads it; see Config.Roots.)
	cfg2, err := FromGraph(g, GraphOptions{RoutingEngine: "updn", Paths: cfg.Paths, Options: cfg.Options})
	if err != nil {
		t.Fatal(err)
	}
	cfg2.Partitions = cfg.Partitions
	updn, err := Render(cfg2)
	if err != nil {
		t.Fatal(err)
	}
	if d := Reload(after, updn); d.Action != ActionRestart || !strings.Contains(strings.Join(d.Reasons, "\n"), "routing_engine changed ftree -> updn") {
		t.Fatalf("Reload for a new engine = %v %v, want restart", d.Action, d.Reasons)
	}
	writeFiles(t, cfg.Paths, updn)
	offset = len(readLogIfAny(dir))
	if err := osm.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if !testrig.WaitFor(30*time.Second, func() bool { return strings.Contains(readLogIfAny(dir)[offset:], "tables configured") }) {
		t.Fatalf("no routing after the second SIGHUP:\n%s", readLogIfAny(dir)[offset:])
	}
	if v := ParseLog(readLogIfAny(dir)[offset:]); v.Engine != "ftree" {
		t.Fatalf("after SIGHUP the engine is %q: OpenSM 3.3 was expected to keep routing with ftree until restarted\n%s", v.Engine, readLogIfAny(dir)[offset:])
	}
}

func readLogIfAny(dir string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "opensm.log"))
	return string(b)
}

// TestSimulatedFatTree1024 is the same pipeline at SuperPOD scale: 32 leaves, 16 spines,
// 1024 HCAs (128 DGX H100), radix 64.
func TestSimulatedFatTree1024(t *testing.T) {
	testrig.RequirePeers(t)
	g := buildGraph(t, fatTreeSpec(32, 16, 32))
	began := time.Now()
	sim := testrig.StartIBSim(t, ExpectedTopology(g))
	t.Logf("ibsim ready in %s", time.Since(began).Round(time.Millisecond))
	cfg, _ := renderInto(t, g, sim.Dir)
	r, err := sim.RunOpenSMOnce(t, smHost, cfg.Paths.Path(FileOpenSMConf), 2*time.Minute)
	if err != nil {
		t.Fatalf("opensm: %v", err)
	}
	t.Logf("opensm -o: %s", r.Elapsed.Round(time.Millisecond))
	v := ParseLog(r.Stdout + readLog(t, sim.Dir))
	if err := v.Check(Expect{Engine: "ftree", Roots: 16, Leaves: 32, OptionFile: cfg.Paths.Path(FileOpenSMConf)}); err != nil {
		t.Fatal(err)
	}
	if rep := DriftWith(g, discover(t, sim), DriftOptions{Simulated: true}); !rep.Clean() {
		t.Fatalf("drift:\n%s", rep)
	}
}

// TestSimulatedDragonflyUpdn routes a dragonfly+ (3 groups of 2 spines and 2 leaves, spines
// linked across groups) with the engine FromGraph picks for it, updn, and the top tier as roots.
func TestSimulatedDragonflyUpdn(t *testing.T) {
	testrig.RequirePeers(t)
	var sw []fabric.Switch
	hcas := map[string]int{}
	var links [][2]fabric.End
	for gi := 1; gi <= 3; gi++ {
		for s := 1; s <= 2; s++ {
			sw = append(sw, fabric.Switch{Name: fmt.Sprintf("g%ds%d", gi, s), Group: fmt.Sprintf("g%d", gi)})
		}
		for l := 1; l <= 2; l++ {
			leaf := fmt.Sprintf("g%dl%d", gi, l)
			sw = append(sw, fabric.Switch{Name: leaf, Group: fmt.Sprintf("g%d", gi)})
			hcas[leaf] = 2
			for s := 1; s <= 2; s++ {
				links = append(links, [2]fabric.End{e(leaf, 20+s), e(fmt.Sprintf("g%ds%d", gi, s), l)})
			}
		}
	}
	for a := 1; a <= 3; a++ {
		for b := a + 1; b <= 3; b++ {
			for s := 1; s <= 2; s++ {
				links = append(links, [2]fabric.End{e(fmt.Sprintf("g%ds%d", a, s), 30+b), e(fmt.Sprintf("g%ds%d", b, s), 30+a)})
			}
		}
	}
	g := buildGraph(t, smallSpec(sw, hcas, links))
	sim := testrig.StartIBSim(t, ExpectedTopology(g))
	cfg, _ := renderInto(t, g, sim.Dir)
	if cfg.RoutingEngine != "updn" || len(cfg.Roots) != 6 {
		t.Fatalf("FromGraph: %s with %d roots, want updn with the 6 spines", cfg.RoutingEngine, len(cfg.Roots))
	}
	r, err := sim.RunOpenSMOnce(t, "n000 mlx5_0", cfg.Paths.Path(FileOpenSMConf), time.Minute)
	if err != nil {
		t.Fatalf("opensm: %v", err)
	}
	if err := ParseLog(r.Stdout + readLog(t, sim.Dir)).Check(Expect{Engine: "updn", OptionFile: cfg.Paths.Path(FileOpenSMConf)}); err != nil {
		t.Fatal(err)
	}
}
