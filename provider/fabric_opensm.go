package provider

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// The OpenSM side of gpucluster_fabric: the subnet_manager settings, the rendering shared with
// gpucluster_opensm_files, the `opensm` digests, the push at apply and the read-back at refresh.

// ---- subnet_manager ----

// openSMRenderModel holds the settings of openSMRenderAttributes: embedded in the fabric's
// `subnet_manager`, and the whole `subnet_manager` of gpucluster_opensm_files.
type openSMRenderModel struct {
	ConfigDir         types.String `tfsdk:"config_dir"`
	Flavor            types.String `tfsdk:"flavor"`
	RoutingEngine     types.String `tfsdk:"routing_engine"`
	LMC               types.Int64  `tfsdk:"lmc"`
	Options           types.Map    `tfsdk:"options"`
	Roots             types.List   `tfsdk:"roots"`
	DefaultMembership types.String `tfsdk:"default_membership"`
	LogFile           types.String `tfsdk:"log_file"`
}

// subnetManagerModel is the `subnet_manager` object.
type subnetManagerModel struct {
	openSMRenderModel
	Kind           types.String `tfsdk:"kind"`
	Hosts          types.List   `tfsdk:"hosts"`
	SSHUser        types.String `tfsdk:"ssh_user"`
	SSHPrivateKey  types.String `tfsdk:"ssh_private_key"`
	KnownHostsFile types.String `tfsdk:"known_hosts_file"`
	Port           types.Int64  `tfsdk:"port"`
	Service        types.String `tfsdk:"service"`
	StartCommand   types.String `tfsdk:"start_command"`
	StopCommand    types.String `tfsdk:"stop_command"`
	ReloadCommand  types.String `tfsdk:"reload_command"`
	StatusCommand  types.String `tfsdk:"status_command"`
	VerifyTimeout  types.String `tfsdk:"verify_timeout"`
}

// subnetManager is a known `subnet_manager`, defaults applied.
type subnetManager struct {
	render        plan.OpenSMSettings
	hosts         []string
	ssh           SSHDefaults // the resource's overrides of the provider's ssh block
	port          int
	service       opensm.Service
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
	attrs := openSMRenderAttributes()
	for k, v := range map[string]schema.Attribute{
		"hosts": schema.ListAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "SM hosts, primary first: names or addresses, optionally `host:port`. Refresh reads the files back from the first. " +
				"Required with `kind = \"opensm\"` (the default); not used with `ufm`.",
			Validators: []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues(), sameSSHHostValidator{}},
		},
	} {
		attrs[k] = v
	}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "Where and how the OpenSM files are pushed at apply. Each host, primary first, then the " +
			"standbys, gets the six files of `opensm` written atomically under `config_dir` over SSH (host keys " +
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
		Attributes: withAttributes(attrs, map[string]schema.Attribute{
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
					"`ssh.known_hosts_file` is set. An unknown host or a changed key is refused. It must exist when Terraform plans.",
				Validators: []validator.String{knownHostsOverrideValidator()},
			},
			"port": schema.Int64Attribute{
				Optional: true, MarkdownDescription: "SSH port for hosts given without one (default 22).",
				Validators: []validator.Int64{int64validator.Between(1, 65535)},
			},
			"service": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "systemd unit of OpenSM (default `opensm`): restarted with `systemctl restart`, signalled with " +
					"`systemctl kill --signal=HUP --kill-whom=main`, checked with `systemctl is-active`. On Debian, where " +
					"`opensm.service` only starts one `opensm@<port GUID>.service` per port, name that instance.",
				Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
			},
			"kind":           subnetManagerKindAttribute(),
			"start_command":  start,
			"stop_command":   stop,
			"reload_command": reload,
			"status_command": status,
			"verify_timeout": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "How long to wait for OpenSM to report its routing after a change, as a Go duration (default `2m`).",
				Validators:          []validator.String{durationValidator{}},
			},
		}),
	}
}

// withAttributes adds more to attrs and returns it.
func withAttributes(attrs, more map[string]schema.Attribute) map[string]schema.Attribute {
	for k, v := range more {
		attrs[k] = v
	}
	return attrs
}

// openSMRenderAttributes are the settings of subnet_manager that change the files, and the
// whole `subnet_manager` of gpucluster_opensm_files: one definition, read by one function
// (openSMRenderModel.settings) and rendered by one function (plan.Render), so the fabric and the data
// source render the same bytes from the same inputs.
func openSMRenderAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"config_dir": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Directory of the files on the hosts (default `/etc/opensm`, where OpenSM looks for " +
				"opensm.conf without `-F`). Elsewhere, OpenSM must be started with `-F <config_dir>/opensm.conf`.",
		},
		"flavor": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Which subnet manager the hosts run: `opensm` (default), upstream OpenSM 3.3, or `nvidia`, " +
				"NVIDIA's build shipped with UFM and MLNX_OFED (OpenSM 5.x), which adds the adaptive-routing engines " +
				"`ar_updn`, `ar_ftree`, `ar_torus`, `ar_dor`, `pqft`, `dfp`, `dfp2`, `kdor-hc` and options such as `ar_mode`, " +
				"`shield_mode`, `ar_sl_mask`, `ar_transport_mask`, `enable_ar_by_device_cap`, `ar_tree_asymmetric_flow` " +
				"(and lacks `nue`). `routing_engine` and `options` are checked against the flavour's own documented names " +
				"(NVIDIA's: MLNXSM release notes 5.10-5.24, UFM Enterprise 6.19 and the InfiniBand Cluster Bring-up " +
				"Procedure), and a name of the other flavour is refused with a message naming it. The tests run upstream " +
				"OpenSM 3.3 on a simulated fabric; for `nvidia` the files are checked by their grammar and those names " +
				"only, and the verification after a push accepts the form NVIDIA SM's log is documented and seen to " +
				"keep (`<engine> tables configured on all switches`).",
			Validators: []validator.String{stringvalidator.OneOf(opensm.Flavors...)},
		},
		"routing_engine": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "OpenSM routing engine, or a comma list tried in order (`no_fallback` allowed). Default: " +
				"from the topology, `ftree` for fat trees and rail-optimized fabrics, `updn` for dragonfly+, " +
				"`torus-2QoS` for tori generated from a `design` (the provider writes their torus description, " +
				"`torus-2QoS.conf`, with the sizes and seed links, and sets `torus_config` and `qos TRUE`) or given one " +
				"(`options.torus_config`), `dfsssp` for declared tori without one, " +
				"`minhop` otherwise (one switch, or leaves cabled back to back: a tree of switches, deadlock-free with minhop). " +
				"`torus-2QoS` is refused only where it is set here without a torus description. The same defaults " +
				"apply to both flavours; NVIDIA's adaptive-routing engines are used only when set here.",
		},
		"lmc": schema.Int64Attribute{
			Optional: true, MarkdownDescription: "LID mask control, 0-7 (default 0). ftree and lash do not support LMC > 0, which the plan refuses.",
			Validators: []validator.Int64{int64validator.Between(0, 7)},
		},
		"options": schema.MapAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Further opensm.conf options (`sweep_interval = \"10\"`, `qos = \"TRUE\"`), checked against " +
				"the option table of `flavor` at plan time (OpenSM 3.3's opt_tbl; for `nvidia`, that and NVIDIA's documented " +
				"additions). The provider adds `force_log_flush TRUE` unless set here: " +
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
		"log_file": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "OpenSM's log on the hosts, read to verify a change (default `/var/log/opensm.log`). " +
				"When set, it is also written to opensm.conf as `log_file`.",
		},
	}
}

// digestAttrTypes is one file's entry of `opensm`.
var digestAttrTypes = map[string]attr.Type{"sha256": types.StringType, "bytes": types.Int64Type, "lines": types.Int64Type}

var digestType = types.ObjectType{AttrTypes: digestAttrTypes}

func openSMSchema() schema.MapNestedAttribute {
	return schema.MapNestedAttribute{
		Computed: true,
		MarkdownDescription: "A digest of each OpenSM file the provider renders from the fabric and pushes with " +
			"`subnet_manager`, keyed by the file name on the host (`opensm.conf`, `partitions.conf`, `root_guids.conf`, " +
			"`cn_guids.conf`, `node-name-map`, `torus-2QoS.conf`). After a refresh it holds the digests of the files the first host has " +
			"(a file missing there is missing here), so a hand edit shows in the next plan as a change of that file's " +
			"digest, and the apply pushes the rendered text back. When OpenSM does not run on some SM host (its status " +
			"command fails, or its log ends with it exiting), or runs there as master without routes (its last routing " +
			"run configured no switch tables), it runs none of the files: the map is empty after the refresh, the plan " +
			"shows every file as a change with a warning naming the host, and the apply starts OpenSM with the rendered " +
			"files and verifies that it routes. The texts themselves are the `files` of " +
			"`gpucluster_opensm_files` given the same inputs. Null when the fabric cannot be rendered and there is no " +
			"`subnet_manager` (a warning says why).",
		NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
			"sha256": schema.StringAttribute{Computed: true, MarkdownDescription: "SHA-256 of the file's bytes, lower-case hex (`sha256sum`)."},
			"bytes":  schema.Int64Attribute{Computed: true, MarkdownDescription: "Size in bytes."},
			"lines":  schema.Int64Attribute{Computed: true, MarkdownDescription: "Lines (`wc -l`, plus one for a last line without a newline)."},
		}},
	}
}

// openSMValue is the `opensm` map of a file set.
func openSMValue(files opensm.Files) types.Map {
	vals := make(map[string]attr.Value, len(files))
	for name, d := range opensm.Digests(files) {
		vals[name] = types.ObjectValueMust(digestAttrTypes, map[string]attr.Value{
			"sha256": types.StringValue(d.SHA256), "bytes": types.Int64Value(int64(d.Bytes)), "lines": types.Int64Value(int64(d.Lines)),
		})
	}
	return types.MapValueMust(digestType, vals)
}

// openSMDigests reads the `opensm` map back; entries that are not known objects are left out.
func openSMDigests(m types.Map) map[string]opensm.Digest {
	out := map[string]opensm.Digest{}
	for name, v := range m.Elements() {
		o, ok := v.(types.Object)
		if !ok || o.IsNull() || o.IsUnknown() {
			continue
		}
		a := o.Attributes()
		sha, _ := a["sha256"].(types.String)
		b, _ := a["bytes"].(types.Int64)
		l, _ := a["lines"].(types.Int64)
		out[name] = opensm.Digest{SHA256: sha.ValueString(), Bytes: int(b.ValueInt64()), Lines: int(l.ValueInt64())}
	}
	return out
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
	var known bool
	sm.render, known = m.settings()
	unknown := !known
	str := func(v types.String) string {
		if v.IsUnknown() {
			unknown = true
		}
		return v.ValueString()
	}
	var ok bool
	if sm.hosts, ok = listStrings(m.Hosts); !ok {
		unknown = true
	}
	sm.ssh = SSHDefaults{User: str(m.SSHUser), PrivateKey: str(m.SSHPrivateKey), KnownHostsFile: str(m.KnownHostsFile)}
	if m.Port.IsUnknown() {
		unknown = true
	}
	sm.port = int(m.Port.ValueInt64())
	sm.service = opensm.Service{
		Unit: str(m.Service), Start: str(m.StartCommand), Stop: str(m.StopCommand),
		Reload: str(m.ReloadCommand), Status: str(m.StatusCommand),
	}
	if v := str(m.VerifyTimeout); v != "" {
		sm.verifyTimeout, _ = time.ParseDuration(v)
	}
	return sm, !unknown
}

// listStrings reads a list of strings; ok is false when it or an element is unknown.
func listStrings(v attr.Value) ([]string, bool) {
	l, isList := v.(types.List)
	if !isList || l.IsNull() {
		return nil, true
	}
	if l.IsUnknown() {
		return nil, false
	}
	out := make([]string, 0, len(l.Elements()))
	ok := true
	for _, e := range l.Elements() {
		s, isStr := e.(types.String)
		if !isStr || s.IsUnknown() {
			ok = false
			continue
		}
		out = append(out, s.ValueString())
	}
	return out, ok
}

// settings reads the render settings (null ones are the defaults); known is false when a value
// is unknown.
func (m openSMRenderModel) settings() (plan.OpenSMSettings, bool) {
	known := true
	str := func(v types.String) string {
		if v.IsUnknown() {
			known = false
		}
		return v.ValueString()
	}
	if m.LMC.IsUnknown() || m.Options.IsUnknown() {
		known = false
	}
	roots, ok := listStrings(m.Roots)
	known = known && ok
	paths := opensm.Paths{ConfigDir: str(m.ConfigDir)}
	g := opensm.GraphOptions{
		RoutingEngine: str(m.RoutingEngine), LMC: int(m.LMC.ValueInt64()), Roots: roots,
		DefaultMembership: str(m.DefaultMembership), Paths: paths, Options: map[string]string{},
		Flavor: opensm.Flavor(str(m.Flavor)),
	}
	for k, v := range m.Options.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			known = false
			continue
		}
		g.Options[k] = s.ValueString()
	}
	return plan.OpenSMSettings{Graph: g, LogFile: str(m.LogFile)}, known
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

// target connects to one SM host and describes the push to it; closeFn ends the connection.
func (r *fabricResource) target(ctx context.Context, sm subnetManager, host string, files opensm.Files, expect opensm.Expect) (opensm.Target, func(), error) {
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
		Name: host, Host: c, Files: files, Paths: sm.render.Graph.Paths, Service: sm.service,
		LogFile: opensm.LogPath(sm.render.Graph.Options, sm.render.LogFile), Expect: expect, VerifyTimeout: sm.verifyTimeout,
		Progress: func(step string) { progress(ctx, "opensm %s: %s", host, step) },
	}, func() { _ = c.Close() }, nil
}

// reportHosts maps a PushAll or SweepAll to diagnostics: a warning for each host verified whose
// OpenSM logged errors, and an error on the host where the run stopped. It reports false on
// failure.
func reportHosts(op opensm.Op, results []opensm.Result, err error, diags *diag.Diagnostics) bool {
	var stopped *opensm.AllError
	if errors.As(err, &stopped) {
		results = results[:len(stopped.Done)]
	}
	var logged diag.Diagnostics
	for _, res := range results {
		if summary, detail, ok := op.LoggedErrors(res); ok {
			logged.AddWarning(summary, detail)
		}
	}
	// One per SM host, and the list of hosts has no bound: capped.
	diags.Append(capDiagnosticsBy(logged, func(diag.Diagnostic) string { return "OpenSM logged errors on these SM hosts" })...)
	switch {
	case stopped != nil:
		diags.AddAttributeError(path.Root("subnet_manager").AtName("hosts").AtListIndex(stopped.Index), stopped.Summary(),
			stopped.Err.Error()+stopped.Note())
		return false
	case err != nil:
		diags.AddAttributeError(path.Root("subnet_manager").AtName("hosts"), "OpenSM "+op.String()+" failed", err.Error())
		return false
	}
	return true
}

// refreshOpenSM replaces `opensm` with what the subnet managers run: the digests of the files on
// the first SM host, so that a hand edit there shows in the next plan as a change of that file's
// digest back to the rendered one (a file missing on the host is missing from the map), and
// nothing at all when OpenSM does not run or route as intended on some host (dead, or a master
// whose last routing run configured no tables: opensm.Health), or when the files on the first host
// were never activated (opensm.PendingMarker). In those cases what OpenSM runs is not the
// rendered set, so the plan shows every file as a change, with a warning that says why, and the
// apply's push starts or signals OpenSM and verifies it (it acts on a host whose files are in
// sync when the host needs it). An unreachable host leaves the state as it was, with a warning;
// a refused host key is an error.
func (r *fabricResource) refreshOpenSM(ctx context.Context, m *fabricModel, diags *diag.Diagnostics) {
	sm, ok := readSubnetManager(ctx, m.SubnetManager, diags)
	if !ok || len(sm.hosts) == 0 || m.OpenSM.IsNull() {
		return
	}
	st, err := opensm.ReadAll(ctx, sm.hosts, func(ctx context.Context, i int) (opensm.Target, func(), error) {
		return r.target(ctx, sm, sm.hosts[i], nil, opensm.Expect{})
	})
	var stopped *opensm.AllError
	if errors.As(err, &stopped) {
		addWarnings(diags, st.UnreadWarnings())
		var hk *remote.HostKeyError
		if errors.As(err, &hk) {
			diags.AddAttributeError(path.Root("subnet_manager").AtName("hosts").AtListIndex(stopped.Index), "Subnet manager host key refused", stopped.Err.Error())
		} else {
			diags.AddWarning("Cannot read the OpenSM files back from "+stopped.Host,
				stopped.Err.Error()+"\n\nThe plan compares with the files of the last apply; drift on the host is not seen.")
		}
		return
	}
	addWarnings(diags, st.Warnings(sm.hosts[0], sm.render.Graph.Paths.Dir()))
	m.OpenSM = openSMValue(st.Files)
}

// addWarnings adds what a refresh says of the SM hosts, one warning per host that could not be
// read capped as one cause (the list of hosts has no bound).
func addWarnings(diags *diag.Diagnostics, ws []opensm.Warning) {
	var d diag.Diagnostics
	for _, w := range ws {
		d.AddWarning(w.Summary, w.Detail)
	}
	diags.Append(capDiagnosticsBy(d, func(d diag.Diagnostic) string {
		if strings.HasPrefix(d.Summary(), opensm.UnreadSummary) {
			return opensm.UnreadSummary + "these SM hosts"
		}
		return ""
	})...)
}
