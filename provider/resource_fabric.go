package provider

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

var (
	_ resource.Resource               = (*fabricResource)(nil)
	_ resource.ResourceWithConfigure  = (*fabricResource)(nil)
	_ resource.ResourceWithModifyPlan = (*fabricResource)(nil)
)

func init() { resources = append(resources, newFabricResource) }

func newFabricResource() resource.Resource { return &fabricResource{} }

type fabricResource struct {
	data *Data
}

type fabricModel struct {
	ID          types.String `tfsdk:"id"`
	Name        types.String `tfsdk:"name"`
	Racks       types.List   `tfsdk:"racks"`
	Switches    types.List   `tfsdk:"switches"`
	Nodes       types.List   `tfsdk:"nodes"`
	HCAs        types.List   `tfsdk:"hcas"`
	Cables      types.List   `tfsdk:"cables"`
	Partitions  types.List   `tfsdk:"partitions"`
	Transport   types.String `tfsdk:"transport"`
	PFC         types.Bool   `tfsdk:"pfc"`
	Policy      types.Object `tfsdk:"policy"`
	PolicyFiles types.List   `tfsdk:"policy_files"`
	Workload    types.Object `tfsdk:"workload"`
	Analysis    types.Object `tfsdk:"analysis"`
	BOM         types.Object `tfsdk:"bom"`
	BOMDelta    types.Object `tfsdk:"bom_delta"`

	SubnetManager    types.Object   `tfsdk:"subnet_manager"`
	OpenSM           types.Object   `tfsdk:"opensm"`
	ExpectedTopology types.String   `tfsdk:"expected_topology"`
	Timeouts         timeouts.Value `tfsdk:"timeouts"`
}

func (r *fabricResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_fabric"
}

func (r *fabricResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (r *fabricResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	attrs := fabricInputAttributes()
	attrs["id"] = schema.StringAttribute{
		Computed: true, MarkdownDescription: "The fabric's name.",
		PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
	}
	attrs["name"] = schema.StringAttribute{
		Required: true, MarkdownDescription: "Fabric name, e.g. `compute`.",
		Validators:    []validator.String{nameValidator()},
		PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
	}
	attrs["transport"] = transportSchema()
	attrs["pfc"] = schema.BoolAttribute{Optional: true, MarkdownDescription: "Priority flow control is configured end to end (RoCE only)."}
	attrs["policy"] = policySchema()
	attrs["policy_files"] = schema.ListAttribute{
		Optional: true, ElementType: types.StringType,
		MarkdownDescription: "HCL files of custom `rule` blocks, evaluated against `fabric` and `analysis` like Terraform preconditions.",
	}
	attrs["workload"] = workloadSchema()
	attrs["analysis"] = analysisSchema()
	attrs["bom"] = bomSchema("Bill of materials of the whole fabric: switches, nodes, HCAs, cables by kind and standard " +
		"length, transceivers and fibers, priced from the catalog.")
	attrs["bom_delta"] = bomSchema("What this plan adds to (positive quantities) or frees from (negative) the fabric in " +
		"the prior state: the purchase order of an expansion. On create it equals `bom`; a plan that leaves the bill " +
		"of materials unchanged keeps the delta of the last change, so an unchanged fabric plans no diff.")
	attrs["subnet_manager"] = subnetManagerSchema()
	attrs["opensm"] = openSMSchema()
	attrs["expected_topology"] = schema.StringAttribute{
		Computed: true,
		MarkdownDescription: "The declared fabric in `ibnetdiscover` format, which `ibsim -s` loads as is: a " +
			"`switchguid=`/`caguid=` line and a `Switch`/`Ca` header per device (HCAs named `<node> <device>`, as " +
			"ConnectX ports describe themselves), one `[port] \"peer\"[port]` line per cabled port. 400G links are " +
			"written as `4xHDR`, because ibsim 0.10 cannot parse NDR; an HCA's node GUID is its declared port GUID " +
			"minus 1, because ibsim numbers CA ports from the node GUID. Compare it with what " +
			"`gpucluster_discovered_fabric` finds.",
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "The whole fabric. At plan time it assembles the racks, switches, nodes, HCAs, cables and " +
			"partitions into one graph, checks it across resources (ports used twice, reach, rack budgets, " +
			"connectivity), proves the bisection bandwidth and oversubscription, and fails the plan on a policy " +
			"violation with the rule, the measured and required values and the witness. It also renders the exact " +
			"OpenSM files (`opensm`) and, with `subnet_manager`, pushes them to the subnet manager hosts at apply, " +
			"verifies that OpenSM routes as intended and rolls back if not; a refresh reads the files back from the " +
			"first host, so a hand edit shows as a diff in the next plan.\n\n" +
			"**State holds secrets** when `subnet_manager.ssh_private_key` is set (refresh needs the key, so it is kept " +
			"in state, marked sensitive): use a backend that encrypts state at rest, or leave the key to the " +
			"provider's `ssh` block.",
		Attributes: attrs,
		Blocks: map[string]schema.Block{"timeouts": timeouts.Block(ctx, timeouts.Opts{
			Create: true, Read: true, Update: true, Delete: true,
			CreateDescription: "Bound on the first push to the subnet manager hosts, verification included (default 20m).",
			ReadDescription:   "Bound on reading the OpenSM files back from the first subnet manager host at refresh (default 2m).",
			UpdateDescription: "Bound on a push to the subnet manager hosts, verification included (default 20m).",
			DeleteDescription: "Bound on restoring the subnet manager hosts' original files at destroy (default 10m).",
		})},
	}
}

// ModifyPlan is where the fabric is judged: everything here runs at `terraform plan`.
func (r *fabricResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.data == nil {
		return
	}
	var m fabricModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// The lists come from Wrap's stash (the framework got them null; see bypass.go).
	out, diags := planFabric(ctx, r.data, withStashedLists(ctx, fromProposed, &m, &resp.Diagnostics))
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	out.delta(ctx, r.data, req.State)
	osm, topo, d := planOpenSM(ctx, r.data, &m, out.graph)
	resp.Diagnostics.Append(d...)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("analysis"), out.analysis)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("bom"), out.bomObj)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("bom_delta"), out.deltaObj)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("opensm"), osm)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("expected_topology"), topo)...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("id"), m.Name)...)
}

// fabricPlan is what planFabric computes for the plan.
type fabricPlan struct {
	analysis types.Object
	bomObj   types.Object
	deltaObj types.Object
	bom      *bom.BOM      // nil while the plan depends on unknown values
	graph    *fabric.Graph // nil while the plan depends on unknown values
}

// delta fills bom_delta against the fabric in the prior state. The prior BOM is rebuilt from
// the prior state's own lists rather than read back from its `bom` output, so the difference is
// exact down to the cabling rows; a prior state that no longer builds counts as empty.
func (p *fabricPlan) delta(ctx context.Context, data *Data, state tfsdk.State) {
	if p.bom == nil {
		return
	}
	var prior bom.BOM
	if !state.Raw.IsNull() {
		var m fabricModel
		if !state.Get(ctx, &m).HasError() {
			// Nothing to buy or free: keep the delta of the last change, so a plan of an
			// unchanged fabric stays empty.
			if m.BOM.Equal(p.bomObj) && !m.BOMDelta.IsNull() && !m.BOMDelta.IsUnknown() {
				p.deltaObj = m.BOMDelta
				return
			}
			rd := specReader{}
			lists := withStashedLists(ctx, fromPrior, &m, &rd.diags)
			if spec := rd.spec(ctx, lists); !rd.unknown && !rd.diags.HasError() {
				if g, problems := fabric.Build(spec, data.Catalog); !fabric.HasErrors(problems) {
					prior = bom.FromGraph(g, data.Catalog)
				}
			}
		}
	}
	p.deltaObj = bomValue(bom.Delta(prior, *p.bom))
}

// planFabric builds, analyses and judges the fabric. While a value it depends on is unknown the
// computed outputs stay unknown and the checks run again at apply.
func planFabric(ctx context.Context, data *Data, m *fabricModel) (fabricPlan, diag.Diagnostics) {
	var diags diag.Diagnostics
	out := fabricPlan{
		analysis: types.ObjectUnknown(analysisAttrTypes),
		bomObj:   types.ObjectUnknown(bomAttrTypes),
		deltaObj: types.ObjectUnknown(bomAttrTypes),
	}
	rd := specReader{}
	spec := rd.spec(ctx, m)
	diags.Append(rd.diags...)
	if diags.HasError() || rd.unknown {
		return out, diags
	}
	g, problems := fabric.Build(spec, data.Catalog)
	for _, p := range problems {
		if p.Severity == fabric.Warning {
			diags.AddAttributeWarning(problemPath(p.Path), "Fabric: "+p.Rule, p.Message)
		} else {
			diags.AddAttributeError(problemPath(p.Path), "Fabric: "+p.Rule, p.Message)
		}
	}
	if diags.HasError() {
		return out, diags
	}
	out.graph = g
	a, violations, d := judgeFabric(ctx, g, m)
	diags.Append(d...)
	out.analysis = analysisValue(a, violations)
	b := bom.FromGraph(g, data.Catalog)
	out.bom, out.bomObj = &b, bomValue(b)
	return out, diags
}

func (r *fabricResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.apply(ctx, req.Plan, &resp.State, false, &resp.Diagnostics)
}

func (r *fabricResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.apply(ctx, req.Plan, &resp.State, true, &resp.Diagnostics)
}

// apply is Create and Update: fill what the plan left unknown, push to the subnet managers, and
// record the new state only when the push succeeded. A failed push leaves the prior state (or
// none): the failing host was rolled back, and the next plan shows the same change and pushes
// it again (hosts that already have the files are left alone).
func (r *fabricResource) apply(ctx context.Context, plan tfsdk.Plan, state *tfsdk.State, update bool, diags *diag.Diagnostics) {
	var m fabricModel
	diags.Append(plan.Get(ctx, &m)...)
	if diags.HasError() {
		return
	}
	timeout, d := m.Timeouts.Create(ctx, defaultFabricPushTimeout)
	if update {
		timeout, d = m.Timeouts.Update(ctx, defaultFabricPushTimeout)
	}
	diags.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.finalize(ctx, &m, diags)
	if diags.HasError() || !r.push(ctx, &m, diags) {
		return
	}
	diags.Append(state.Set(ctx, &m)...)
}

// Default timeouts of the subnet manager work.
const (
	defaultFabricPushTimeout   = 20 * time.Minute
	defaultFabricReadTimeout   = 2 * time.Minute
	defaultFabricDeleteTimeout = 10 * time.Minute
)

// finalize fills what the plan left unknown (values that only became known during apply).
func (r *fabricResource) finalize(ctx context.Context, m *fabricModel, diags *diag.Diagnostics) {
	m.ID = m.Name
	if !m.Analysis.IsUnknown() && !m.OpenSM.IsUnknown() && !m.ExpectedTopology.IsUnknown() {
		return
	}
	// The lists come from Wrap's stash; m itself keeps the null lists the framework sent, as
	// it goes back through State.Set (Wrap restores the planned lists in the response).
	out, d := planFabric(ctx, r.data, withStashedLists(ctx, fromPlanned, m, diags))
	diags.Append(d...)
	if m.Analysis.IsUnknown() {
		m.Analysis, m.BOM = out.analysis, out.bomObj
		if m.BOMDelta.IsUnknown() {
			m.BOMDelta = out.bomObj
		}
	}
	osm, topo, d := planOpenSM(ctx, r.data, m, out.graph)
	diags.Append(d...)
	if m.OpenSM.IsUnknown() {
		m.OpenSM = osm
	}
	if m.ExpectedTopology.IsUnknown() {
		m.ExpectedTopology = topo
	}
	if m.OpenSM.IsUnknown() || m.ExpectedTopology.IsUnknown() {
		diags.AddError("Fabric still unknown at apply", "The fabric's lists hold values that are still unknown at apply; this is a bug in the provider or in Terraform.")
	}
}

func (r *fabricResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	var m fabricModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Read(ctx, defaultFabricReadTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r.refreshOpenSM(ctx, &m, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete puts every subnet manager host back as it was before the provider's first push to it
// (opensm.Unpush): the files that existed get their old content back, the files the provider
// created are removed, and OpenSM is restarted or signalled, or stopped if it was not running
// then. A host without that snapshot (the provider never changed it) is left as it is.
func (r *fabricResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	var m fabricModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Delete(ctx, defaultFabricDeleteTimeout)
	resp.Diagnostics.Append(d...)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sm, ok := readSubnetManager(ctx, m.SubnetManager, &resp.Diagnostics)
	if !ok {
		return
	}
	// Standbys first, the primary last, so the master is the last SM to change.
	for i := len(sm.hosts) - 1; i >= 0; i-- {
		host := sm.hosts[i]
		t, closeFn, err := r.target(ctx, sm, host, nil)
		if err != nil {
			resp.Diagnostics.AddError("Cannot restore the subnet manager host "+host, err.Error())
			return
		}
		_, err = opensm.Unpush(ctx, t)
		closeFn()
		switch {
		case errors.Is(err, opensm.ErrNoOriginal):
			resp.Diagnostics.AddWarning("Subnet manager host "+host+" left as it is",
				"The provider found no snapshot of this host's files from before its first push (the host already had these files, "+
					"or the snapshot was removed), so the files stay and OpenSM keeps running with them.")
		case err != nil:
			resp.Diagnostics.AddError("Restoring the subnet manager host "+host+" failed", err.Error()+
				"\n\nFix the host or its access and destroy again, or run `terraform state rm` to forget the fabric without restoring the host.")
			return
		}
	}
}

// ---- subnet_manager ----

// subnetManagerModel is the `subnet_manager` object.
type subnetManagerModel struct {
	Hosts             types.List   `tfsdk:"hosts"`
	SSHUser           types.String `tfsdk:"ssh_user"`
	SSHPrivateKey     types.String `tfsdk:"ssh_private_key"`
	KnownHostsFile    types.String `tfsdk:"known_hosts_file"`
	Port              types.Int64  `tfsdk:"port"`
	ConfigDir         types.String `tfsdk:"config_dir"`
	RoutingEngine     types.String `tfsdk:"routing_engine"`
	LMC               types.Int64  `tfsdk:"lmc"`
	Options           types.Map    `tfsdk:"options"`
	Roots             types.List   `tfsdk:"roots"`
	DefaultMembership types.String `tfsdk:"default_membership"`
	Service           types.String `tfsdk:"service"`
	StartCommand      types.String `tfsdk:"start_command"`
	StopCommand       types.String `tfsdk:"stop_command"`
	ReloadCommand     types.String `tfsdk:"reload_command"`
	StatusCommand     types.String `tfsdk:"status_command"`
	LogFile           types.String `tfsdk:"log_file"`
	VerifyTimeout     types.String `tfsdk:"verify_timeout"`
}

// subnetManager is a known `subnet_manager`, defaults applied.
type subnetManager struct {
	hosts         []string
	ssh           SSHDefaults // the resource's overrides of the provider's ssh block
	port          int
	paths         opensm.Paths
	graph         opensm.GraphOptions
	service       opensm.Service
	logFile       string
	verifyTimeout time.Duration
}

func subnetManagerSchema() schema.SingleNestedAttribute {
	cmd := func(desc string) schema.StringAttribute {
		return schema.StringAttribute{
			Optional: true, MarkdownDescription: desc,
			Validators: []validator.String{
				stringvalidator.LengthAtLeast(1),
				stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("service")),
			},
		}
	}
	start, stop := cmd("Command that starts OpenSM (run with `/bin/sh -c` over SSH). With `stop_command`, replaces the systemd unit; "+
		"a restart runs `stop_command`, then `start_command`."), cmd("Command that stops OpenSM; required with `start_command`.")
	start.Validators = append(start.Validators, stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("stop_command")))
	stop.Validators = append(stop.Validators, stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("start_command")))
	reload := cmd("Command that sends OpenSM SIGHUP (a heavy sweep that re-reads partitions.conf and the GUID files). " +
		"Without it, changes that a SIGHUP would apply restart OpenSM instead.")
	reload.Validators = append(reload.Validators, stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("start_command")))
	status := cmd("Command that exits 0 while OpenSM runs. Without it, only the log tells whether OpenSM came up.")
	status.Validators = append(status.Validators, stringvalidator.AlsoRequires(path.MatchRelative().AtParent().AtName("start_command")))
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Where and how the OpenSM files are pushed at apply. Each host, primary first, then the " +
			"standbys, gets the five files of `opensm` written atomically under `config_dir` over SSH (host keys " +
			"checked against `known_hosts_file`; there is no insecure mode), with the previous versions kept as " +
			"`<name>.prev`. A change that only touches partitions.conf, the root/CN GUID files or options OpenSM " +
			"updates at run time is applied with SIGHUP; anything OpenSM reads only at start (routing engine, LMC, " +
			"file paths, most options) restarts it. The provider then reads the OpenSM log written since the change " +
			"and requires the intended routing engine to have configured the switches with no fallback and, for " +
			"ftree, the expected number of root switches; a standby SM (which does not route) only has to run " +
			"without partition errors. If verification fails, that host gets its previous files back, OpenSM is " +
			"told again, the apply fails with the log lines that explain why, and the hosts after it are not touched. " +
			"The first push to a host also keeps its original files (`<name>.gpucluster-orig` and " +
			"`gpucluster-orig.manifest` in `config_dir`); destroying the fabric restores them. Hosts removed from " +
			"`hosts` (or all of them, when `subnet_manager` is removed) are left as they are.",
		Attributes: map[string]schema.Attribute{
			"hosts": schema.ListAttribute{
				Required: true, ElementType: types.StringType,
				MarkdownDescription: "SM hosts, primary first: names or addresses, optionally `host:port`. Refresh reads the files back from the first.",
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues()},
			},
			"ssh_user": schema.StringAttribute{Optional: true, MarkdownDescription: "SSH user; default: the provider's `ssh.user`. " +
				"It must be able to write `config_dir`, read `log_file` and run the service commands (use `sudo` in the commands if needed)."},
			"ssh_private_key": schema.StringAttribute{
				Optional: true, Sensitive: true,
				MarkdownDescription: "PEM private key for these hosts; default: the provider's `ssh.private_key`. Refresh needs it, so it " +
					"is kept in state (marked sensitive): state then needs an encrypted backend.",
			},
			"known_hosts_file": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "OpenSSH known_hosts file holding these hosts' keys; required unless the provider's " +
					"`ssh.known_hosts_file` is set. An unknown host or a changed key is refused.",
			},
			"port": schema.Int64Attribute{
				Optional: true, MarkdownDescription: "SSH port for hosts given without one (default 22).",
				Validators: []validator.Int64{int64validator.Between(1, 65535)},
			},
			"config_dir": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Directory of the files on the hosts (default `/etc/opensm`, where OpenSM looks for " +
					"opensm.conf without `-F`). Elsewhere, OpenSM must be started with `-F <config_dir>/opensm.conf`.",
			},
			"routing_engine": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "OpenSM routing engine, or a comma list tried in order (`no_fallback` allowed). Default: " +
					"from the topology, `ftree` for fat trees and rail-optimized fabrics, `updn` for dragonfly+, " +
					"`torus-2QoS` for tori, `minhop` otherwise.",
			},
			"lmc": schema.Int64Attribute{
				Optional: true, MarkdownDescription: "LID mask control, 0-7 (default 0). ftree and lash do not support LMC > 0, which the plan refuses.",
				Validators: []validator.Int64{int64validator.Between(0, 7)},
			},
			"options": schema.MapAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Further opensm.conf options (`sweep_interval = \"10\"`, `qos = \"TRUE\"`), checked against " +
					"OpenSM 3.3's option table at plan time. The provider adds `force_log_flush TRUE` unless set here: " +
					"verification reads the log while OpenSM runs.",
			},
			"roots": schema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				MarkdownDescription: "Root switch GUIDs (root_guid_file) instead of the top tier of the fabric; for ftree they must be the whole top tier.",
			},
			"default_membership": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Membership of every port in the Default partition (0x7fff): `full` (default) or `limited`, " +
					"which isolates ports that share no other partition (the SM port stays full).",
				Validators: []validator.String{stringvalidator.OneOf(opensm.Full, opensm.Limited)},
			},
			"service": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "systemd unit of OpenSM (default `opensm`): restarted with `systemctl restart`, signalled with " +
					"`systemctl kill --signal=HUP --kill-whom=main`, checked with `systemctl is-active`. On Debian, where " +
					"`opensm.service` only starts one `opensm@<port GUID>.service` per port, name that instance.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"start_command":  start,
			"stop_command":   stop,
			"reload_command": reload,
			"status_command": status,
			"log_file": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "OpenSM's log on the hosts, read to verify a change (default `/var/log/opensm.log`). " +
					"When set, it is also written to opensm.conf as `log_file`.",
			},
			"verify_timeout": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "How long to wait for OpenSM to report its routing after a change, as a Go duration (default `2m`).",
				Validators:          []validator.String{durationValidator{}},
			},
		},
	}
}

var openSMAttrTypes = func() map[string]attr.Type {
	out := map[string]attr.Type{}
	for _, a := range opensm.FileAttributes {
		out[a] = types.StringType
	}
	return out
}()

func openSMSchema() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "The exact text of the OpenSM files the provider renders from the fabric and pushes with " +
			"`subnet_manager` (after a refresh: what the first host has, so a hand edit shows as a diff back to the " +
			"rendered text). Null when the fabric cannot be rendered and there is no `subnet_manager` (a warning says why).",
		Attributes: map[string]schema.Attribute{
			"opensm_conf": schema.StringAttribute{Computed: true, MarkdownDescription: "opensm.conf: routing engine, LMC, the paths of the other files, options."},
			"partitions_conf": schema.StringAttribute{Computed: true, MarkdownDescription: "partitions.conf: the Default partition and one line per " +
				"partition, members by port GUID."},
			"root_guids": schema.StringAttribute{Computed: true, MarkdownDescription: "root_guids.conf: root switch GUIDs (ftree, updn, dnup)."},
			"cn_guids":   schema.StringAttribute{Computed: true, MarkdownDescription: "cn_guids.conf: compute-node HCA port GUIDs (ftree)."},
			"node_name_map": schema.StringAttribute{Computed: true, MarkdownDescription: "node-name-map: GUID to name, switches by name, HCAs as " +
				"`<node> <device>`."},
		},
	}
}

// durationValidator accepts a Go duration such as "90s" or "2m".
type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return "a Go duration such as 90s or 2m"
}
func (v durationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}
func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if d, err := time.ParseDuration(req.ConfigValue.ValueString()); err != nil || d <= 0 {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration", fmt.Sprintf("%q is not a positive Go duration such as \"90s\" or \"2m\".", req.ConfigValue.ValueString()))
	}
}

// readSubnetManager reads a known subnet_manager with the defaults applied; ok is false when it
// is null, unknown or holds unknown values.
func readSubnetManager(ctx context.Context, o types.Object, diags *diag.Diagnostics) (subnetManager, bool) {
	var sm subnetManager
	if o.IsNull() || o.IsUnknown() {
		return sm, false
	}
	var m subnetManagerModel
	if d := o.As(ctx, &m, objectAsOptions); d.HasError() {
		diags.Append(d...)
		return sm, false
	}
	unknown := false
	str := func(v types.String) string {
		if v.IsUnknown() {
			unknown = true
		}
		return v.ValueString()
	}
	list := func(l types.List) []string {
		if l.IsUnknown() {
			unknown = true
			return nil
		}
		var out []string
		for _, e := range l.Elements() {
			s, ok := e.(types.String)
			if !ok || s.IsUnknown() {
				unknown = true
				continue
			}
			out = append(out, s.ValueString())
		}
		return out
	}
	sm.hosts = list(m.Hosts)
	sm.ssh = SSHDefaults{User: str(m.SSHUser), PrivateKey: str(m.SSHPrivateKey), KnownHostsFile: str(m.KnownHostsFile)}
	if m.Port.IsUnknown() || m.LMC.IsUnknown() || m.Options.IsUnknown() {
		unknown = true
	}
	sm.port = int(m.Port.ValueInt64())
	sm.paths = opensm.Paths{ConfigDir: str(m.ConfigDir)}
	sm.graph = opensm.GraphOptions{
		RoutingEngine: str(m.RoutingEngine), LMC: int(m.LMC.ValueInt64()), Roots: list(m.Roots),
		DefaultMembership: str(m.DefaultMembership), Paths: sm.paths, Options: map[string]string{},
	}
	for k, v := range m.Options.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			unknown = true
			continue
		}
		sm.graph.Options[k] = s.ValueString()
	}
	sm.service = opensm.Service{
		Unit: str(m.Service), Start: str(m.StartCommand), Stop: str(m.StopCommand),
		Reload: str(m.ReloadCommand), Status: str(m.StatusCommand),
	}
	sm.logFile = str(m.LogFile)
	if v := str(m.VerifyTimeout); v != "" {
		sm.verifyTimeout, _ = time.ParseDuration(v)
	}
	return sm, !unknown
}

// graphOptions are the options FromGraph gets: the subnet_manager's with the provider's
// additions (log_file, force_log_flush).
func (sm *subnetManager) graphOptions() (opensm.GraphOptions, *opensm.FieldError) {
	o := sm.graph
	opts := map[string]string{}
	for k, v := range o.Options {
		opts[k] = v
	}
	if sm.logFile != "" {
		if v, set := opts["log_file"]; set && strings.TrimSpace(v) != sm.logFile {
			return o, &opensm.FieldError{Field: "log_file", Option: "log_file",
				Message: fmt.Sprintf("log_file %q and options.log_file %q differ: OpenSM would log to one and the provider read the other; set only log_file", sm.logFile, v)}
		}
		opts["log_file"] = sm.logFile
	}
	if _, set := opts["force_log_flush"]; !set {
		opts["force_log_flush"] = "TRUE"
	}
	o.Options = opts
	return o, nil
}

// logPath is the log the verification reads.
func (sm *subnetManager) logPath() string {
	if v := strings.TrimSpace(sm.graph.Options["log_file"]); v != "" {
		return v
	}
	if sm.logFile != "" {
		return sm.logFile
	}
	return opensm.DefaultLogFile
}

// planOpenSM renders the OpenSM files and the expected topology for the plan. Without
// subnet_manager a fabric that cannot be rendered (devices without GUIDs, say) only warns, as
// nothing is pushed; with it, every problem is an error on the attribute that causes it.
func planOpenSM(ctx context.Context, data *Data, m *fabricModel, g *fabric.Graph) (types.Object, types.String, diag.Diagnostics) {
	var diags diag.Diagnostics
	osm, topo := types.ObjectUnknown(openSMAttrTypes), types.StringUnknown()
	if g == nil || m.SubnetManager.IsUnknown() {
		return osm, topo, diags
	}
	topo = types.StringValue(opensm.ExpectedTopology(g))
	managed := !m.SubnetManager.IsNull()
	sm, known := readSubnetManager(ctx, m.SubnetManager, &diags)
	if managed && !known {
		return osm, topo, diags
	}
	if managed {
		checkSSH(data, &sm, &diags)
	}
	gopts, ferr := sm.graphOptions()
	var files opensm.Files
	var err error
	if ferr == nil {
		var cfg opensm.Config
		cfg, err = opensm.FromGraph(g, gopts)
		if err == nil {
			files, err = opensm.Render(cfg)
		}
	} else {
		err = opensm.Errors{ferr}
	}
	if err != nil {
		var fes opensm.Errors
		if !errors.As(err, &fes) {
			fes = opensm.Errors{{Message: err.Error()}}
		}
		if !managed {
			var msgs []string
			for _, fe := range fes {
				msgs = append(msgs, fe.Error())
			}
			if len(msgs) > 5 {
				msgs = append(msgs[:5], fmt.Sprintf("and %d more", len(fes)-5))
			}
			diags.AddWarning("OpenSM files not rendered",
				"`opensm` is null because the fabric cannot be rendered into OpenSM files (nothing is pushed without subnet_manager): "+
					strings.Join(msgs, "; "))
			return types.ObjectNull(openSMAttrTypes), topo, diags
		}
		for _, fe := range fes {
			diags.AddAttributeError(openSMErrorPath(fe.Field), "Invalid OpenSM configuration", fe.Field+": "+fe.Message)
		}
		return osm, topo, diags
	}
	return openSMValue(files), topo, diags
}

// checkSSH fails the plan when a host cannot be reached the way it is configured (no user, key or
// known_hosts file anywhere).
func checkSSH(data *Data, sm *subnetManager, diags *diag.Diagnostics) {
	for _, h := range sm.hosts {
		if _, err := sshConfig(data, h, sm.ssh); err != nil {
			diags.AddAttributeError(path.Root("subnet_manager"), "Subnet manager host unreachable as configured",
				err.Error()+" (in subnet_manager: ssh_user, ssh_private_key, known_hosts_file).")
			return
		}
	}
}

// openSMErrorPath maps an opensm.FieldError field ("partitions[2].pkey", "switches[3].guid",
// "options.qos", "roots[1]", "lmc") to the attribute of gpucluster_fabric that causes it.
func openSMErrorPath(field string) path.Path {
	steps := splitField(field)
	if len(steps) == 0 {
		return path.Root("subnet_manager")
	}
	var p path.Path
	switch steps[0].name {
	case "racks", "switches", "nodes", "hcas", "cables", "partitions":
		p = path.Root(steps[0].name)
	case "compute_nodes", "node_names":
		return path.Root("hcas") // derived from the HCAs' port GUIDs (and the switches' GUIDs)
	default:
		p = path.Root("subnet_manager").AtName(steps[0].name)
		if steps[0].name == "options" && len(steps) > 1 {
			return p.AtMapKey(steps[1].name)
		}
	}
	if steps[0].index >= 0 {
		p = p.AtListIndex(steps[0].index)
	}
	for _, st := range steps[1:] {
		p = p.AtName(st.name)
		if st.index >= 0 {
			p = p.AtListIndex(st.index)
		}
	}
	return p
}

type fieldStep struct {
	name  string
	index int
}

// splitField reads "a[1].b.c[2]" into steps; a step without an index has index -1.
func splitField(field string) []fieldStep {
	var out []fieldStep
	for _, part := range strings.Split(field, ".") {
		st := fieldStep{name: part, index: -1}
		if i := strings.IndexByte(part, '['); i > 0 && strings.HasSuffix(part, "]") {
			if n, err := strconv.Atoi(part[i+1 : len(part)-1]); err == nil {
				st = fieldStep{name: part[:i], index: n}
			}
		}
		if st.name != "" {
			out = append(out, st)
		}
	}
	return out
}

func openSMValue(files opensm.Files) types.Object {
	vals := map[string]attr.Value{}
	for name, a := range opensm.FileAttributes {
		vals[a] = types.StringValue(files[name])
	}
	return types.ObjectValueMust(openSMAttrTypes, vals)
}

// openSMFiles turns the `opensm` object back into the file set.
func openSMFiles(o types.Object) (opensm.Files, bool) {
	if o.IsNull() || o.IsUnknown() {
		return nil, false
	}
	files := opensm.Files{}
	attrs := o.Attributes()
	for name, a := range opensm.FileAttributes {
		s, ok := attrs[a].(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			return nil, false
		}
		files[name] = s.ValueString()
	}
	return files, true
}

// expectFrom says what a good routing run of the files looks like: the first routing engine
// configures the switches, with as many ftree roots as the root file lists. Error-level log
// lines are reported, not refused: real fabrics log them for every flapping port.
func expectFrom(files opensm.Files) opensm.Expect {
	e := opensm.Expect{AllowErrors: true}
	if engines, _, err := opensm.ParseEngines(opensm.ParseOptionFile(files[opensm.FileOpenSMConf])["routing_engine"]); err == nil {
		e.Engine = engines[0]
	} else {
		e.Engine = "minhop" // OpenSM's default when opensm.conf names none
	}
	if e.Engine == "ftree" {
		for _, l := range strings.Split(files[opensm.FileRootGUIDs], "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
				e.Roots++
			}
		}
	}
	return e
}

// target connects to one SM host and describes the push to it; closeFn ends the connection.
func (r *fabricResource) target(ctx context.Context, sm subnetManager, host string, files opensm.Files) (opensm.Target, func(), error) {
	cfg, err := sshConfig(r.data, host, sm.ssh)
	if err != nil {
		return opensm.Target{}, nil, err
	}
	if cfg.Port == 0 {
		cfg.Port = sm.port
	}
	cfg.Timeout = 30 * time.Second
	c, err := remote.Dial(ctx, cfg)
	if err != nil {
		return opensm.Target{}, nil, err
	}
	return opensm.Target{
		Name: host, Host: c, Files: files, Paths: sm.paths, Service: sm.service,
		LogFile: sm.logPath(), Expect: expectFrom(files), VerifyTimeout: sm.verifyTimeout,
	}, func() { _ = c.Close() }, nil
}

// push sends the planned files to every SM host, primary first (opensm.PushAll semantics: stop at
// the first failure, which is rolled back). It reports false on failure.
func (r *fabricResource) push(ctx context.Context, m *fabricModel, diags *diag.Diagnostics) bool {
	sm, ok := readSubnetManager(ctx, m.SubnetManager, diags)
	if !ok {
		return !diags.HasError()
	}
	files, ok := openSMFiles(m.OpenSM)
	if !ok {
		diags.AddAttributeError(path.Root("opensm"), "No OpenSM files to push", "The fabric could not be rendered into OpenSM files; see the plan's errors.")
		return false
	}
	var done []string
	for i, host := range sm.hosts {
		t, closeFn, err := r.target(ctx, sm, host, files)
		if err != nil {
			diags.AddAttributeError(path.Root("subnet_manager").AtName("hosts").AtListIndex(i), "Cannot reach subnet manager host "+host,
				err.Error()+pushedNote(done, sm.hosts[i+1:]))
			return false
		}
		res, err := opensm.Push(ctx, t)
		closeFn()
		if err != nil {
			diags.AddAttributeError(path.Root("subnet_manager").AtName("hosts").AtListIndex(i), "OpenSM push to "+host+" failed",
				err.Error()+pushedNote(done, sm.hosts[i+1:]))
			return false
		}
		done = append(done, host)
		if n := len(res.Verdict.Errors); n > 0 && res.Written {
			shown := res.Verdict.Errors
			if len(shown) > 3 {
				shown = shown[:3]
			}
			diags.AddWarning("OpenSM on "+host+" logged errors",
				fmt.Sprintf("Routing was verified (%s), but OpenSM logged %d error lines after the change, first: %s",
					res.Verdict.Engine, n, strings.Join(shown, " | ")))
		}
	}
	return true
}

func pushedNote(done, left []string) string {
	var b strings.Builder
	if len(done) > 0 {
		b.WriteString("\n\nAlready pushed and verified (they keep the new files): " + strings.Join(done, ", ") + ".")
	}
	if len(left) > 0 {
		b.WriteString("\n\nNot touched: " + strings.Join(left, ", ") + ".")
	}
	return b.String()
}

// refreshOpenSM replaces `opensm` with the files on the first SM host, so that a hand edit there
// shows in the next plan as a diff back to the rendered text (a missing file reads as ""). An
// unreachable host leaves the state as it was, with a warning; a refused host key is an error.
func (r *fabricResource) refreshOpenSM(ctx context.Context, m *fabricModel, diags *diag.Diagnostics) {
	sm, ok := readSubnetManager(ctx, m.SubnetManager, diags)
	if !ok || len(sm.hosts) == 0 || m.OpenSM.IsNull() {
		return
	}
	host := sm.hosts[0]
	t, closeFn, err := r.target(ctx, sm, host, nil)
	var files opensm.Files
	if err == nil {
		files, err = opensm.ReadFiles(ctx, t.Host, sm.paths)
		closeFn()
	}
	var hk *remote.HostKeyError
	switch {
	case errors.As(err, &hk):
		diags.AddAttributeError(path.Root("subnet_manager").AtName("hosts").AtListIndex(0), "Subnet manager host key refused", err.Error())
		return
	case err != nil:
		diags.AddWarning("Cannot read the OpenSM files back from "+host,
			err.Error()+"\n\nThe plan compares with the files of the last apply; drift on the host is not seen.")
		return
	}
	m.OpenSM = openSMValue(files)
}
