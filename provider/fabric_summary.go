package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

// The plan summary (internal/plan/summary.go writes it): one warning diagnostic per fabric whose
// plan changes something, because a warning is the only text a provider can print at plan time.

// summarize adds the plan summary of next against the prior state, or nothing when the plan
// changes nothing the summary speaks of.
func (r *fabricResource) summarize(ctx context.Context, state tfsdk.State, planned *fabricModel, next *plan.Outcome, diags *diag.Diagnostics) {
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
		return
	}
	title := plan.SummaryTitle
	if name := planned.Name.ValueString(); name != "" {
		title += " (" + name + ")"
	}
	diags.AddWarning(title, text)
}

// priorOf fills what the summary compares against: the prior state's digests and verdict as
// stored, and its graph, BOM and files rebuilt from the prior state's own inputs. Inputs and
// settings equal to the planned ones (every plan of an unchanged fabric) are not built twice; a
// prior state that no longer builds counts as empty.
func (r *fabricResource) priorOf(ctx context.Context, m, planned *fabricModel, next *plan.Outcome, prior *plan.Prior) {
	prior.Lines = violationsOf(m.Analysis)
	if !m.OpenSM.IsUnknown() {
		prior.Digests, prior.DigestsKnown = openSMDigests(m.OpenSM), true
	}
	var ignored diag.Diagnostics
	cat := inventoryCatalog(r.data)
	f := next.Fabric
	if !sameInputs(ctx, m, planned) {
		if f, _, _ = readFabric(ctx, cat, &withStashedLists(ctx, fromPrior, m, &ignored).fabricInputsModel, false); f == nil {
			return
		}
	}
	prior.Graph = f.Graph
	if f == next.Fabric {
		prior.BOM = next.BOM
	} else {
		prior.BOM = plan.Price(cat, f)
	}
	req, d := fabricRequest(ctx, r.data, m)
	if d.HasError() || req.OpenSM == nil {
		return
	}
	if f == next.Fabric && m.SubnetManager.Equal(planned.SubnetManager) && next.OpenSM != nil {
		prior.Files = next.OpenSM.Files
		return
	}
	if rendered, _ := plan.Render(f, *req.OpenSM); rendered != nil {
		prior.Files = rendered.Files
	}
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
		a := inputValue(ctx, fromPrior, n, &prior.fabricInputsModel)
		b := inputValue(ctx, fromProposed, n, &planned.fabricInputsModel)
		if !a.IsFullyKnown() || !a.Equal(b) {
			return false
		}
	}
	return true
}
