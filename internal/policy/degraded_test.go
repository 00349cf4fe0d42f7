package policy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// running is a generated 2-tier fat tree of `nodes` DGX H100 as designed and as it runs with the
// failed cables removed, analysed, ready for JudgeDegraded.
func running(t *testing.T, nodes int, failed []FailedCable, p Degraded) DegradedInput {
	t.Helper()
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: nodes, Tiers: 2}, cat)
	if err != nil {
		t.Fatal(err)
	}
	spec := d.FabricSpec()
	g, probs := fabric.Build(spec, cat)
	if fabric.HasErrors(probs) {
		t.Fatal(probs)
	}
	down := d.FabricSpec() // its own copy of the cables: RemoveCables edits them in place
	labels := make([]string, len(failed))
	for i, f := range failed {
		labels[i] = f.Cable
	}
	if unknown := down.RemoveCables(labels); len(unknown) > 0 {
		t.Fatalf("%+v", unknown)
	}
	// The running graph may be in pieces: that is what is judged, so the build's connectivity
	// problems are expected here.
	dg, _ := fabric.Build(down, cat)
	if dg == nil || len(dg.Links) != len(g.Links)-len(failed) {
		t.Fatalf("running graph: %d links of %d, %d failed", len(dg.Links), len(g.Links), len(failed))
	}
	return DegradedInput{Designed: analysis.Analyze(g, nil), Degraded: analysis.Analyze(dg, nil), DesignedGraph: g, DegradedGraph: dg,
		Failed: failed, Policy: p, Now: time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)}
}

func since(s string) time.Time {
	t, err := ParseSince(s)
	if err != nil {
		panic(err)
	}
	return t
}

func rules(vs []Violation) string {
	var out []string
	for _, v := range vs {
		out = append(out, string(v.Severity)+" "+v.Rule)
	}
	return strings.Join(out, ", ")
}

// The example: the simulated cluster (8 DGX H100, 64 endpoints, two leaves of 32 down and
// 32 up to one spine) with leaf01:40 <-> spine01:8 down. By hand: the balanced cut between the
// leaves crosses leaf01's uplinks, 31 of 32 left, so 31 x 400 = 12,400 of 64 / 2 x 400 = 12,800
// Gb/s, ratio 31/32 = 0.96875 exactly: within the default (0.9 of the designed 1), one warning.
func TestDegradedOneUplinkSmall(t *testing.T) {
	in := running(t, 8, []FailedCable{{Cable: "leaf01:40", Reason: "symbol errors", Since: since("2026-03-02"), Where: "rack06 U42 leaf01 cage 20 split 2"}}, Degraded{})
	if in.Degraded.BisectionLowerGbps != 12400 || in.Degraded.BisectionUpperGbps != 12400 || in.Designed.FullBisectionGbps != 12800 {
		t.Fatalf("analysis: lower %v upper %v of %v", in.Degraded.BisectionLowerGbps, in.Degraded.BisectionUpperGbps, in.Designed.FullBisectionGbps)
	}
	if r := DegradedRatio(in.Designed, in.Degraded); r != 31.0/32 {
		t.Errorf("ratio %v, want 31/32", r)
	}
	vs := JudgeDegraded(in)
	if rules(vs) != "warning degraded" {
		t.Fatalf("violations: %s\n%v", rules(vs), vs)
	}
	m := vs[0].Message
	for _, want := range []string{
		"degraded: leaf01:40 failed (symbol errors) since 2026-03-02, 12 days ago",
		"12400 Gb/s of 12800 Gb/s full bisection (ratio 0.96875; designed 1)",
		"worst oversubscription 1.0323:1",
		"within policy.degraded (bisection at least 0.9, default: 0.9 x the designed ratio 1)",
		"Where: rack06 U42 leaf01 cage 20 split 2",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("message lacks %q:\n%s", want, m)
		}
	}
	if strings.Contains(m, "0.969") && !strings.Contains(m, "0.96875") {
		t.Errorf("ratio rounded up: %s", m)
	}
	if HasErrors(vs) {
		t.Error("a warning fails the plan")
	}
}

// The 512-GPU fat tree (64 DGX H100: 16 leaves of 32 down / 32 up, 8 spines, 4 links per
// leaf-spine pair). One failed uplink: every balanced cut of leaves crosses 8 x 32 spine links of
// which at most one failed, so the bisection is 255 x 400 = 102,000 of 102,400 Gb/s, ratio
// 255/256 = 0.99609375, which has more than 6 decimals: shown rounded down, 0.996, never 0.9961.
func TestDegradedOneUplink512(t *testing.T) {
	in := running(t, 64, []FailedCable{{Cable: "leaf01:33"}}, Degraded{})
	if in.Designed.Endpoints != 512 || in.Degraded.BisectionLowerGbps != 102000 || in.Designed.FullBisectionGbps != 102400 {
		t.Fatalf("analysis: %d endpoints, lower %v of %v", in.Designed.Endpoints, in.Degraded.BisectionLowerGbps, in.Designed.FullBisectionGbps)
	}
	vs := JudgeDegraded(in)
	if rules(vs) != "warning degraded" {
		t.Fatalf("violations: %s\n%v", rules(vs), vs)
	}
	if !strings.Contains(vs[0].Message, "102000 Gb/s of 102400 Gb/s full bisection (ratio 0.996;") || strings.Contains(vs[0].Message, "0.9961") {
		t.Errorf("message: %s", vs[0].Message)
	}
	if !strings.Contains(vs[0].Message, "leaf01:33 failed (no since date)") {
		t.Errorf("message: %s", vs[0].Message)
	}
}

// All 32 uplinks of one leaf: the leaf and its 32 endpoints are an island. Errors, whatever the
// thresholds: the switch cut off and the endpoints unreachable. The bisection alone would not
// see it: a balanced cut may keep the island on one side, so the 512-GPU tree still proves 7
// leaves' uplinks, 224 x 400 = 89,600 Gb/s (0.875).
func TestDegradedIsolatedLeaf(t *testing.T) {
	var failed []FailedCable
	for p := 33; p <= 64; p++ {
		failed = append(failed, FailedCable{Cable: fmt.Sprintf("leaf03:%d", p)})
	}
	{
		vs := JudgeDegraded(running(t, 64, failed, Degraded{MinBisectionRatio: f64(0.01)}))
		if !HasErrors(vs) || !strings.HasPrefix(rules(vs), "error degraded-isolated-switch, error degraded-unreachable-endpoint, warning degraded") {
			t.Fatalf("%s\n%v", rules(vs), vs)
		}
		if vs[0].Witness != "leaf03" || !strings.Contains(vs[0].Message, "leaf03 is cut off from the fabric with 32 failed cables (leaf03:33, leaf03:34, leaf03:35, leaf03:36, leaf03:37 and 27 more): 32 of its 64 links failed, and the 32 endpoints it still reaches cannot reach the rest") {
			t.Errorf("isolated: %s", vs[0].Message)
		}
		// leaf03 serves nodes 9-12 (32 endpoints of 8 HCAs each).
		if !strings.Contains(vs[1].Message, "32 endpoints cannot reach the rest of the fabric: gpu009/mlx5_0, gpu009/mlx5_1") {
			t.Errorf("unreachable: %s", vs[1].Message)
		}
		if !strings.Contains(vs[2].Message, "89600 Gb/s of 102400 Gb/s full bisection (ratio 0.875; designed 1)") || strings.Contains(vs[2].Message, "oversubscription") {
			t.Errorf("warning: %s", vs[2].Message)
		}
		n := 0
		for _, v := range vs {
			if v.Rule == RuleDegraded {
				n++
			}
		}
		if n != maxFailedCableWarnings+1 || !strings.Contains(vs[len(vs)-1].Message, "22 cables more failed: leaf03:43,") {
			t.Errorf("%d per-cable warnings, last %q", n, vs[len(vs)-1].Message)
		}
	}
	// The same on the small fabric (two leaves), with leaf02.
	failed = failed[:0]
	for p := 33; p <= 64; p++ {
		failed = append(failed, FailedCable{Cable: fmt.Sprintf("leaf02:%d", p)})
	}
	vs := JudgeDegraded(running(t, 8, failed, Degraded{}))
	if !strings.HasPrefix(rules(vs), "error degraded-isolated-switch, error degraded-unreachable-endpoint, error degraded-bisection") || vs[0].Witness != "leaf02" {
		t.Fatalf("small fabric: %s\n%v", rules(vs), vs)
	}
}

// A failed access cable leaves one HCA port with no way into the fabric: the node is drained and
// the rest runs on, so a warning that names the node (issue 27 item 6), an error only beyond
// policy.degraded.max_unreachable_endpoints. The running fabric's 63 endpoints are judged by
// their own full bisection: 31 ports, all carried (ratio 1).
func TestDegradedAccessCable(t *testing.T) {
	in := running(t, 8, []FailedCable{{Cable: "gpu001/mlx5_0:1"}}, Degraded{})
	vs := JudgeDegraded(in)
	if HasErrors(vs) || rules(vs) != "warning degraded-unreachable-endpoint, warning degraded" || vs[0].Witness != "gpu001" {
		t.Fatalf("%s\n%v", rules(vs), vs)
	}
	if !strings.HasPrefix(vs[0].Message, "degraded-unreachable-endpoint: drain gpu001: gpu001/mlx5_0 is cut off from the fabric by its own failed cable (gpu001/mlx5_0:1 <-> leaf01:1)") {
		t.Errorf("drain: %s", vs[0].Message)
	}
	if !strings.Contains(vs[1].Message, "12400 Gb/s of 12400 Gb/s full bisection of its 63 endpoints (ratio 1; designed 1)") {
		t.Errorf("numbers: %s", vs[1].Message)
	}
	if got := DegradedRatio(in.Designed, in.Degraded); got != 1 {
		t.Errorf("degraded ratio %v, want 31 x 400 of floor(63/2) x 400 = 1", got)
	}
	if cut := CutOff(in.DesignedGraph, in.DegradedGraph); cut.Unreachable() != 1 || len(cut.Drain) != 1 || cut.Drain[0].Node != "gpu001" {
		t.Errorf("cut off: %+v", cut)
	}
	for _, limit := range []int{0} {
		in.Policy.MaxUnreachableEndpoints = &limit
		vs := JudgeDegraded(in)
		if !strings.HasPrefix(rules(vs), "error degraded-unreachable-endpoint") || vs[0].Witness != "gpu001" ||
			!strings.Contains(vs[0].Message, "1 endpoint is cut off by its own failed cable (gpu001/mlx5_0): policy.degraded.max_unreachable_endpoints allows at most 0 unreachable. Drain 1 node gpu001") {
			t.Errorf("limit %d: %s\n%v", limit, rules(vs), vs)
		}
	}
	one := 1
	in.Policy.MaxUnreachableEndpoints = &one
	if vs := JudgeDegraded(in); HasErrors(vs) {
		t.Errorf("1 unreachable endpoint within a limit of 1: %v", vs)
	}
}

// Node cables of several nodes: the endpoints cut off are exactly the HCAs all of whose cables
// failed (counted here from the failed list, not by the code under test), one warning per node
// with all its endpoints, and the count is judged against the limit.
func TestDegradedDrainNodes(t *testing.T) {
	failed := []FailedCable{{Cable: "gpu002/mlx5_0:1"}, {Cable: "gpu002/mlx5_5:1"}, {Cable: "gpu007/mlx5_3:1"}, {Cable: "leaf01:40"}}
	in := running(t, 8, failed, Degraded{})
	want := 0 // HCAs whose every designed link is in the failed list
	for i := range in.DesignedGraph.Devices {
		d := &in.DesignedGraph.Devices[i]
		if d.Kind != fabric.KindHCA {
			continue
		}
		links, down := in.DesignedGraph.LinksOf(int32(i)), 0
		for _, li := range links {
			label := in.DesignedGraph.Spec.Cables[in.DesignedGraph.Links[li].Cable].Label()
			for _, f := range failed {
				if strings.HasPrefix(label, f.Cable+" ") || strings.HasSuffix(label, " "+f.Cable) {
					down++
				}
			}
		}
		if len(links) > 0 && down == len(links) {
			want++
		}
	}
	if want != 3 {
		t.Fatalf("the fixture cuts off %d HCAs, want 3", want)
	}
	cut := CutOff(in.DesignedGraph, in.DegradedGraph)
	if cut.Unreachable() != want || len(cut.Endpoints) != want {
		t.Errorf("%d unreachable, want %d", cut.Unreachable(), want)
	}
	vs := JudgeDegraded(in)
	if HasErrors(vs) || !strings.HasPrefix(rules(vs), "warning degraded-unreachable-endpoint, warning degraded-unreachable-endpoint, warning degraded,") {
		t.Fatalf("%s\n%v", rules(vs), vs)
	}
	if vs[0].Witness != "gpu002" || !strings.Contains(vs[0].Message, "drain gpu002: gpu002/mlx5_0, gpu002/mlx5_5 are cut off from the fabric by their own failed cables (gpu002/mlx5_0:1 <-> ") || vs[1].Witness != "gpu007" {
		t.Errorf("drains: %v", vs[:2])
	}
	for _, c := range []struct {
		max  int
		fail bool
	}{{2, true}, {3, false}} {
		in.Policy.MaxUnreachableEndpoints = &c.max
		if got := HasErrors(JudgeDegraded(in)); got != c.fail {
			t.Errorf("%d unreachable, limit %d: fails %v, want %v", want, c.max, got, c.fail)
		}
	}
}

// Explicit thresholds: one failed uplink of the small fabric (0.96875, 32:31 at leaf01) breaks a
// minimum of 0.97 and a 1:1 oversubscription limit, each an error that names the limit's
// attribute and the measured value as the analysis has it (1.0323: 32/31 rounded up).
func TestDegradedExplicitThresholds(t *testing.T) {
	vs := JudgeDegraded(running(t, 8, []FailedCable{{Cable: "leaf01:40"}}, Degraded{MinBisectionRatio: f64(0.97), MaxOversubscription: f64(1)}))
	if rules(vs) != "error degraded-bisection, error degraded-oversubscription, warning degraded" {
		t.Fatalf("%s\n%v", rules(vs), vs)
	}
	if !strings.Contains(vs[0].Message, "ratio 0.96875; designed 1); policy.degraded.min_bisection_ratio requires at least 0.97") {
		t.Errorf("bisection: %s", vs[0].Message)
	}
	if !strings.Contains(vs[1].Message, "the worst switch is 1.0323:1 (leaf01; above the limit: leaf01); policy.degraded.max_oversubscription allows at most 1:1") {
		t.Errorf("oversubscription: %s", vs[1].Message)
	}
	if strings.Contains(vs[2].Message, "within policy.degraded") {
		t.Errorf("the warning says within: %s", vs[2].Message)
	}
	// 0.96875 meets 0.96875 exactly.
	if vs := JudgeDegraded(running(t, 8, []FailedCable{{Cable: "leaf01:40"}}, Degraded{MinBisectionRatio: f64(0.96875)})); HasErrors(vs) {
		t.Errorf("a ratio equal to its minimum fails: %v", vs)
	}
}

func TestDegradedNothingFailed(t *testing.T) {
	if vs := JudgeDegraded(DegradedInput{}); vs != nil {
		t.Errorf("%v", vs)
	}
}

func TestDegradedValidate(t *testing.T) {
	for _, c := range []struct {
		d    Degraded
		want string
	}{
		{Degraded{MinBisectionRatio: f64(0)}, "policy.degraded.min_bisection_ratio must be in (0, 1]"},
		{Degraded{MinBisectionRatio: f64(1.5)}, "got 1.5"},
		{Degraded{MaxOversubscription: f64(-1)}, "policy.degraded.max_oversubscription must be a positive number"},
		{Degraded{MaxUnreachableEndpoints: func() *int { n := -1; return &n }()}, "policy.degraded.max_unreachable_endpoints must be 0 or more"},
	} {
		err := c.d.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.d, err, c.want)
		}
		if err := (Policy{Degraded: c.d}).Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Policy.Validate %+v: %v", c.d, err)
		}
	}
	if err := (Degraded{MinBisectionRatio: f64(0.5), MaxOversubscription: f64(2)}).Validate(); err != nil {
		t.Error(err)
	}
	if _, err := ParseSince("2026-3-2"); err == nil || !strings.Contains(err.Error(), `YYYY-MM-DD, e.g. "2026-03-02", got "2026-3-2"`) {
		t.Errorf("ParseSince: %v", err)
	}
}

func TestAge(t *testing.T) {
	now := time.Date(2026, 3, 14, 0, 0, 0, 0, time.UTC)
	for s, want := range map[string]string{
		"2026-03-14": "since 2026-03-14, today",
		"2026-03-13": "since 2026-03-13, 1 day ago",
		"2025-03-14": "since 2025-03-14, 365 days ago",
		"2026-04-01": "since 2026-04-01 (in the future: check the date)",
	} {
		if got := age(since(s), now); got != want {
			t.Errorf("age(%s) = %q, want %q", s, got, want)
		}
	}
}

// Issue 32: since = "0000-01-01" read "106751 days ago" (a saturated time.Duration). A date before
// InfiniBand existed is refused; days are counted by the calendar, so a date 300 years off is
// counted, not saturated (2326-03-14 is 109,572 days after 2026-03-14: 300 x 365 + 72 leap days).
func TestSinceBeforeInfiniBand(t *testing.T) {
	for _, s := range []string{"0000-01-01", "1970-01-01", "2000-10-23"} {
		if _, err := ParseSince(s); err == nil || !strings.Contains(err.Error(), "before InfiniBand existed") {
			t.Errorf("ParseSince(%s): %v", s, err)
		}
	}
	if _, err := ParseSince("2000-10-24"); err != nil {
		t.Errorf("the first day: %v", err)
	}
	now := time.Date(2326, 3, 14, 0, 0, 0, 0, time.UTC)
	if got, want := age(since("2026-03-14"), now), "since 2026-03-14, 109572 days ago"; got != want {
		t.Errorf("age = %q, want %q", got, want)
	}
}
