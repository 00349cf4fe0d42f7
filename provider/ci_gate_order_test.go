package provider

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// TestCIPlanGateOrderOfFailedPlans runs examples/ci/plan-gate.sh on the diagnostics of a plan
// that fails its policy, written by the plan pipeline itself (plan.Summarize, the policy's
// messages), with a stand-in for terraform that prints them and exits 1 as terraform does: for
// a new fabric (no prior state: the summary's "Buy: N ..." totals) and for a change ("Buy: +N
// ... (a -> b)"). Either way the gate shows the purchase order, one row per SKU with the counts
// of bom.Order, and the violation with the setting that would pass.
func TestCIPlanGateOrderOfFailedPlans(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		t.Fatalf("plan-gate.sh needs jq: %v", err)
	}
	cat := catalog.Default()
	large := policy.Policy{Preset: policy.PresetTrainingLarge}
	outcome := func(p topogen.Params) *plan.Outcome {
		f, ps := plan.Build(cat, plan.Inputs{Design: &p})
		if f == nil {
			t.Fatalf("build %+v: %v", p, ps)
		}
		return plan.Run(cat, f, plan.Request{Policy: large, OpenSM: &plan.OpenSMSettings{}})
	}
	// 2:1 at the leaf: training-large refuses it.
	next := outcome(topogen.Params{Kind: topogen.KindFatTree, Nodes: 16, Oversubscription: 2})
	if !policy.HasErrors(next.Violations) {
		t.Fatalf("the 2:1 design passes training-large: %v", next.Violations)
	}
	priorOut := outcome(topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Oversubscription: 2})
	prior := &plan.Prior{}
	prior.Rebuild(cat, priorOut.Fabric, nil, false, next)

	script := filepath.Join(moduleRoot(), "examples", "ci", "plan-gate.sh")
	for _, c := range []struct {
		name  string
		prior *plan.Prior
		from  bom.BOM
	}{
		{"new fabric", nil, bom.BOM{}},
		{"change", prior, prior.BOM},
	} {
		t.Run(c.name, func(t *testing.T) {
			summary := plan.Summarize(c.prior, next)
			if summary == "" {
				t.Fatal("no summary")
			}
			var lines []string
			add := func(sev, title, detail string) {
				b, err := json.Marshal(map[string]any{"type": "diagnostic", "diagnostic": map[string]any{
					"severity": sev, "summary": title, "detail": detail, "address": "gpucluster_fabric.pod"}})
				if err != nil {
					t.Fatal(err)
				}
				lines = append(lines, string(b))
			}
			add("warning", plan.SummaryTitle+" (pod)", summary)
			for _, v := range next.Violations {
				if v.Severity == policy.Error {
					add("error", "Policy violation: "+v.Rule, v.Message)
				}
			}
			dir := t.TempDir()
			jsonl := filepath.Join(dir, "fake-plan.jsonl")
			if err := os.WriteFile(jsonl, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			fake := filepath.Join(dir, "terraform")
			if err := os.WriteFile(fake, []byte("#!/bin/sh\ncat '"+jsonl+"'\nexit 1\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			md := filepath.Join(dir, "summary.md")
			cmd := exec.Command("bash", script, "-chdir="+dir, "-summary="+md)
			cmd.Env = append(os.Environ(), "TERRAFORM="+fake)
			if out, err := cmd.CombinedOutput(); err == nil {
				t.Fatalf("the gate passed a failed plan:\n%s", out)
			}
			text := read(t, md)
			order, _ := bom.Order(c.from, next.BOM)
			if len(order) == 0 {
				t.Fatal("the test needs an order")
			}
			for _, l := range order {
				cost := "unpriced"
				if l.Cost != nil {
					cost = plan.USD(*l.Cost)
				}
				change := bom.Count(l.Delta())
				if l.Delta() > 0 {
					change = "+" + change
				}
				row := "| `" + l.SKU + "` | " + l.Category + " | " + bom.Count(l.Before) + " | " + bom.Count(l.After) + " | " + change + " | " + cost + " |"
				if !strings.Contains(text, row) {
					t.Errorf("the order lacks %q:\n%s", row, text)
				}
			}
			for _, want := range []string{
				"## Fabric plan gate: FAIL: ",
				"The plan failed, so there is no plan file; this order is the fabric's plan summary.",
				"**Order total (priced SKUs): USD ",
				"policy.tier_limits.leaf = 2 (tier leaf alone",
				"policy.max_oversubscription = 2 (every tier",
			} {
				if !strings.Contains(text, want) {
					t.Errorf("summary lacks %q:\n%s", want, text)
				}
			}
			if strings.Contains(text, "no bill of materials") {
				t.Errorf("summary says there is no order:\n%s", text)
			}
		})
	}
}
