package provider

import (
	"context"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/action/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

var (
	_ action.Action              = (*openSMSweepAction)(nil)
	_ action.ActionWithConfigure = (*openSMSweepAction)(nil)
)

func newOpenSMSweepAction() action.Action { return &openSMSweepAction{} }

// openSMSweepAction is gpucluster_opensm_sweep: every SM host's OpenSM re-reads its files and
// sweeps, verified as a push is (opensm.SweepAll).
type openSMSweepAction struct{ data *Data }

type openSMSweepModel struct {
	SubnetManager types.Object   `tfsdk:"subnet_manager"`
	Timeouts      timeouts.Value `tfsdk:"timeouts"`
}

const defaultOpenSMSweepTimeout = 20 * time.Minute

func (a *openSMSweepAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_opensm_sweep"
}

func (a *openSMSweepAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	a.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (a *openSMSweepAction) Schema(ctx context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	sm := schemaAs[schema.SingleNestedAttribute](actionAttribute(subnetManagerSchema()))
	sm.Required, sm.Optional = true, false
	sm.MarkdownDescription = "The subnet manager hosts, in the shape of `gpucluster_fabric`'s `subnet_manager`: usually " +
		"`subnet_manager = gpucluster_fabric.<name>.subnet_manager`. Its hosts, SSH settings, service or commands, " +
		"`config_dir` and log file are used; its rendering settings are not (nothing is rendered). The SSH key is best left to the " +
		"provider's `ssh` block: an action shows its configuration in the plan (a reference to the fabric's attribute " +
		"stays marked sensitive)."
	resp.Schema = schema.Schema{
		MarkdownDescription: "Makes the OpenSM of every subnet manager host re-read its files and run a heavy sweep " +
			"(SIGHUP through the service, or its reload command), primary first, then verifies each as the fabric's push " +
			"does: the master's routing run configured every switch with the engine its `opensm.conf` names (and, for " +
			"ftree, as many roots as its root GUID file lists), partitions accepted; a standby runs without partition " +
			"errors. Nothing is written, so nothing is rolled back: it stops at the first host that fails, saying which " +
			"hosts were swept. For after a switch or cable replacement, or as the `action_trigger` of a partition " +
			"change. OpenSM re-reads `partitions.conf` and the GUID files on a sweep, not the options it reads at start " +
			"(routing engine, LMC, file paths): those take the fabric's apply, which restarts it. A host without a " +
			"running OpenSM, or whose files an earlier push wrote but never activated, is refused before anything is " +
			"sent. Terraform 1.14 or later.",
		Attributes: map[string]schema.Attribute{"subnet_manager": sm},
		Blocks: map[string]schema.Block{"timeouts": timeouts.BlockWithOpts(ctx, timeouts.Opts{
			InvokeDescription: "Bound on the whole sweep (default 20m): every host's SSH connection, signal and verification.",
		})},
	}
}

func (a *openSMSweepAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	var m openSMSweepModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Invoke(ctx, defaultOpenSMSweepTimeout)
	resp.Diagnostics.Append(d...)
	sm, ok := readSubnetManager(ctx, m.SubnetManager, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if !ok || len(sm.hosts) == 0 {
		resp.Diagnostics.AddAttributeError(path.Root("subnet_manager").AtName("hosts"), "No subnet manager hosts",
			"subnet_manager.hosts lists no host to sweep; give the fabric's subnet_manager, e.g. subnet_manager = gpucluster_fabric.pod.subnet_manager.")
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ctx = maskSecrets(ctx, sm.ssh.PrivateKey)
	// The fabric's own connection to an SM host (fabric_opensm.go): same SSH checks and paths.
	fr := &fabricResource{data: a.data}
	results, err := opensm.SweepAll(ctx, sm.hosts, func(ctx context.Context, i int) (opensm.Target, func(), error) {
		t, closeFn, err := fr.target(ctx, sm, sm.hosts[i], nil, opensm.Expect{})
		t.Progress = func(step string) { actionProgress(ctx, resp, "opensm %s: %s", sm.hosts[i], step) }
		return t, closeFn, err
	})
	reportHosts(opensm.OpSweep, results, err, &resp.Diagnostics)
}
