package plan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// TestDegradedTitlesSayItOnce: a failed cable within policy.degraded is one warning whose title
// names what it is about ("Fabric degraded: failed cable"), and no degraded diagnostic's title
// repeats a word ("Fabric degraded: degraded", "Degraded beyond policy: degraded-bisection").
func TestDegradedTitlesSayItOnce(t *testing.T) {
	large := policy.Policy{Preset: policy.PresetTrainingLarge}
	within := run(t, Inputs{Design: &simulated, Failed: []Failed{{Cable: "leaf01:40", Reason: "symbol errors"}}}, large)
	// Ten failed uplinks of one leaf: beyond the default 0.9 of the designed ratio.
	var many []Failed
	for p := 33; p < 43; p++ {
		many = append(many, Failed{Cable: fmt.Sprintf("leaf01:%d", p)})
	}
	beyond := run(t, Inputs{Design: &simulated, Failed: many}, large)
	found := 0
	for _, out := range []*Outcome{within, beyond} {
		for _, p := range out.Problems {
			low := strings.ToLower(p.Summary)
			if !strings.Contains(low, "degraded") {
				continue
			}
			found++
			if strings.Count(low, "degraded") != 1 {
				t.Errorf("title %q says degraded twice", p.Summary)
			}
		}
	}
	var titles []string
	for _, p := range within.Problems {
		titles = append(titles, p.Summary)
	}
	if !strings.Contains(strings.Join(titles, "\n"), "Fabric degraded: failed cable") {
		t.Errorf("no \"Fabric degraded: failed cable\" warning among %q", titles)
	}
	if !beyond.Problems.HasErrors() || found < 2 {
		t.Fatalf("the test needs a warning and an error: %d degraded diagnostics, errors %v", found, beyond.Problems.HasErrors())
	}
}
