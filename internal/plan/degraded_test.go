package plan

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// simulated is the design of examples/clusters/simulated: 8 DGX H100 (64 endpoints) on two
// leaves and one spine, 32 uplinks a leaf; full bisection 64/2 x 400 = 12,800 Gb/s.
var simulated = topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2}

func run(t *testing.T, in Inputs, p policy.Policy) *Outcome {
	t.Helper()
	cat := catalog.Default()
	f, ps := Build(cat, in)
	if f == nil {
		t.Fatalf("build: %v", ps)
	}
	return Run(cat, f, Request{Policy: p, OpenSM: &OpenSMSettings{}, Now: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)})
}

// TestFailedIsNotAbsent: one failed uplink keeps the designed fabric's verdict (training-large
// passes) and reports the fabric as it runs, 12,800 - 400 = 12,400 Gb/s proved, as one warning
// that names the cable, its age and where it is; the same cable absent fails the plan as before.
func TestFailedIsNotAbsent(t *testing.T) {
	large := policy.Policy{Preset: policy.PresetTrainingLarge}
	out := run(t, Inputs{Design: &simulated, Failed: []Failed{{Cable: "leaf01:40", Reason: "symbol errors", Since: "2026-11-30"}}}, large)
	if out.Problems.HasErrors() {
		t.Fatalf("a failed uplink within policy.degraded fails the plan: %v", out.Problems)
	}
	d := out.Degraded
	if d == nil || d.BisectionLowerGbps != 12400 || d.BisectionUpperGbps != 12400 || out.Analysis.BisectionLowerGbps != 12800 {
		t.Fatalf("degraded %+v, designed lower %v", d, out.Analysis.BisectionLowerGbps)
	}
	var warnings []Problem
	for _, p := range out.Problems {
		if p.Severity == Warning && strings.HasPrefix(p.Summary, "Fabric degraded") {
			warnings = append(warnings, p)
		}
	}
	if len(warnings) != 1 {
		t.Fatalf("%d degraded warnings, want one per failed cable: %v", len(warnings), out.Problems)
	}
	w := warnings[0]
	for _, want := range []string{"leaf01:40", "symbol errors", "2 days", "12400 Gb/s", "0.96875", "spine01"} {
		if !strings.Contains(w.Detail, want) {
			t.Errorf("the warning lacks %q:\n%s", want, w.Detail)
		}
	}
	if w.At.String() != "failed_cables[0]" {
		t.Errorf("warning on %s", w.At)
	}

	absent := run(t, Inputs{Design: &simulated, Absent: []string{"leaf01:40"}}, large)
	if !absent.Problems.HasErrors() || absent.Degraded != nil {
		t.Errorf("an absent uplink is part of the design and fails training-large: %v", absent.Problems)
	}
}

// TestIsolatedLeafFails: all 32 uplinks of one leaf failed cut it off the fabric: an error,
// whatever the thresholds.
func TestIsolatedLeafFails(t *testing.T) {
	var failed []Failed
	for p := 33; p <= 64; p++ {
		failed = append(failed, Failed{Cable: fmt.Sprintf("leaf01:%d", p)})
	}
	out := run(t, Inputs{Design: &simulated, Failed: failed}, policy.Policy{Preset: policy.PresetTrainingLarge})
	var errs []string
	for _, p := range out.Problems {
		if p.Severity == Error {
			errs = append(errs, p.Summary)
		}
	}
	if len(errs) == 0 || !strings.Contains(strings.Join(errs, " "), "Degraded beyond policy") {
		t.Fatalf("an isolated leaf passes: %v", out.Problems)
	}
}

// TestDesignChangeStillGated: while a cable is failed, a design that breaks the policy (here a
// 2:1 leaf) still fails on the policy, as it would without the failed cable.
func TestDesignChangeStillGated(t *testing.T) {
	over := simulated
	over.Oversubscription = 2
	out := run(t, Inputs{Design: &over, Failed: []Failed{{Cable: "leaf01:40"}}}, policy.Policy{Preset: policy.PresetTrainingLarge})
	found := false
	for _, p := range out.Problems {
		found = found || (p.Severity == Error && p.Summary == "Policy violation: oversubscription")
	}
	if !found {
		t.Errorf("an oversubscribed design passes while a cable is failed: %v", out.Problems)
	}
}

// TestFailedCableInputs: a failed cable that is not a cable of the fabric, one also listed as
// absent, and a date that is not YYYY-MM-DD are refused on their entry.
func TestFailedCableInputs(t *testing.T) {
	cat := catalog.Default()
	_, ps := Build(cat, Inputs{Design: &simulated, Absent: []string{"leaf01:41"}, Failed: []Failed{
		{Cable: "leaf01:99"}, {Cable: "leaf01:41"}, {Cable: "leaf01:40", Since: "30.11.2026"},
	}})
	want := map[string]string{
		"failed_cables[1].cable": "Failed cable listed as absent",
		"failed_cables[2].since": "Invalid date",
	}
	got := map[string]string{}
	for _, p := range ps {
		got[p.At.String()] = p.Summary
	}
	for at, summary := range want {
		if got[at] != summary {
			t.Errorf("%s: %q, want %q (all: %v)", at, got[at], summary, ps)
		}
	}
	_, ps = Build(cat, Inputs{Design: &simulated, Failed: []Failed{{Cable: "leaf01:99"}}})
	if len(ps) != 1 || ps[0].At.String() != "failed_cables[0].cable" || !strings.Contains(ps[0].Detail, "leaf01:") {
		t.Errorf("an unknown cable: %v", ps)
	}
}

// TestFailedCableStateIsStable: the state's analysis.violations do not carry a failed cable's
// age, so the same failed cable plans the same state tomorrow; the warning still gives it.
func TestFailedCableStateIsStable(t *testing.T) {
	in := Inputs{Design: &simulated, Failed: []Failed{{Cable: "leaf01:40", Since: "2026-11-30"}}}
	cat := catalog.Default()
	f, _ := Build(cat, in)
	today := Run(cat, f, Request{OpenSM: &OpenSMSettings{}, Now: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)})
	tomorrow := Run(cat, f, Request{OpenSM: &OpenSMSettings{}, Now: time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)})
	if a, b := strings.Join(Lines(today.Violations), "\n"), strings.Join(Lines(tomorrow.Violations), "\n"); a != b {
		t.Errorf("analysis.violations change from one day to the next:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(fmt.Sprint(tomorrow.Problems), "3 days ago") {
		t.Errorf("the warning lost the age: %v", tomorrow.Problems)
	}
}
