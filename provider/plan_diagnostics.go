package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

// The one mapping of the plan pipeline's problems to diagnostics: each on the attribute of its
// cause (plan.Loc: map elements by key), at most plan.MaxPerCause of one cause with a count of
// the rest.

// addPlanProblems adds ps as diagnostics. Terraform shows the source line of a top-level
// attribute and of one map element, but looks no deeper, so a diagnostic points at that part
// (shownPath) and its detail starts with the whole path where that is deeper (withPath).
func addPlanProblems(diags *diag.Diagnostics, ps plan.Problems) {
	for _, p := range ps.Capped(plan.MaxPerCause) {
		if len(p.At.Steps) == 0 {
			if p.Severity == plan.Warning {
				diags.AddWarning(p.Summary, p.Detail)
			} else {
				diags.AddError(p.Summary, p.Detail)
			}
			continue
		}
		full := diagPath(p.At)
		if p.Severity == plan.Warning {
			diags.AddAttributeWarning(shownPath(full), p.Summary, withPath(full, p.Detail))
		} else {
			diags.AddAttributeError(shownPath(full), p.Summary, withPath(full, p.Detail))
		}
	}
}

// diagPath is a plan.Loc as a framework path.
func diagPath(l plan.Loc) path.Path {
	p := path.Empty()
	for i, s := range l.Steps {
		switch {
		case s.IsKey:
			p = p.AtMapKey(s.Key)
		case s.Name == "":
			p = p.AtListIndex(s.Index)
		case i == 0:
			p = path.Root(s.Name)
		default:
			p = p.AtName(s.Name)
		}
	}
	return p
}

// capDiagnostics keeps the first n diagnostics of each cause (severity and summary) and adds one
// that counts the rest and names where the first of them are, as plan.Problems.Capped does for
// the pipeline's problems: the decoder reports every malformed item, and 10,000 of them would
// otherwise be 10,000 diagnostics, which Terraform renders in time quadratic in their number.
func capDiagnostics(diags diag.Diagnostics, n int) diag.Diagnostics {
	type cause struct {
		sev     diag.Severity
		summary string
	}
	total := map[cause]int{}
	for _, d := range diags {
		total[cause{d.Severity(), d.Summary()}]++
	}
	out := make(diag.Diagnostics, 0, len(diags))
	seen := map[cause]int{}
	where := map[cause][]string{}
	for _, d := range diags {
		c := cause{d.Severity(), d.Summary()}
		seen[c]++
		if seen[c] <= n {
			out = append(out, d)
			continue
		}
		if wp, ok := d.(diag.DiagnosticWithPath); ok && len(where[c]) < 5 {
			where[c] = append(where[c], wp.Path().String())
		}
		if seen[c] < total[c] {
			continue
		}
		more := total[c] - n
		detail := fmt.Sprintf("%d more problem%s of this kind are not shown", more, map[bool]string{true: "", false: "s"}[more == 1])
		if len(where[c]) > 0 {
			detail += ", at " + strings.Join(where[c], ", ")
			if more > len(where[c]) {
				detail += ", ..."
			}
		}
		detail += ". Fix the ones shown and plan again."
		if c.sev == diag.SeverityWarning {
			out.AddWarning(c.summary, detail)
		} else {
			out.AddError(c.summary, detail)
		}
	}
	return out
}
