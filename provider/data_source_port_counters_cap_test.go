package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/counters"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

// TestCounterDiagnosticsCapped (issue 32, point 5): 300 ports whose perfquery output is partly
// not understood, read twice, gave 600 warnings. They are capped per cause as the plan's problems
// are: the first plan.MaxPerCause, in order, then one that counts the 595 left out; the error that
// stopped the sample stays, on its `ports` element.
func TestCounterDiagnosticsCapped(t *testing.T) {
	const ports, reads = 300, 2
	var problems []counters.Problem
	for r := 0; r < reads; r++ {
		for q := 0; q < ports; q++ {
			problems = append(problems, counters.Problem{Query: q, Summary: "Part of the perfquery output was not understood", Detail: fmt.Sprintf("port %d read %d", q, r)})
		}
	}
	problems = append(problems, counters.Problem{Error: true, Query: 7, Summary: "perfquery failed", Detail: "exit status 1"})

	d := counterDiagnostics(problems, true)
	if got, want := len(d), plan.MaxPerCause+1+1; got != want {
		t.Fatalf("%d diagnostics, want %d (the first %d warnings, the count, the error)", got, want, plan.MaxPerCause)
	}
	for i := 0; i < plan.MaxPerCause; i++ {
		if w := fmt.Sprintf("port %d read 0", i); d[i].Detail() != w || d[i].Severity() != diag.SeverityWarning {
			t.Errorf("diagnostic %d: %s %q, want the warning %q", i, d[i].Severity(), d[i].Detail(), w)
		}
	}
	more := d[plan.MaxPerCause]
	if left := ports*reads - plan.MaxPerCause; more.Severity() != diag.SeverityWarning || !strings.HasPrefix(more.Detail(), fmt.Sprintf("%d more problems of this kind are not shown", left)) {
		t.Errorf("the count: %s %q, want %d left out", more.Severity(), more.Detail(), left)
	}
	last, ok := d[len(d)-1].(diag.DiagnosticWithPath)
	if !ok || last.Severity() != diag.SeverityError || last.Path().String() != "ports[7]" || last.Summary() != "perfquery failed" {
		t.Errorf("the stopping error: %v", d[len(d)-1])
	}
}
