package provider

import (
	"context"
	"errors"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/ufm"
)

// The fabric's partition target: apply and destroy reach the subnet manager that
// `subnet_manager.kind` names through the target that kind registered (partition.Open), so the
// steps are the same for every kind: open, Apply the declared partitions (with the P_Keys the
// state says the fabric owns), and at destroy Restore (a target that owns the whole subnet
// manager's configuration) or Remove the owned P_Keys. What stays per kind is small and lives in
// the switches below: the kind's settings (its provider or resource attributes), what it
// records in state, and how its failures read.

// targetSettings decodes the settings of the kind's target for partition.Open. rendered is the
// fabric's rendering at apply (nil at destroy, where no file is pushed).
func (r *fabricResource) targetSettings(ctx context.Context, kind string, m *fabricModel, rendered *plan.Rendered, apply bool, diags *diag.Diagnostics) (any, bool) {
	switch kind {
	case ufm.Kind:
		if r.data == nil || r.data.UFM == nil {
			addNoUFMConfigured(diags)
			return nil, false
		}
		return *r.data.UFM, true
	}
	sm, ok := readSubnetManager(ctx, m.SubnetManager, diags)
	if !ok {
		return nil, false
	}
	h := opensm.Hosts{Names: sm.hosts, Open: func(ctx context.Context, i int, files opensm.Files, expect opensm.Expect) (opensm.Target, func(), error) {
		return r.target(ctx, sm, sm.hosts[i], files, expect)
	}}
	if apply {
		if rendered == nil {
			diags.AddAttributeError(path.Root("opensm"), "No OpenSM files to push", "The fabric could not be rendered into OpenSM files; see the plan's errors.")
			return nil, false
		}
		h.Config, h.Expect = rendered.Config, rendered.Expect
	}
	return h, true
}

// openTarget opens the kind's target with its settings.
func (r *fabricResource) openTarget(ctx context.Context, kind string, m *fabricModel, rendered *plan.Rendered, apply bool, diags *diag.Diagnostics) (partition.Target, bool) {
	settings, ok := r.targetSettings(ctx, kind, m, rendered, apply, diags)
	if !ok {
		return nil, false
	}
	t, err := partition.Open(kind, settings)
	if err != nil {
		diags.AddAttributeError(path.Root("subnet_manager").AtName("kind"), "Invalid "+kind+" settings", err.Error())
		return nil, false
	}
	return t, true
}

// applyTarget brings the kind's target to the planned partitions and records the outcome in m.
// It reports whether the state is to be written: OpenSM's state is written only after every
// host verified the push (a failed host was rolled back, and the next plan shows the same
// change); UFM's always, since it records what UFM holds, also after a failure half way.
func (r *fabricResource) applyTarget(ctx context.Context, kind string, m *fabricModel, rendered *plan.Rendered, prior types.Map, diags *diag.Diagnostics) bool {
	// want and owned: OpenSM takes the rendered partitions and owns the whole file; UFM takes the
	// planned ufm_partitions and owns the P_Keys the state recorded.
	var want, before []partition.Partition
	var owned []uint16
	if kind == ufm.Kind {
		var err error
		if want, err = declaredUFM(m.UFMPartitions); err != nil {
			diags.AddAttributeError(path.Root("ufm_partitions"), "Invalid planned partitions", err.Error())
			return true
		}
		if !prior.IsNull() && !prior.IsUnknown() {
			before, _ = declaredUFM(prior)
			for _, p := range before {
				owned = append(owned, p.PKey)
			}
		}
	} else if rendered != nil {
		want = rendered.Partitions
	}
	t, ok := r.openTarget(ctx, kind, m, rendered, true, diags)
	if !ok {
		return kind == ufm.Kind || !diags.HasError()
	}
	got, err := t.Apply(ctx, want, owned)
	if kind != ufm.Kind {
		return reportHosts(opensm.OpPush, hostResults(t), err, diags)
	}
	if got != nil || err == nil {
		m.UFMPartitions = ufmPartitionsValue(renamed(got, want, before))
	}
	if err != nil {
		diags.AddAttributeError(path.Root("subnet_manager").AtName("kind"), "Applying the partitions to UFM failed",
			err.Error()+"\n\nThe state records what UFM holds now; apply again to finish (the steps already done are not repeated).")
	}
	return true
}

// destroyTarget undoes the fabric's applies on its target: Restore where the target owns the
// whole configuration (OpenSM's hosts), else Remove the P_Keys in state, and nothing else (UFM).
func (r *fabricResource) destroyTarget(ctx context.Context, kind string, m *fabricModel, diags *diag.Diagnostics) {
	var owned []uint16
	if kind == ufm.Kind {
		if m.UFMPartitions.IsNull() || m.UFMPartitions.IsUnknown() {
			return
		}
		had, err := declaredUFM(m.UFMPartitions)
		if err != nil {
			diags.AddAttributeError(path.Root("ufm_partitions"), "Invalid partitions in state", err.Error())
			return
		}
		for _, p := range had {
			owned = append(owned, p.PKey)
		}
		sort.Slice(owned, func(i, j int) bool { return owned[i] < owned[j] })
	}
	t, ok := r.openTarget(ctx, kind, m, nil, false, diags)
	if !ok {
		return
	}
	if rs, ok := t.(partition.Restorer); ok {
		reportRestore(hostResults(t), rs.Restore(ctx), diags)
		return
	}
	if err := t.Remove(ctx, owned); err != nil {
		diags.AddError("Removing the partitions from UFM failed", err.Error()+
			"\n\nFix UFM or its access and destroy again, or run `terraform state rm` to forget the fabric.")
	}
}

// hostResults are the OpenSM hosts' results of the target's last run (none for other kinds).
func hostResults(t partition.Target) []opensm.Result {
	if h, ok := t.(*opensm.HostsTarget); ok {
		return h.Results
	}
	return nil
}

// reportRestore maps an UnpushAll to diagnostics: a warning for each host left as it was, and
// the error where the run stopped.
func reportRestore(results []opensm.Result, err error, diags *diag.Diagnostics) {
	var kept diag.Diagnostics
	for _, res := range results {
		if res.Kept {
			kept.AddWarning("Subnet manager host "+res.Host+" left as it is",
				"The provider found no snapshot of this host's files from before its first push (the host already had these files, "+
					"or the snapshot was removed), so the files stay and OpenSM keeps running with them.")
		}
	}
	// One per SM host, and the list of hosts has no bound: capped.
	diags.Append(capDiagnosticsBy(kept, func(diag.Diagnostic) string { return "Subnet manager hosts left as they are" })...)
	var stopped *opensm.AllError
	switch {
	case errors.As(err, &stopped) && stopped.Open:
		diags.AddError(stopped.Summary(), stopped.Err.Error())
	case stopped != nil:
		diags.AddError(stopped.Summary(), stopped.Err.Error()+
			"\n\nFix the host or its access and destroy again, or run `terraform state rm` to forget the fabric without restoring the host.")
	case err != nil:
		diags.AddError("Restoring the subnet manager hosts failed", err.Error())
	}
}
