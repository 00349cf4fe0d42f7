package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/remote"
)

// The firmware side of gpucluster_hca: mlxconfig (or mstconfig) run over SSH on the HCA's node
// through internal/hca and internal/remote. An HCA without firmware_settings is an inventory
// record and none of this runs.

const (
	defaultHCACreateTimeout = 10 * time.Minute
	defaultHCAUpdateTimeout = 10 * time.Minute
	defaultHCAReadTimeout   = 5 * time.Minute
	// hcaSSHTimeout bounds connecting to a node (TCP and SSH handshake) within the operation's
	// own timeout.
	hcaSSHTimeout = 30 * time.Second
)

// nodeConnections holds the provider process's SSH connections to GPU nodes: every HCA read and
// apply of one node shares one connection (remote.Pool), so that a refresh of a fleet opens one
// connection per node, not one per HCA. CloseConnections ends them when the provider's server
// stops. Terraform does not visit the HCAs of a node together, so a connection must outlive the
// gaps between them for the refresh to open one per node: idle ones close after
// nodeIdleTimeout, the default read timeout of an HCA (an open connection costs a socket here
// and one sshd process on the node).
var nodeConnections = remote.NewPool(remote.PoolOptions{IdleTimeout: nodeIdleTimeout})

const nodeIdleTimeout = defaultHCAReadTimeout

// CloseConnections closes the provider's pooled SSH connections. main calls it once the plugin
// server has stopped (Terraform is done with the provider).
func CloseConnections() error { return nodeConnections.Close() }

type hcaSSHModel struct {
	User           types.String `tfsdk:"user"`
	PrivateKey     types.String `tfsdk:"private_key"`
	KnownHostsFile types.String `tfsdk:"known_hosts_file"`
}

var (
	hcaSSHAttrTypes      = map[string]attr.Type{"user": types.StringType, "private_key": types.StringType, "known_hosts_file": types.StringType}
	hcaTimeoutsAttrTypes = map[string]attr.Type{"create": types.StringType, "read": types.StringType, "update": types.StringType}
)

func hcaFirmwareAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"firmware_settings": schema.MapAttribute{
			ElementType: types.StringType,
			Optional:    true,
			MarkdownDescription: "NVConfig parameters of the adapter, as `mlxconfig -d DEV set NAME=value` takes them, e.g. " +
				"`{ LINK_TYPE_P1 = \"IB\", SRIOV_EN = \"True\", NUM_OF_VFS = \"16\" }`. Values compare by meaning (`IB`, `ib`, " +
				"`IB(1)` and `1` are one value of `LINK_TYPE_P1`), so the spelling is yours. Every name and value is checked " +
				"at plan against mstflint's parameter database: an unknown parameter (with a suggestion such as " +
				"`LINK_TYPE_P1` for `LINK_TYPE`) or a value the parameter does not take is an error, not a warning, because " +
				"a typo would otherwise reach the card or fail half-way through an apply; a parameter of newer firmware " +
				"that the database lacks goes in `unchecked_parameters`. Bounds that depend on the card (the largest " +
				"`NUM_OF_VFS`) are left to the card. Apply runs `query`, then one `set` with only the parameters whose " +
				"Next Boot value differs, and nothing when none does; every refresh queries them again, so a change made " +
				"on the node shows as drift. New values take effect at the next reboot or firmware reset (see `reset` and " +
				"`pending_reboot`). Removing a parameter from the map leaves its value on the card. Needs `ssh_host`.",
			Validators: []validator.Map{
				mapvalidator.SizeAtLeast(1),
				mapvalidator.KeysAre(stringvalidator.RegexMatches(hca.ParamNameRE, "must be an mlxconfig parameter name, e.g. \"LINK_TYPE_P1\"")),
				mlxconfigSettingsValidator{},
			},
		},
		"unchecked_parameters": schema.SetAttribute{
			ElementType: types.StringType,
			Optional:    true,
			MarkdownDescription: "Names in `firmware_settings` that the provider's parameter database (mstflint 4.21) does " +
				"not know but the card's newer firmware does. They skip the plan-time check, and the card judges them at " +
				"apply (mlxconfig's refusal is reported with the device and the parameter). Names the database knows are " +
				"checked whatever this says.",
		},
		"ssh_host": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "Where to run mlxconfig: the HCA's node as SSH reaches it, usually " +
				"`gpucluster_node.<node>.ssh_host`; `host`, `host:port` or `[ipv6]:port`. The user, key and known_hosts " +
				"file come from the provider's `ssh` block (or this HCA's `ssh`). Host keys are always checked. " +
				"Required with `firmware_settings` and `firmware`.",
			Validators: []validator.String{stringvalidator.RegexMatches(remote.HostPortRE,
				"must be a host name or address, optionally with :port, e.g. \"gpu001.mgmt.example\" or \"10.0.0.11:2222\""), sshPortValidator()},
		},
		"ssh": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "Overrides of the provider's `ssh` settings for this HCA's node; unset fields fall back to " +
				"the provider's. Every refresh needs them, so they are kept in the state: a `private_key` set here needs an " +
				"encrypted state backend. Prefer the provider's block.",
			Attributes: map[string]schema.Attribute{
				"user":        schema.StringAttribute{Optional: true, MarkdownDescription: "SSH user; it must be allowed to run the tool (usually root)."},
				"private_key": schema.StringAttribute{Optional: true, Sensitive: true, MarkdownDescription: "PEM private key. Sensitive: never logged, kept in the state."},
				"known_hosts_file": schema.StringAttribute{Optional: true, MarkdownDescription: "OpenSSH known_hosts file holding the node's host key; it must exist when Terraform plans.",
					Validators: []validator.String{knownHostsOverrideValidator()}},
			},
		},
		"tool": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: hcaToolDescription + " Unset, the first command the provider runs on the node finds which " +
				"one the node has (`command -v flint || command -v mstflint`, in the same SSH command as the query: MFT when " +
				"both are there) and records it here, so that the plan shows it and later reads and burns use the same one; " +
				"a node with neither is an error that says what to install. Null on an HCA without `firmware_settings` or " +
				"`firmware`.",
			Validators: []validator.String{stringvalidator.RegexMatches(hca.ToolRE,
				"must be \"mlxconfig\", \"mstconfig\" or an absolute path ending in /mlxconfig or /mstconfig")},
		},
		"reset": schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "What to do when parameters wait for a reboot: `none` (the default: `pending_reboot` tells), " +
				"or an `mlxfwreset` level that loads them at once: `0` (live patch), `3` (driver restart and PCI reset, " +
				"the usual one; it takes the HCA's links down for seconds), `4` (warm reboot of the node) or `5` (cold " +
				"reboot). Levels 4 and 5 reboot the node, dropping the SSH session.",
			Validators: []validator.String{stringvalidator.OneOf("none", "0", "3", "4", "5")},
		},
		"pending_reboot": schema.BoolAttribute{
			Computed: true,
			MarkdownDescription: "Whether some of `firmware_settings` wait for a reboot or firmware reset: their Next Boot " +
				"value is not yet the Current one. Null without `firmware_settings`.",
		},
		"firmware_version": schema.StringAttribute{
			Computed:            true,
			MarkdownDescription: "Firmware version that `flint -d DEV query` reports, e.g. `28.42.1000`. Null without `firmware_settings`.",
		},
	}
}

// hcaToolDescription is what tool takes, for the HCA and for the actions that reach an HCA.
const hcaToolDescription = "`mlxconfig` (NVIDIA MFT, with `flint` and `mlxfwreset`) or `mstconfig` (mstflint, with " +
	"`mstflint` and `mstfwreset`): same arguments, same output. An absolute path such as " +
	"`/opt/mellanox/mft/bin/mlxconfig` runs the tools from that directory, for installations outside the PATH of a " +
	"non-interactive SSH session."

// modifyToolPlan plans tool: the configured one; unset, the one recorded for the same card (the
// node was asked once, and later commands use what it said); else null for an HCA that runs
// nothing on its node, and unknown until the node is asked (at plan when the firmware image is
// read, else at apply).
func modifyToolPlan(ctx context.Context, state tfsdk.State, m, cfg *hcaModel, diags *diag.Diagnostics) {
	switch {
	case !cfg.Tool.IsNull():
		m.Tool = cfg.Tool
		return
	case cfg.FirmwareSettings.IsNull() && cfg.Firmware.IsNull():
		m.Tool = types.StringNull()
		return
	}
	m.Tool = types.StringUnknown()
	if state.Raw.IsNull() {
		return
	}
	var prior hcaModel
	diags.Append(state.Get(ctx, &prior)...)
	if !prior.Tool.IsNull() && prior.SSHHost.Equal(m.SSHHost) && prior.Device.Equal(m.Device) && prior.MSTDevice.Equal(m.MSTDevice) {
		m.Tool = prior.Tool
	}
}

func hcaTimeoutsBlock(ctx context.Context) schema.Block {
	return timeouts.Block(ctx, timeouts.Opts{
		Create: true, Read: true, Update: true,
		CreateDescription: "Bound on creating an HCA with `firmware_settings` (default 10m): SSH, mlxconfig, and a firmware reset if asked.",
		ReadDescription:   "Bound on querying the HCA at refresh (default 5m).",
		UpdateDescription: "Bound on changing the HCA's firmware settings (default 10m).",
	})
}

// nullHCAFirmwareFields gives the firmware attributes of a model built from scratch (import)
// typed nulls.
func nullHCAFirmwareFields(m *hcaModel) {
	m.FirmwareSettings = types.MapNull(types.StringType)
	m.UncheckedParameters = types.SetNull(types.StringType)
	m.SSHHost, m.Tool, m.Reset = types.StringNull(), types.StringNull(), types.StringNull()
	m.SSH = types.ObjectNull(hcaSSHAttrTypes)
	m.PendingReboot = types.BoolNull()
	m.FirmwareVersion = types.StringNull()
	m.Firmware = types.ObjectNull(hcaFirmwareAttrTypes)
	m.Timeouts = timeouts.Value{Object: types.ObjectNull(hcaTimeoutsAttrTypes)}
}

// modifyFirmwarePlan checks that firmware settings have a host to run on and fills the computed
// attributes: firmware_version keeps what the last refresh read, pending_reboot too unless the
// settings or the reset change; both are unknown when the HCA is reached anew.
func modifyFirmwarePlan(ctx context.Context, state tfsdk.State, m, cfg *hcaModel, diags *diag.Diagnostics) {
	if cfg.FirmwareSettings.IsNull() {
		m.PendingReboot = types.BoolNull()
		m.FirmwareVersion = types.StringNull()
		return
	}
	if cfg.SSHHost.IsNull() {
		node := "<node>"
		if !m.Node.IsUnknown() {
			node = m.Node.ValueString()
		}
		diags.AddAttributeError(path.Root("ssh_host"), "firmware_settings need ssh_host",
			fmt.Sprintf("firmware_settings are applied with mlxconfig over SSH on the HCA's node, so the HCA needs ssh_host, e.g. ssh_host = gpucluster_node.%s.ssh_host", node))
		return
	}
	m.PendingReboot, m.FirmwareVersion = types.BoolUnknown(), types.StringUnknown()
	if state.Raw.IsNull() {
		return
	}
	var prior hcaModel
	diags.Append(state.Get(ctx, &prior)...)
	if prior.FirmwareSettings.IsNull() || !sameFirmwareTarget(m, &prior) {
		return
	}
	m.FirmwareVersion = prior.FirmwareVersion
	if m.FirmwareSettings.Equal(prior.FirmwareSettings) && m.Reset.Equal(prior.Reset) {
		m.PendingReboot = prior.PendingReboot
	}
}

// sameFirmwareTarget reports whether two HCA models reach the same card with the same tool.
func sameFirmwareTarget(a, b *hcaModel) bool {
	return a.SSHHost.Equal(b.SSHHost) && a.Device.Equal(b.Device) && a.MSTDevice.Equal(b.MSTDevice) && a.Tool.Equal(b.Tool)
}

// hcaTarget is one HCA as mlxconfig reaches it, and how to talk about it in errors. tool is
// hca.ToolAuto ("") when the node is to say which tool it has.
type hcaTarget struct {
	name, node, host, tool, device string
	ssh                            remote.Config
}

func (r *hcaResource) firmwareTarget(ctx context.Context, m *hcaModel, opTimeout time.Duration) (*hcaTarget, diag.Diagnostics) {
	var diags diag.Diagnostics
	t := &hcaTarget{name: m.Name.ValueString(), node: m.Node.ValueString(), host: m.SSHHost.ValueString(), tool: m.Tool.ValueString(), device: m.Device.ValueString()}
	if !m.MSTDevice.IsNull() {
		t.device = m.MSTDevice.ValueString()
	}
	var override SSHDefaults
	if !m.SSH.IsNull() {
		var s hcaSSHModel
		diags.Append(m.SSH.As(ctx, &s, objectAsOptions)...)
		override = SSHDefaults{User: s.User.ValueString(), PrivateKey: s.PrivateKey.ValueString(), KnownHostsFile: s.KnownHostsFile.ValueString()}
	}
	cfg, err := sshConfig(r.data, t.host, override)
	if err != nil {
		diags.AddAttributeError(path.Root("ssh_host"), fmt.Sprintf("HCA %s: cannot reach its node", t.name),
			fmt.Sprintf("HCA %q: %s.", t.name, err))
		return nil, diags
	}
	cfg.Timeout = hcaSSHTimeout
	if opTimeout > 0 && opTimeout < cfg.Timeout {
		cfg.Timeout = opTimeout
	}
	t.ssh = cfg
	return t, diags
}

// connectLocked takes the node's host lock and the node's pooled connection: what every write to
// an HCA holds, so that two HCAs of one node are written one after the other. release is nil
// when either failed; the failure is in diags.
func (t *hcaTarget) connectLocked(ctx context.Context, diags *diag.Diagnostics) (context.Context, *remote.Client, func()) {
	ctx, release, err := remote.LockHost(ctx, t.ssh.Host, t.ssh.Port)
	if err != nil {
		t.fail(diags, "wait for its node", err, nil)
		return ctx, nil, nil
	}
	client, err := nodeConnections.Client(ctx, t.ssh)
	if err != nil {
		release()
		t.fail(diags, "connect to its node", err, nil)
		return ctx, nil, nil
	}
	return ctx, client, release
}

func (t *hcaTarget) fail(diags *diag.Diagnostics, what string, err error, commands []string) {
	var nt *hca.NoToolError
	if errors.As(err, &nt) {
		node := t.node
		if node == "" {
			node = t.host
		}
		diags.AddError(fmt.Sprintf("HCA %s: no flint or mstflint on node %s", t.name, node),
			fmt.Sprintf("HCA %q (device %s): node %s (%s): %s.", t.name, t.device, node, t.ssh.Addr(), nt))
		return
	}
	diags.AddError(fmt.Sprintf("HCA %s: cannot %s", t.name, what), hca.Failure(t.name, t.device, t.ssh.Addr(), t.toolText(), err, commands))
}

// toolText names the tool in errors.
func (t *hcaTarget) toolText() string {
	if t.tool == hca.ToolAuto {
		return "flint or mstflint, whichever the node has"
	}
	return t.tool
}

// recordTool keeps the tool a command ran with: unset, the one the node has.
func recordTool(m *hcaModel, tool string) {
	if tool != "" {
		m.Tool = types.StringValue(tool)
	}
}

func settingsOf(ctx context.Context, m types.Map, diags *diag.Diagnostics) map[string]string {
	out := map[string]string{}
	if !m.IsNull() && !m.IsUnknown() {
		diags.Append(m.ElementsAs(ctx, &out, false)...)
	}
	return out
}

// firmwareApply makes the card's Next Boot values match firmware_settings (hca.Apply: query,
// set only what differs, confirm), resets the firmware if asked, and fills the computed
// attributes the plan left unknown (the firmware version is read with the first query, in one
// command). The node's host lock is held throughout, so that two HCAs of one node are
// configured one after the other; reads do not take it. The node's connection is the pool's,
// shared with every other HCA of the node.
func (r *hcaResource) firmwareApply(ctx context.Context, plan *hcaModel, opTimeout time.Duration) diag.Diagnostics {
	t, diags := r.firmwareTarget(ctx, plan, opTimeout)
	if diags.HasError() {
		return diags
	}
	desired := settingsOf(ctx, plan.FirmwareSettings, &diags)
	if diags.HasError() {
		return diags
	}
	ctx, client, release := t.connectLocked(ctx, &diags)
	if release == nil {
		return diags
	}
	defer release()

	// The validator allows none, 0, 3, 4 and 5 only.
	opts := hca.ResetOptions(plan.Reset.ValueString())
	opts.Firmware = plan.FirmwareVersion.IsUnknown()
	res, err := hca.Apply(ctx, client, t.tool, t.device, desired, opts)
	if res != nil && res.Tool != "" {
		t.tool = res.Tool
	}
	if err != nil {
		var cmds []string
		if res != nil {
			cmds = res.Commands
		}
		t.fail(&diags, "apply firmware_settings", err, cmds)
		return diags
	}
	if len(res.Changes) == 0 {
		progress(ctx, "mlxconfig %s on %s: firmware_settings already in place", t.name, t.host)
	} else {
		progress(ctx, "mlxconfig %s on %s: set %s (pending reboot: %t, firmware reset: %t)", t.name, t.host, res.SetText(), res.PendingReboot, res.Reset)
	}
	recordTool(plan, res.Tool)
	if plan.PendingReboot.IsUnknown() {
		plan.PendingReboot = types.BoolValue(res.PendingReboot)
	}
	if plan.FirmwareVersion.IsUnknown() {
		fi, err := res.Firmware, res.FirmwareErr
		if fi == nil && err == nil { // nothing ran: no settings to query beside it
			fi, err = hca.QueryFirmware(ctx, client, t.tool, t.device)
		}
		if err != nil {
			t.fail(&diags, "read the firmware version", err, nil)
			return diags
		}
		plan.FirmwareVersion = types.StringValue(fi.FWVersion)
	}
	return diags
}

// firmwareRead queries the card's firmware_settings and version, in one command on the node
// (hca.Read), over the node's pooled connection. It does not wait for the node's host lock: a
// refresh only reads. A node that does not answer over SSH (or has no SSH settings any more)
// leaves the state as it is, with a warning, as a dead BMC does for a node; a refused host key,
// refused credentials or a tool failure are errors.
//
// It returns the card's flint query when it read one, for firmware's refresh.
func (r *hcaResource) firmwareRead(ctx context.Context, m *hcaModel, opTimeout time.Duration) (*hca.FirmwareInfo, diag.Diagnostics) {
	t, diags := r.firmwareTarget(ctx, m, opTimeout)
	if diags.HasError() {
		var w diag.Diagnostics
		for _, d := range diags {
			w.AddWarning(d.Summary()+"; firmware settings not refreshed", d.Detail()+" Until then the plan uses the last known firmware settings.")
		}
		return nil, w
	}
	have := settingsOf(ctx, m.FirmwareSettings, &diags)
	if diags.HasError() {
		return nil, diags
	}
	client, err := nodeConnections.Client(ctx, t.ssh)
	if err != nil {
		if remote.Unreachable(err) {
			diags.AddWarning(fmt.Sprintf("HCA %s: node not reachable, firmware settings not refreshed", t.name),
				fmt.Sprintf("HCA %q (device %s on %s): %s.\n\nThe plan uses the last known firmware settings; drift cannot be seen until the node answers.", t.name, t.device, t.ssh.Addr(), err))
			return nil, diags
		}
		t.fail(&diags, "connect to its node", err, nil)
		return nil, diags
	}

	rd, err := hca.Read(ctx, client, t.tool, t.device, have)
	if err == nil {
		err = rd.SettingsErr
	}
	if err != nil {
		t.fail(&diags, "query firmware_settings", err, nil)
		return nil, diags
	}
	recordTool(m, rd.Tool)
	v, d := types.MapValueFrom(ctx, types.StringType, rd.Settings)
	diags.Append(d...)
	m.FirmwareSettings = v
	if rd.PendingKnown {
		m.PendingReboot = types.BoolValue(rd.Pending)
	}
	if rd.FirmwareErr != nil {
		t.fail(&diags, "read the firmware version", rd.FirmwareErr, nil)
		return nil, diags
	}
	m.FirmwareVersion = types.StringValue(rd.Firmware.FWVersion)
	return rd.Firmware, diags
}
