package plan

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A policy file that cannot be read fails the plan on its own path, and the fabric is still
// judged by the preset: a 3:1 fat tree under training-large shows its oversubscription
// violation beside the bad file, and the summary's verdict never says pass.
func TestUnreadPolicyFileStillJudges(t *testing.T) {
	cat := catalog.Default()
	f, ps := Build(cat, Inputs{Design: &topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2, Oversubscription: 3}})
	if f == nil {
		t.Fatalf("build: %v", ps)
	}
	missing := filepath.Join(t.TempDir(), "fabric.hcl")
	out := Run(cat, f, Request{Policy: policy.Policy{Preset: policy.PresetTrainingLarge}, RuleFiles: []string{missing},
		OpenSM: &OpenSMSettings{}, Now: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)})
	var file, over bool
	for _, p := range out.Problems {
		file = file || (p.Summary == "Invalid policy file" && p.At.String() == "policy_files[0]")
		over = over || p.Summary == "Policy violation: oversubscription"
	}
	if !file || !over || out.UnreadPolicyFiles != 1 {
		t.Fatalf("want the bad file and the oversubscription violation, got %v (unread %d)", out.Problems, out.UnreadPolicyFiles)
	}
	v := Verdict(out.Violations, out.UnreadPolicyFiles)
	if !strings.HasPrefix(v, "Policy: FAIL") || !strings.Contains(v, "oversubscription") || !strings.HasSuffix(v, "1 policy file could not be read, so its rules did not judge") {
		t.Errorf("verdict %q", v)
	}
}
