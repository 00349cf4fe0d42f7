package asbuilt

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

var update = flag.Bool("update", false, "rewrite the brownfield floor files: the net file from handFloor, the snapshot from the real ibnetdiscover on ibsim")

// The brownfield example's floor: the hand-built net file ibsim loads (testdata), and what the
// real ibnetdiscover printed for it with the node name map (the example's floor directory).
var (
	floorNet      = filepath.Join("testdata", "brownfield-floor.net")
	floorDir      = filepath.Join("..", "..", "examples", "clusters", "brownfield", "floor")
	floorSnapshot = filepath.Join(floorDir, "ibnetdiscover.out")
	floorNameMap  = filepath.Join(floorDir, "node-name-map")
)

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The committed net file and node name map are the issue's floor as handFloor writes it, so the
// snapshot can be made again from them (go test -run Simulated -update with peers).
func TestBrownfieldFloorSource(t *testing.T) {
	h := issueFloor()
	if *update {
		if err := os.WriteFile(floorNet, []byte(h.net()), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(floorDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(floorNameMap, []byte(h.nodeNameMap()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if readFile(t, floorNet) != h.net() || readFile(t, floorNameMap) != h.nodeNameMap() {
		t.Fatalf("%s or %s differ from handFloor; run go test -run BrownfieldFloorSource -update", floorNet, floorNameMap)
	}
}

// snapshotFloor reads the committed ibnetdiscover snapshot with its node name map, as the
// example's gpucluster_discovered_fabric does.
func snapshotFloor(t testing.TB) *Floor {
	t.Helper()
	d, err := opensm.ParseTopology(readFile(t, floorSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	nm, err := opensm.ParseNodeNameMap(readFile(t, floorNameMap))
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(d, ReadOptions{NodeNameMap: nm, Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func railDesign(t testing.TB, sus, planned int) *topogen.Design {
	t.Helper()
	des, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: sus, PlannedScalableUnits: planned}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	return des
}

// railTreeMax is the most floor cables any assignment can keep on a 2-tier rail-optimized
// design with m links per leaf-spine pair, computed from the floor alone: a design leaf serves
// one rail (HCAs of one device name, at most d of them) and an HCA keeps its device name, so a
// floor leaf keeps at most its most common device name's cables; a design leaf-spine pair has m
// links, so a floor pair keeps at most min(its links, m). Both are reached when the floor is a
// rail-optimized fabric that the design covers (each floor SU onto a design SU, each spine onto
// a spine), which the test checks by the fit reaching them.
func railTreeMax(s *fabric.Spec, m, d int) (nodeLeaf, leafSpine int) {
	isHCA := map[string]string{}
	for _, h := range s.HCAs {
		isHCA[h.Name] = h.Device
	}
	perLeaf := map[string]map[string]int{}
	pairs := map[[2]string]int{}
	for _, c := range s.Cables {
		switch {
		case isHCA[c.A.Device] != "":
			if perLeaf[c.B.Device] == nil {
				perLeaf[c.B.Device] = map[string]int{}
			}
			perLeaf[c.B.Device][isHCA[c.A.Device]]++
		case isHCA[c.B.Device] != "":
			if perLeaf[c.A.Device] == nil {
				perLeaf[c.A.Device] = map[string]int{}
			}
			perLeaf[c.A.Device][isHCA[c.B.Device]]++
		default:
			a, b := c.A.Device, c.B.Device
			if b < a {
				a, b = b, a
			}
			pairs[[2]string{a, b}]++
		}
	}
	for _, byDev := range perLeaf {
		most := 0
		for _, n := range byDev {
			most = max(most, n)
		}
		nodeLeaf += min(most, d)
	}
	for _, n := range pairs {
		leafSpine += min(n, m)
	}
	return
}

// keptOnFloorPorts counts the floor cables the fitted fabric has on the same two ports.
func keptOnFloorPorts(floor, fitted *fabric.Spec) (int, map[[2]string]int) {
	has := map[[2]fabric.End]bool{}
	for _, c := range fitted.Cables {
		has[[2]fabric.End{c.A, c.B}] = true
		has[[2]fabric.End{c.B, c.A}] = true
	}
	n := 0
	per := map[[2]string]int{}
	for _, c := range floor.Cables {
		if has[[2]fabric.End{c.A, c.B}] {
			n++
			per[[2]string{c.A.Device, c.B.Device}]++
		}
	}
	return n, per
}

// The issue's numbers, on the committed snapshot: at 2 SU, 1,021 kept, the 2 swapped rail
// cables moved, the dead uplink added, nothing unmatched; grown to 4 SU (re-planned at 4),
// links_kept = links_kept_max, each leaf keeping 2 of its 4 links to each old spine.
func TestBrownfieldFit(t *testing.T) {
	f := snapshotFloor(t)
	r := fitReport(t, railDesign(t, 2, 2), f.Spec)
	if r.LinksKept != 1021 || r.LinksMoved != 2 || r.LinksAdded != 1 || r.LinksRemoved != 0 || len(r.DevicesUnmatched) != 0 || r.DevicesMatched != 600 {
		t.Fatalf("2 SU: %+v", r)
	}
	nl, ls := railTreeMax(f.Spec, 4, 32)
	if r.LinksKeptMax != nl+ls || nl+ls != 1021 {
		t.Fatalf("2 SU: links_kept_max %d, the independent maximum %d + %d", r.LinksKeptMax, nl, ls)
	}
	want := []string{
		"move hgx-b017/mlx5_0:1 <-> ib-leaf-10:49: ib-leaf-10:49 -> ib-leaf-09:49",
		"move hgx-b017/mlx5_3:1 <-> ib-leaf-09:49: ib-leaf-09:49 -> ib-leaf-10:49",
		"add ib-leaf-12:6 <-> ib-spine-02:46", // the dead port itself: the only free one on both
	}
	if strings.Join(r.Deviations, "\n") != strings.Join(want, "\n") {
		t.Fatalf("deviations:\n%s", strings.Join(r.Deviations, "\n"))
	}

	fit, err := Fit(railDesign(t, 4, 4), f.Spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	r = fit.Report
	nl, ls = railTreeMax(f.Spec, 2, 32)
	if r.LinksKept != nl+ls || r.LinksKeptMax != nl+ls || nl != 510 || ls != 256 {
		t.Fatalf("4 SU: kept %d, max %d; the independent maximum %d + %d", r.LinksKept, r.LinksKeptMax, nl, ls)
	}
	if r.LinksKept+r.LinksMoved+r.LinksRemoved != len(f.Spec.Cables) || r.LinksKept+r.LinksMoved+r.LinksAdded != len(fit.Spec.Cables) {
		t.Fatalf("4 SU: counts do not add up: %+v, %d floor cables, %d fitted", r, len(f.Spec.Cables), len(fit.Spec.Cables))
	}
	n, per := keptOnFloorPorts(f.Spec, fit.Spec)
	if n != r.LinksKept {
		t.Fatalf("the fitted fabric has %d floor cables on their ports; the report says %d", n, r.LinksKept)
	}
	for l := 1; l <= 16; l++ {
		for s := 1; s <= 8; s++ {
			leaf, spine := "ib-leaf-"+two(l), "ib-spine-"+two(s)
			if k := per[[2]string{leaf, spine}]; k != 2 {
				t.Errorf("%s keeps %d of its links to %s; want 2 of 4", leaf, k, spine)
			}
		}
	}
	if _, probs := fabric.Build(fit.Spec, catalog.Default()); hasErrors(probs) {
		t.Fatalf("the fitted fabric does not build: %v", probs[:min(5, len(probs))])
	}
	// The generator's groups under the floor's names: every switch is in one, and every node is
	// in the group (its SU) of each leaf its HCAs are cabled to.
	for _, sw := range fit.Spec.Switches {
		if fit.Spec.Groups[sw.Name] == "" {
			t.Errorf("switch %s has no group", sw.Name)
		}
	}
	nodeOf := map[string]string{}
	for _, h := range fit.Spec.HCAs {
		nodeOf[h.Name] = h.Node
	}
	checked := 0
	for _, c := range fit.Spec.Cables {
		node, leaf := nodeOf[c.A.Device], c.B.Device
		if node == "" {
			node, leaf = nodeOf[c.B.Device], c.A.Device
		}
		if node == "" {
			continue
		}
		checked++
		if g, lg := fit.Spec.Groups[node], fit.Spec.Groups[leaf]; g == "" || g != lg {
			t.Fatalf("node %s is in group %q, its leaf %s in %q", node, g, leaf, lg)
		}
	}
	if checked != 4*32*8 {
		t.Errorf("%d node cables checked, want 1,024", checked)
	}
}

func two(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

func fitReport(t testing.TB, des *topogen.Design, floor *fabric.Spec) Report {
	t.Helper()
	f, err := Fit(des, floor, nil)
	if err != nil {
		t.Fatal(err)
	}
	return f.Report
}

var reLID = regexp.MustCompile(`\blid \d+`)

// masked drops the snapshot's date line and its LIDs (OpenSM's to assign).
func masked(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(line, "# Topology file: generated on") {
			continue
		}
		out = append(out, reLID.ReplaceAllString(line, "lid N"))
	}
	return strings.Join(out, "\n")
}

// The real tools: ibsim loads the hand-built net file, OpenSM routes it, and the real
// ibnetdiscover prints the committed snapshot (date and LIDs aside). The floor, adopted and
// grown to twice its size (4 SU re-planned at 4), is rendered to OpenSM's files and routed with
// ftree on ibsim running the grown fabric: every spine a root, every leaf a leaf.
func TestSimulatedBrownfieldFloor(t *testing.T) {
	testrig.RequirePeers(t)
	sim := testrig.StartIBSim(t, readFile(t, floorNet))
	const at = "hgx-a001 mlx5_0"
	conf := filepath.Join(sim.Dir, "opensm.conf")
	if err := os.WriteFile(conf, []byte("log_file "+filepath.Join(sim.Dir, "opensm.log")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := sim.RunOpenSMOnce(t, at, conf, 2*time.Minute); err != nil {
		t.Fatalf("opensm: %v\n%s", err, r.Stdout)
	}
	r, err := sim.Run(t, at, time.Minute, "ibnetdiscover")
	if err != nil {
		t.Fatalf("ibnetdiscover: %v", err)
	}
	if *update {
		if err := os.WriteFile(floorSnapshot, []byte(r.Stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if masked(r.Stdout) != masked(readFile(t, floorSnapshot)) {
		t.Fatalf("ibnetdiscover on the hand-built floor differs from %s; run with -update to take it again", floorSnapshot)
	}

	f := snapshotFloor(t)
	fit, err := Fit(railDesign(t, 4, 4), f.Spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, probs := fabric.Build(fit.Spec, catalog.Default())
	if hasErrors(probs) {
		t.Fatalf("grown fabric: %v", probs)
	}
	grown := testrig.StartIBSim(t, opensm.ExpectedTopology(g))
	dir := grown.Dir
	cfg, err := opensm.FromGraph(g, opensm.GraphOptions{Paths: opensm.Paths{ConfigDir: dir}, Options: map[string]string{
		"log_file": filepath.Join(dir, "opensm.log"), "force_log_flush": "TRUE",
	}})
	if err != nil {
		t.Fatal(err)
	}
	files, err := opensm.Render(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(cfg.Paths.Path(name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run, err := grown.RunOpenSMOnce(t, at, cfg.Paths.Path(opensm.FileOpenSMConf), 3*time.Minute)
	if err != nil {
		t.Fatalf("opensm on the grown fabric: %v\n%s", err, run.Stdout)
	}
	v := opensm.ParseLog(run.Stdout + run.Stderr + readFile(t, filepath.Join(dir, "opensm.log")))
	if err := v.Check(opensm.Expect{Engine: "ftree", Roots: 16, Leaves: 32, OptionFile: cfg.Paths.Path(opensm.FileOpenSMConf)}); err != nil {
		t.Fatal(err)
	}
	if cfg.RoutingEngine != "ftree" {
		t.Fatalf("the provider configures %s on the grown fabric", cfg.RoutingEngine)
	}
}

// The speed case with the real tools: a hand-built floor of 8 SU (2,048 HCAs, 64 leaves, 32
// spines) loaded in ibsim, read with the real ibnetdiscover, adopted and grown to 16 SU (3
// tiers). The fit keeps every HCA cable and, of each spine's 64 leaf links, the 32 to the leaves
// of the pod it is placed in: 2,048 + 32 x 32 (TestFitGrowthPastPlan derives it).
func TestSimulatedFloor8SU(t *testing.T) {
	testrig.RequirePeers(t)
	h := handFloor{sus: 8}
	began := time.Now()
	sim := testrig.StartIBSim(t, h.net())
	loaded := time.Since(began)
	r, err := sim.Run(t, "hgx-a001 mlx5_0", 3*time.Minute, "ibnetdiscover")
	if err != nil {
		t.Fatalf("ibnetdiscover: %v", err)
	}
	d, err := opensm.ParseTopology(r.Stdout)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := opensm.ParseNodeNameMap(h.nodeNameMap())
	if err != nil {
		t.Fatal(err)
	}
	began = time.Now()
	f, err := Read(d, ReadOptions{NodeNameMap: nm, Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Spec.HCAs) != 2048 || len(f.Spec.Switches) != 96 || len(f.Spec.Cables) != 4096 {
		t.Fatalf("read %d HCAs, %d switches, %d cables", len(f.Spec.HCAs), len(f.Spec.Switches), len(f.Spec.Cables))
	}
	fit := mustFit(t, railDesign(t, 16, 16), f.Spec, nil)
	t.Logf("ibsim %s, ibnetdiscover %s, Read+Fit %s", loaded.Round(time.Millisecond), r.Elapsed.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	if rep := fit.Report; rep.LinksKept != 2048+32*32 || rep.LinksKeptMax != rep.LinksKept || len(rep.DevicesUnmatched) != 0 {
		t.Fatalf("kept %d, max %d, unmatched %v", rep.LinksKept, rep.LinksKeptMax, rep.DevicesUnmatched)
	}
}
