package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// The plan summary: one warning diagnostic per fabric whose plan changes something, because a
// warning is the only text a provider can print at plan time. It says what changes in counts
// (fabric.Compare, bom.Order), so it stays a few lines long at any fabric size, and its lines
// have a fixed form that examples/ci/plan-gate.sh reads from `terraform plan -json`:
//
//	Devices: +64 node, +512 hca, +16 leaf
//	Links node-leaf: 512 added, 0 removed, 0 rewired
//	  e.g. added gpu064/mlx5_0:1 - leaf17:1
//	Buy: +16 switch 920-9B210-00FN-0M0 (32 -> 48) USD 1,360,000.00
//	Order total (priced SKUs): USD 1,360,000.00; 2 SKUs unpriced
//	OpenSM files: partitions.conf
//	Policy: pass | Policy: FAIL, 2 violations (oversubscription, bisection)

// summaryWidth is the width Terraform wraps diagnostic text at without a terminal.
const summaryWidth = 76

// summaryTitle starts the title of the summary diagnostic; the CI script selects on it.
const summaryTitle = "Fabric plan summary"

// summarize adds the plan summary of out against the prior state, or nothing when the plan
// changes nothing the summary speaks of.
func (r *fabricResource) summarize(ctx context.Context, state tfsdk.State, plan *fabricModel, out *fabricPlan, osm types.Map, diags *diag.Diagnostics) {
	var prior *fabric.Graph
	var priorBOM bom.BOM
	var priorOpenSM types.Map
	var priorAnalysis types.Object
	var next bom.BOM
	if out.bom != nil {
		next = *out.bom
	}
	create := state.Raw.IsNull()
	name := plan.Name.ValueString()
	if !create {
		var m fabricModel
		var ignored diag.Diagnostics
		if !state.Get(ctx, &m).HasError() {
			priorOpenSM, priorAnalysis = m.OpenSM, m.Analysis
			// The prior graph is rebuilt from the prior state's own inputs, not read back from its
			// outputs, so the comparison is exact down to each port; a prior state that no longer
			// builds counts as empty. Inputs equal to the planned ones (every plan of an unchanged
			// fabric) build the planned graph: it is not built twice.
			if sameInputs(ctx, &m, plan) {
				prior, priorBOM = out.graph, next
			} else if g, d := buildFabric(ctx, r.data, withStashedLists(ctx, fromPrior, &m, &ignored)); !d.HasError() && g != nil {
				prior, priorBOM = g, bom.FromGraph(g, r.data.Catalog)
			}
		}
	}
	d := fabric.Compare(prior, out.graph)
	lines, total := bom.Order(priorBOM, next)
	files := changedFiles(priorOpenSM, osm)
	// The verdict by its lines, not the whole analysis: numbers read back from state need not
	// compare equal bit for bit, and a plan Terraform calls "No changes" must print nothing.
	verdictChanged := !create && !equalLines(violationsOf(priorAnalysis), out.violations)
	if !create && d.Empty() && len(lines) == 0 && len(files) == 0 && !verdictChanged {
		return
	}
	title := summaryTitle
	if name != "" {
		title += " (" + name + ")"
	}
	diags.AddWarning(title, formatSummary(create, d, lines, total, files, out.violations))
}

// violationsOf reads analysis.violations of an analysis object.
func violationsOf(o types.Object) []string {
	if o.IsNull() || o.IsUnknown() {
		return nil
	}
	l, ok := o.Attributes()["violations"].(types.List)
	if !ok {
		return nil
	}
	out, _ := listStrings(l)
	return out
}

// equalLines reports whether a and b hold the same strings in the same order.
func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameInputs reports whether the prior state's inputs are those of the plan, value for value.
func sameInputs(ctx context.Context, prior, plan *fabricModel) bool {
	for _, n := range fabricInputNames {
		a := inputValue(ctx, fromPrior, n, &prior.fabricInputsModel)
		b := inputValue(ctx, fromProposed, n, &plan.fabricInputsModel)
		if !a.IsFullyKnown() || !a.Equal(b) {
			return false
		}
	}
	return true
}

// changedFiles lists the OpenSM files whose digest the plan changes (drift on the host, or
// settings that change the files), in the order they are pushed.
func changedFiles(prior, next types.Map) []string {
	if next.IsUnknown() || next.IsNull() || prior.IsUnknown() {
		return nil
	}
	before, after := openSMDigests(prior), openSMDigests(next)
	var out []string
	for _, n := range opensm.FileNames {
		b, had := before[n]
		a, has := after[n]
		if had != has || b != a {
			out = append(out, n)
		}
	}
	return out
}

// formatSummary writes the summary's lines; examples/ci/plan-gate.sh parses them.
func formatSummary(create bool, d fabric.Diff, order []bom.Line, total float64, files []string, violations []string) string {
	var b strings.Builder
	if create {
		b.WriteString("New fabric, totals:\n")
	}
	if len(d.Devices) > 0 {
		parts := make([]string, 0, len(d.Devices))
		for _, c := range d.Devices {
			if c.Added > 0 {
				parts = append(parts, fmt.Sprintf("+%s %s", count(c.Added), c.Role))
			}
			if c.Removed > 0 {
				parts = append(parts, fmt.Sprintf("-%s %s", count(c.Removed), c.Role))
			}
		}
		b.WriteString("Devices: " + strings.Join(parts, ", ") + "\n")
	}
	for _, t := range d.Links {
		fmt.Fprintf(&b, "Links %s: %s added, %s removed, %s rewired", t.Tier, count(t.Added), count(t.Removed), count(t.Rewired))
		var eg []string // one per line, so Terraform does not wrap them
		for _, e := range t.RewiredExamples {
			eg = append(eg, "rewired "+e)
		}
		for _, e := range t.RemovedExamples {
			eg = append(eg, "removed "+e)
		}
		if len(t.AddedExamples) > 0 && !create {
			eg = append(eg, "added "+t.AddedExamples[0])
		}
		b.WriteString("\n")
		for _, e := range eg {
			b.WriteString("  e.g. " + e + "\n")
		}
	}
	unpriced := 0
	for _, l := range order {
		verb := "Buy"
		if l.Delta() < 0 {
			verb = "Free"
		}
		cost := "unpriced"
		if l.Cost != nil {
			cost = usd(*l.Cost)
		} else {
			unpriced++
		}
		// The category, not the description: Terraform wraps diagnostics at 78 columns, and the
		// descriptions of one product line differ only at their end (the length of a fiber).
		if create {
			fmt.Fprintf(&b, "%s: %s %s %s %s\n", verb, count(l.After), l.Category, l.SKU, cost)
			continue
		}
		delta := "+" + count(l.Delta())
		if l.Delta() < 0 {
			delta = count(l.Delta())
		}
		fmt.Fprintf(&b, "%s: %s %s %s (%s -> %s) %s\n", verb, delta, l.Category, l.SKU, count(l.Before), count(l.After), cost)
	}
	if len(order) > 0 {
		fmt.Fprintf(&b, "Order total (priced SKUs): %s", usd(total))
		if unpriced > 0 {
			fmt.Fprintf(&b, "; %d SKU%s unpriced", unpriced, plural(unpriced))
		}
		b.WriteString("\n")
	}
	if len(files) > 0 && !create {
		b.WriteString("OpenSM files: " + strings.Join(files, ", ") + "\n")
	}
	b.WriteString(verdict(violations))
	return b.String()
}

// verdict is the policy line: pass, or FAIL with the number of violations and their rules.
func verdict(violations []string) string {
	var rules []string
	seen := map[string]bool{}
	warnings := 0
	for _, v := range violations {
		msg, isErr := strings.CutPrefix(v, "error: ")
		if !isErr {
			warnings++
			continue
		}
		rule, _, _ := strings.Cut(msg, ": ")
		rule, _, _ = strings.Cut(rule, " (") // a custom rule's location
		if rule = strings.TrimSpace(rule); !seen[rule] {
			seen[rule] = true
			rules = append(rules, rule)
		}
	}
	errs := len(violations) - warnings
	var s string
	if errs == 0 {
		s = "Policy: pass"
	} else {
		sort.Strings(rules)
		if len(rules) > 4 {
			rules = append(rules[:4], "...")
		}
		s = fmt.Sprintf("Policy: FAIL, %d violation%s (%s)", errs, plural(errs), strings.Join(rules, ", "))
	}
	if warnings > 0 {
		s += fmt.Sprintf(", %d warning%s", warnings, plural(warnings))
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// count writes n with thousands separators.
func count(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// usd writes a USD amount with thousands separators and cents.
func usd(v float64) string {
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	cents := int64(v*100 + 0.5)
	return fmt.Sprintf("%sUSD %s.%02d", sign, count(int(cents/100)), cents%100)
}
