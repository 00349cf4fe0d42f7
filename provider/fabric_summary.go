package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// The plan summary (internal/plan/summary.go writes it): one warning diagnostic per fabric whose
// plan changes something, because a warning is the only text a provider can print at plan time.

// summarize adds the plan summary of next against the prior state, or nothing when the plan
// changes nothing the summary speaks of; it returns the summary's text.
func (r *fabricResource) summarize(ctx context.Context, state tfsdk.State, planned *fabricModel, next *plan.Outcome, diags *diag.Diagnostics) string {
	var prior *plan.Prior
	if !state.Raw.IsNull() {
		prior = &plan.Prior{}
		var m fabricModel
		if !state.Get(ctx, &m).HasError() {
			r.priorOf(ctx, &m, planned, next, prior)
		}
	}
	text := plan.Summarize(prior, next)
	if text == "" {
		return ""
	}
	diags.AddWarning(summaryTitle(planned), text)
	return text
}

// summaryTitle is the title of the fabric's plan summary warning.
func summaryTitle(m *fabricModel) string {
	title := plan.SummaryTitle
	if name := m.Name.ValueString(); name != "" {
		title += " (" + name + ")"
	}
	return title
}

// plannedSummary is the fabric's planned `summary` (plan.Standing). A plan whose summary is
// empty (it changes nothing the summary speaks of) keeps the stored value, so a state written
// before the attribute existed shows no change until the fabric changes; otherwise the totals of
// next.
func (r *fabricResource) plannedSummary(ctx context.Context, state tfsdk.State, planned *fabricModel, summary string, next *plan.Outcome) types.String {
	if summary == "" && !state.Raw.IsNull() {
		var stored types.String
		if !state.GetAttribute(ctx, path.Root("summary"), &stored).HasError() && !stored.IsUnknown() {
			return stored
		}
	}
	return types.StringValue(plan.Standing(summaryTitle(planned), next))
}

// priorOf fills what the summary compares against: the prior state's digests and verdict as
// stored, and its graph, BOM and files rebuilt from the prior state's own inputs
// (plan.Prior.Rebuild). Inputs equal to the planned ones are not decoded twice.
func (r *fabricResource) priorOf(ctx context.Context, m, planned *fabricModel, next *plan.Outcome, prior *plan.Prior) {
	prior.Lines = violationsOf(m.Analysis)
	if !m.OpenSM.IsUnknown() {
		prior.Digests, prior.DigestsKnown = openSMDigests(m.OpenSM), true
	}
	var ignored diag.Diagnostics
	cat := inventoryCatalog(r.data)
	f := next.Fabric
	if !sameInputs(ctx, m, planned) {
		f, _, _ = readFabric(ctx, cat, &withStashedLists(ctx, tfwire.FromPrior, m, &ignored).fabricInputsModel, false)
	}
	var sm *plan.OpenSMSettings
	if f != nil {
		if req, d := fabricRequest(ctx, r.data, m); !d.HasError() {
			sm = req.OpenSM
		}
	}
	prior.Rebuild(cat, f, sm, m.SubnetManager.Equal(planned.SubnetManager), next)
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

// sameInputs reports whether the prior state's inputs are those of the plan, value for value.
func sameInputs(ctx context.Context, prior, planned *fabricModel) bool {
	for _, n := range fabricInputNames {
		a := inputValue(ctx, tfwire.FromPrior, n, &prior.fabricInputsModel)
		b := inputValue(ctx, tfwire.FromProposed, n, &planned.fabricInputsModel)
		if !a.IsFullyKnown() || !a.Equal(b) {
			return false
		}
	}
	return true
}
