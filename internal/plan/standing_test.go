package plan

import (
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// TestStanding checks the totals against smallSpec's construction: n nodes of 8 HCAs, one leaf
// and one spine, one node-leaf and one leaf-spine cable per HCA.
func TestStanding(t *testing.T) {
	cat := catalog.Default()
	f := built(t, cat, smallSpec(3))
	got := Standing(SummaryTitle+" (f)", &Outcome{Fabric: f, BOM: Price(cat, f)})
	want := `What this plan changes, per tier, and what to buy: the warning "Fabric plan summary (f)" after the plan.
Devices: 3 node, 24 hca, 1 leaf, 1 spine
Links: 24 node-leaf, 24 leaf-spine
Policy: pass
`
	if got != want {
		t.Errorf("Standing:\n%s\nwant:\n%s", got, want)
	}
	fail := Standing("t", &Outcome{Fabric: f, Violations: []policy.Violation{{Rule: "bisection", Severity: policy.Error}}})
	if want := "Policy: FAIL, 1 violation (bisection)\n"; fail[len(fail)-len(want):] != want {
		t.Errorf("Standing of a failing fabric ends %q, want %q", fail, want)
	}
}
