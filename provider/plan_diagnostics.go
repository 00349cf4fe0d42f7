package provider

import (
	"regexp"

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

// capDiagnostics keeps the first plan.MaxPerCause diagnostics of each cause (severity and
// summary) and counts the rest, as the pipeline caps its problems (plan.CapEach): the decoder reports every malformed
// item, and 10,000 of them would otherwise be 10,000 diagnostics, which Terraform renders in
// time quadratic in their number. It is the one cap of the provider's diagnostics: every list of
// them that grows with the input goes through it or capDiagnosticsBy.
func capDiagnostics(diags diag.Diagnostics) diag.Diagnostics {
	return capDiagnosticsBy(diags, func(diag.Diagnostic) string { return "" })
}

// capDiagnosticsBy is capDiagnostics for diagnostics whose summaries name their subject ("Node
// gpu001: cannot ...", "OpenSM on sm2 logged errors"), each of which would otherwise be a cause
// of its own: kind gives a diagnostic's cause, in words ("" keeps its summary as its cause), and
// is the summary of the diagnostic that counts the rest of that cause.
func capDiagnosticsBy(diags diag.Diagnostics, kind func(diag.Diagnostic) string) diag.Diagnostics {
	cause := func(d diag.Diagnostic) string {
		if k := kind(d); k != "" {
			return k
		}
		return d.Summary()
	}
	return plan.CapEach(diags, plan.MaxPerCause,
		func(d diag.Diagnostic) string { return d.Severity().String() + "\x00" + cause(d) },
		func(d diag.Diagnostic) string {
			if wp, ok := d.(diag.DiagnosticWithPath); ok {
				return wp.Path().String()
			}
			return ""
		},
		func(first diag.Diagnostic, more int, places []string) diag.Diagnostic {
			detail := plan.MoreDetail(more, places, first.Severity() == diag.SeverityError)
			if first.Severity() == diag.SeverityWarning {
				return diag.NewWarningDiagnostic(cause(first), detail)
			}
			return diag.NewErrorDiagnostic(cause(first), detail)
		})
}

// subjectRE reads a summary that names its subject first ("Node gpu001: cannot ...", `HCA
// "gpu001/mlx5_0" is no longer in hcas`).
var subjectRE = regexp.MustCompile(`^(Node|HCA|Switch) ("[^"]*"|[^\s:]+)(.*)$`)

// bySubject is the kind (capDiagnosticsBy) of a diagnostic whose summary names its node, HCA or
// switch first: the summary with the name left out ("Node ...: cannot read its firmware versions
// through its BMC"), so that a run over thousands of nodes that fails alike on each is one cause;
// "" for another summary, whose cause is itself.
func bySubject(d diag.Diagnostic) string {
	m := subjectRE.FindStringSubmatch(d.Summary())
	if m == nil || m[2] == "..." { // "..." is a kind already: the count of a cause capped before
		return ""
	}
	return m[1] + " ..." + m[3]
}
