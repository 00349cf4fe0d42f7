package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bmc"
)

// The BMC side of gpucluster_node: schema, models and the calls into internal/bmc. A node without
// `bmc` is an inventory record and none of this runs.

// Default timeouts of a node's BMC work. Create and update may power a host on and wait for the
// BMC to report it; reads are a handful of requests, but may wait for the BMC's lock or one of
// the process's BMC session slots (internal/bmc bounds both).
const (
	defaultNodeCreateTimeout = 20 * time.Minute
	defaultNodeUpdateTimeout = 20 * time.Minute
	defaultNodeReadTimeout   = 5 * time.Minute
)

// resetNone is reset_after_bios's default: pending BIOS settings wait for a reset nobody forces.
const resetNone = bmc.ResetNone

// Boot devices a node's boot_device may name: bmclib's names that Redfish and IPMI BMCs share.
var nodeBootDevices = []string{"pxe", "disk", "cdrom", "bios", "none"}

type nodeBMCModel struct {
	Endpoint    types.String `tfsdk:"endpoint"`
	Port        types.Int64  `tfsdk:"port"`
	IPMIPort    types.Int64  `tfsdk:"ipmi_port"`
	Username    types.String `tfsdk:"username"`
	Password    types.String `tfsdk:"password"`
	Protocols   types.List   `tfsdk:"protocols"`
	TLSCAPEM    types.String `tfsdk:"tls_ca_pem"`
	InsecureTLS types.Bool   `tfsdk:"insecure_tls"`
}

var nodeBMCAttrTypes = map[string]attr.Type{
	"endpoint": types.StringType, "port": types.Int64Type, "ipmi_port": types.Int64Type,
	"username": types.StringType, "password": types.StringType, "protocols": types.ListType{ElemType: types.StringType},
	"tls_ca_pem": types.StringType, "insecure_tls": types.BoolType,
}

type bootDeviceModel struct {
	Device     types.String `tfsdk:"device"`
	Persistent types.Bool   `tfsdk:"persistent"`
	EFI        types.Bool   `tfsdk:"efi"`
}

var bootDeviceAttrTypes = map[string]attr.Type{"device": types.StringType, "persistent": types.BoolType, "efi": types.BoolType}

type bmcUserModel struct {
	Name            types.String `tfsdk:"name"`
	Role            types.String `tfsdk:"role"`
	Password        types.String `tfsdk:"password"`
	PasswordVersion types.String `tfsdk:"password_version"`
}

var bmcUserAttrTypes = map[string]attr.Type{
	"name": types.StringType, "role": types.StringType, "password": types.StringType, "password_version": types.StringType,
}

var inventoryAttrTypes = map[string]attr.Type{
	"protocol": types.StringType, "vendor": types.StringType, "model": types.StringType, "serial": types.StringType,
	"bmc_firmware": types.StringType, "bios_firmware": types.StringType,
}

var nodeTimeoutsAttrTypes = map[string]attr.Type{"create": types.StringType, "read": types.StringType, "update": types.StringType}

// bmcEndpointRE accepts a host name, an IPv4 address, a bracketed or bare IPv6 address, with an
// optional https:// and :port; nothing that could carry a path, credentials or a second word.
var bmcEndpointRE = regexp.MustCompile(`^(https://)?[A-Za-z0-9._:\[\]-]{1,253}/?$`)

// bmcUserRE: BMC account names hold no blanks, quotes or colons (Redfish and ipmitool alike).
var bmcUserRE = regexp.MustCompile(`^[A-Za-z0-9._@-]{1,32}$`)

func nodeBMCAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"bmc": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "The node's baseboard management controller. Without it the node is an inventory record " +
				"and the provider never contacts it. With it, apply sets `power_state`, `boot_device`, `bmc_users`, " +
				"`bios_settings` and `firmware` through the BMC (Redfish, or IPMI as the fallback, through bmclib), and every refresh " +
				"reads them back, so that a change made at the console shows as drift in the next plan. One session per " +
				"BMC at a time and a bounded number of BMC sessions per Terraform run; every BMC call is bounded by " +
				"`timeouts` (and by 30 s per call).",
			Attributes: map[string]schema.Attribute{
				"endpoint": schema.StringAttribute{
					Required: true,
					MarkdownDescription: "Host name or address of the BMC, e.g. `10.0.0.5` or `gpu001-bmc.mgmt.example` " +
						"(`https://host` and `host:port` are accepted too). Plain HTTP is refused: credentials only travel " +
						"over HTTPS (or IPMI's RMCP+).",
					Validators: []validator.String{stringvalidator.RegexMatches(bmcEndpointRE,
						"must be a BMC host name or address, optionally with https:// and :port, e.g. \"10.0.0.5\" or \"gpu001-bmc.mgmt.example\"")},
				},
				"port": schema.Int64Attribute{
					Optional: true,
					MarkdownDescription: "Redfish HTTPS port (default 443). When `protocols` is `[\"ipmi\"]` only, the IPMI " +
						"UDP port instead (default 623).",
					Validators: []validator.Int64{int64validator.Between(1, 65535)},
				},
				"ipmi_port": schema.Int64Attribute{
					Optional:            true,
					MarkdownDescription: "IPMI UDP port when Redfish is tried first (default 623).",
					Validators:          []validator.Int64{int64validator.Between(1, 65535)},
				},
				"username": schema.StringAttribute{
					Optional:            true,
					MarkdownDescription: "BMC account to log in with. Defaults to the provider's `bmc.username`.",
				},
				"password": schema.StringAttribute{
					Optional:  true,
					Sensitive: true,
					MarkdownDescription: "Password of `username`. Defaults to the provider's `bmc.password`, which is the " +
						"better place for it. Every refresh needs it to read the BMC, so when set here it is kept in the state " +
						"(marked sensitive, never logged nor shown in errors): keep such state in an encrypted backend.",
				},
				"protocols": schema.ListAttribute{
					ElementType: types.StringType,
					Optional:    true,
					MarkdownDescription: "Protocols to try, in order of preference: `redfish`, `ipmi`. Default " +
						"`[\"redfish\", \"ipmi\"]`: IPMI is tried only when Redfish does not answer, never after Redfish refused " +
						"the credentials or the certificate (that would be a downgrade). BIOS settings need Redfish.",
					Validators: []validator.List{
						listvalidator.SizeAtLeast(1),
						listvalidator.UniqueValues(),
						listvalidator.ValueStringsAre(stringvalidator.OneOf(bmc.ProtocolRedfish, bmc.ProtocolIPMI)),
					},
				},
				"tls_ca_pem": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "PEM certificates of the CAs that sign the BMC's HTTPS certificate. Unset: the " +
						"system's CAs. BMC certificates are always verified unless `insecure_tls` is set.",
				},
				"insecure_tls": schema.BoolAttribute{
					Optional: true,
					MarkdownDescription: "Skip verification of the BMC's HTTPS certificate. Off unless set: an explicit opt-in " +
						"for BMCs that still carry their factory self-signed certificate; prefer `tls_ca_pem`.",
				},
			},
		},
		"power_state": schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "`on` or `off`: the host's power as the provider keeps it (a hard power-off: apply must " +
				"converge). Unset: the provider does not change the power and reports what the BMC says. Needs `bmc`.",
			Validators: []validator.String{stringvalidator.OneOf("on", "off")},
		},
		"boot_device": schema.SingleNestedAttribute{
			Optional: true,
			MarkdownDescription: "The BMC's boot override. It takes effect at the next boot: the provider does not reboot " +
				"a running host for it. A one-time override (`persistent = false`) that the host has used up reads back " +
				"as no override and is not drift; another device set at the console is. Over IPMI only the device is " +
				"compared, because BMCs differ in keeping IPMI's persistent and EFI flags. Removing `boot_device` leaves the " +
				"BMC's override as it is. Needs `bmc`.",
			Attributes: map[string]schema.Attribute{
				"device": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "`pxe`, `disk`, `cdrom`, `bios` (setup) or `none` (clear the override).",
					Validators:          []validator.String{stringvalidator.OneOf(nodeBootDevices...)},
				},
				"persistent": schema.BoolAttribute{
					Optional:            true,
					Computed:            true,
					Default:             booldefault.StaticBool(false),
					MarkdownDescription: "Every boot (`true`) or only the next one (`false`, the default).",
				},
				"efi": schema.BoolAttribute{
					Optional: true,
					Computed: true,
					Default:  booldefault.StaticBool(true),
					MarkdownDescription: "Boot in UEFI mode (`true`, the default: GPU servers boot UEFI) or Legacy BIOS " +
						"mode (`false`).",
				},
			},
		},
		"bmc_users": schema.ListNestedAttribute{
			Optional: true,
			MarkdownDescription: "BMC accounts to create or update (enabled, with the role and password). Refresh reads " +
				"the accounts back: an account that was deleted, disabled or given another role shows as drift. The " +
				"passwords are write-only: never stored nor read back, so change `password_version` to set a new " +
				"one. Removing an account from the list removes it from the BMC: over Redfish it is deleted (DELETE; on " +
				"BMCs with fixed account slots, such as iDRAC and Supermicro, its slot is cleared: no name, no password, " +
				"disabled); IPMI cannot delete, so the slot is disabled, set to NO ACCESS, given a random password and its " +
				"name cleared (a BMC that refuses an empty name keeps it disabled under its name, with a warning). The " +
				"account the provider logs in with is never removed. Needs `bmc`.",
			NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
				"name": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "Account name (IPMI allows at most 16 bytes).",
					Validators: []validator.String{stringvalidator.RegexMatches(bmcUserRE,
						"must be 1-32 letters, digits, '.', '_', '@' or '-'")},
				},
				"role": schema.StringAttribute{
					Required:            true,
					MarkdownDescription: "Redfish role: `Administrator`, `Operator`, `ReadOnly` or `None` (IPMI: ADMINISTRATOR, OPERATOR, USER, NO ACCESS).",
					Validators:          []validator.String{stringvalidator.OneOf(bmc.Roles...)},
				},
				"password": schema.StringAttribute{
					Required:  true,
					Sensitive: true,
					WriteOnly: true,
					MarkdownDescription: "The account's password. Write-only (Terraform 1.11 or later): sent to the BMC when " +
						"the account is created, its role changes or `password_version` changes, never stored in the state. " +
						"An ephemeral value (from a secrets manager) fits here.",
					Validators: []validator.String{stringvalidator.LengthAtLeast(1)},
				},
				"password_version": schema.StringAttribute{
					Optional: true,
					MarkdownDescription: "Any value; changing it sets the password again (the password itself is " +
						"write-only, so Terraform cannot see it change).",
				},
			}},
		},
		"bios_settings": schema.MapAttribute{
			ElementType: types.StringType,
			Optional:    true,
			MarkdownDescription: "BIOS attributes by their Redfish names, e.g. `{ ProcHyperthreading = \"Disabled\", " +
				"NumaNodesPerSocket = \"4\" }`. Values are text; the provider sends each with the type the BMC uses. They " +
				"apply at the next host reset, which `reset_after_bios` can make the provider trigger; until then refresh " +
				"compares the pending values. An attribute the BMC does not have is refused before any change. Removing a setting leaves " +
				"its value in the BIOS. Needs Redfish.",
			Validators: []validator.Map{mapvalidator.SizeAtLeast(1)},
		},
		"reset_after_bios": schema.StringAttribute{
			Optional: true,
			Computed: true,
			Default:  stringdefault.StaticString(resetNone),
			MarkdownDescription: "Whether apply restarts a powered-on host whose `bios_settings` wait for a reset, so that " +
				"they take effect now: `none` (the default: they apply at the next reset, whoever makes it), `graceful` " +
				"(Redfish GracefulRestart: the OS shuts down first), `force` (ForceRestart) or `power_cycle` (PowerCycle). " +
				"The provider waits until the BMC reports the host on and the settings in effect (up to 10 minutes, within " +
				"`timeouts`; a warning if they stay pending). A host " +
				"that is off is not started for it: the settings apply when it boots.",
			Validators: []validator.String{stringvalidator.OneOf(append([]string{resetNone}, bmc.ResetKinds...)...)},
		},
		"firmware": nodeFirmwareAttribute(),
		"inventory": schema.SingleNestedAttribute{
			Computed: true,
			MarkdownDescription: "What the BMC reports, read at every refresh (null without `bmc`): the `protocol` it " +
				"answered with, `vendor`, `model`, `serial`, `bmc_firmware` and `bios_firmware` versions. A firmware " +
				"update made outside Terraform shows here in the next plan.",
			Attributes: map[string]schema.Attribute{
				"protocol":      schema.StringAttribute{Computed: true, MarkdownDescription: "`redfish` or `ipmi`."},
				"vendor":        schema.StringAttribute{Computed: true, MarkdownDescription: "System manufacturer."},
				"model":         schema.StringAttribute{Computed: true, MarkdownDescription: "System model as the BMC names it."},
				"serial":        schema.StringAttribute{Computed: true, MarkdownDescription: "System serial number."},
				"bmc_firmware":  schema.StringAttribute{Computed: true, MarkdownDescription: "BMC firmware version."},
				"bios_firmware": schema.StringAttribute{Computed: true, MarkdownDescription: "BIOS (system firmware) version."},
			},
		},
	}
}

func nodeTimeoutsBlock(ctx context.Context) schema.Block {
	return timeouts.Block(ctx, timeouts.Opts{
		Create: true, Read: true, Update: true,
		CreateDescription: "Bound on creating a node with `bmc` (default 20m): every BMC call, and waiting for the BMC's lock or a session slot.",
		ReadDescription:   "Bound on reading a node's BMC at refresh (default 5m).",
		UpdateDescription: "Bound on changing a node through its BMC (default 20m).",
	})
}

// nullNodeBMCFields gives the BMC attributes of a model built from scratch (import) typed nulls.
func nullNodeBMCFields(m *nodeModel) {
	m.BMC = types.ObjectNull(nodeBMCAttrTypes)
	m.PowerState = types.StringNull()
	m.BootDevice = types.ObjectNull(bootDeviceAttrTypes)
	m.BMCUsers = types.ListNull(types.ObjectType{AttrTypes: bmcUserAttrTypes})
	m.BIOSSettings = types.MapNull(types.StringType)
	m.ResetBIOS = types.StringValue(resetNone)
	m.Inventory = types.ObjectNull(inventoryAttrTypes)
	m.Firmware = types.ObjectNull(nodeFirmwareAttrTypes)
	m.Timeouts = timeouts.Value{Object: types.ObjectNull(nodeTimeoutsAttrTypes)}
}

// modifyBMCPlan checks that the BMC attributes have a BMC to act on and fills the computed ones:
// power_state (when not set) and inventory keep what the last refresh read, unless the node now
// points at another BMC.
func (r *nodeResource) modifyBMCPlan(ctx context.Context, state tfsdk.State, m, cfg *nodeModel, diags *diag.Diagnostics) {
	if cfg.BMC.IsNull() {
		for _, a := range []struct {
			name string
			set  bool
		}{
			{"power_state", !cfg.PowerState.IsNull()},
			{"boot_device", !cfg.BootDevice.IsNull()},
			{"bmc_users", !cfg.BMCUsers.IsNull()},
			{"bios_settings", !cfg.BIOSSettings.IsNull()},
			{"firmware", !cfg.Firmware.IsNull()},
		} {
			if a.set {
				diags.AddAttributeError(path.Root(a.name), "BMC attribute without bmc", bmc.CheckWithoutBMC(a.name))
			}
		}
		m.PowerState = types.StringNull()
		m.Inventory = types.ObjectNull(inventoryAttrTypes)
		m.Firmware = types.ObjectNull(nodeFirmwareAttrTypes)
		return
	}

	if !cfg.ResetBIOS.IsUnknown() {
		if msg := bmc.CheckResetAfterBIOS(cfg.ResetBIOS.ValueString(), !cfg.BIOSSettings.IsNull()); msg != "" {
			diags.AddAttributeError(path.Root("reset_after_bios"), "reset_after_bios without bios_settings", msg)
		}
	}
	if !cfg.BIOSSettings.IsNull() && !m.BMC.IsUnknown() {
		var b nodeBMCModel
		diags.Append(m.BMC.As(ctx, &b, objectAsOptions)...)
		var protos []string
		if !b.Protocols.IsNull() && !b.Protocols.IsUnknown() {
			diags.Append(b.Protocols.ElementsAs(ctx, &protos, false)...)
		}
		if msg := bmc.CheckBIOSProtocols(protos); msg != "" {
			diags.AddAttributeError(path.Root("bios_settings"), "BIOS settings need Redfish", msg)
		}
	}
	if !m.BMCUsers.IsNull() && !m.BMCUsers.IsUnknown() {
		var users []bmcUserModel
		diags.Append(m.BMCUsers.ElementsAs(ctx, &users, false)...)
		login, loginKnown := r.loginName(ctx, m)
		names := make([]string, len(users))
		known := make([]bool, len(users))
		for i, u := range users {
			names[i], known[i] = u.Name.ValueString(), !u.Name.IsUnknown()
		}
		dups := bmc.DuplicateUsers(names, known)
		var ud diag.Diagnostics // one per user, and the list has no bound: capped
		for i, u := range users {
			if u.Name.IsUnknown() {
				continue
			}
			if msg, ok := dups[i]; ok {
				ud.AddAttributeError(path.Root("bmc_users").AtListIndex(i).AtName("name"), "Duplicate BMC user", msg)
			}
			if loginKnown && !u.Role.IsUnknown() {
				if msg := bmc.CheckLoginAccount(login, u.Name.ValueString(), u.Role.ValueString()); msg != "" {
					addRuleError(&ud, path.Root("bmc_users").AtListIndex(i).AtName("role"), "BMC user would lock the provider out", msg)
				}
			}
		}
		diags.Append(capDiagnostics(ud)...)
	}

	var prior nodeModel
	samePrior := false
	if !state.Raw.IsNull() {
		diags.Append(state.Get(ctx, &prior)...)
		samePrior = !prior.BMC.IsNull() && sameBMCTarget(ctx, m.BMC, prior.BMC)
	}
	if cfg.PowerState.IsNull() {
		m.PowerState = types.StringUnknown()
		if samePrior && !prior.PowerState.IsNull() {
			m.PowerState = prior.PowerState
		}
	}
	m.Inventory = types.ObjectUnknown(inventoryAttrTypes)
	if samePrior && !prior.Inventory.IsNull() {
		m.Inventory = prior.Inventory
	}
	var protos []string
	if !m.BMC.IsUnknown() {
		var b nodeBMCModel
		diags.Append(m.BMC.As(ctx, &b, objectAsOptions)...)
		if !b.Protocols.IsNull() && !b.Protocols.IsUnknown() {
			diags.Append(b.Protocols.ElementsAs(ctx, &protos, false)...)
		}
	}
	var was *nodeModel
	if samePrior {
		was = &prior
	}
	nodeModifyFirmwarePlan(ctx, m, cfg, was, protos, diags)
}

// loginName is the account the provider logs in to the node's BMC with: bmc.username, else the
// provider's bmc = { username }. known is false while it is unknown.
func (r *nodeResource) loginName(ctx context.Context, m *nodeModel) (login string, known bool) {
	if m.BMC.IsNull() || m.BMC.IsUnknown() {
		return "", false
	}
	var b nodeBMCModel
	if m.BMC.As(ctx, &b, objectAsOptions).HasError() || b.Username.IsUnknown() {
		return "", false
	}
	if login = b.Username.ValueString(); login == "" && r.data != nil {
		login = r.data.BMC.Username
	}
	return login, true
}

// sameBMCTarget reports whether two bmc objects reach the same BMC (credentials and protocol
// preferences aside).
func sameBMCTarget(ctx context.Context, a, b types.Object) bool {
	if a.IsNull() || a.IsUnknown() || b.IsNull() || b.IsUnknown() {
		return false
	}
	var x, y nodeBMCModel
	if a.As(ctx, &x, objectAsOptions).HasError() || b.As(ctx, &y, objectAsOptions).HasError() {
		return false
	}
	return x.Endpoint.Equal(y.Endpoint) && x.Port.Equal(y.Port) && x.IPMIPort.Equal(y.IPMIPort)
}

// bmcTarget is one node's BMC as the provider reaches it, and how to talk about it in errors.
type bmcTarget struct {
	node string
	cfg  bmc.Config
}

// bmcConfig builds the bmc.Config of a node from its bmc attribute and the provider's defaults.
// opTimeout is the node's timeout for the whole operation: each BMC call gets at most that
// (and at most bmc.DefaultTimeout), so that a dead BMC fails within the configured timeout.
func (r *nodeResource) bmcConfig(ctx context.Context, m *nodeModel, opTimeout time.Duration) (*bmcTarget, diag.Diagnostics) {
	tgt, diags := bmcTargetFor(ctx, r.data, m.Name.ValueString(), m.BMC, opTimeout)
	if r.data != nil && r.data.bmcOwners != nil && !diags.HasError() {
		r.data.bmcOwners.Claim(tgt.cfg, tgt.node)
	}
	return tgt, diags
}

// bmcTargetFor builds the bmc.Config of node name from a `bmc` object of the node's shape (the
// node's, or a power action's) and the provider's defaults.
func bmcTargetFor(ctx context.Context, data *Data, name string, obj types.Object, opTimeout time.Duration) (*bmcTarget, diag.Diagnostics) {
	var diags diag.Diagnostics
	var b nodeBMCModel
	diags.Append(obj.As(ctx, &b, objectAsOptions)...)
	if diags.HasError() {
		return nil, diags
	}
	var defaults BMCDefaults
	if data != nil {
		defaults = data.BMC
	}
	cfg := bmc.Config{
		Endpoint:    b.Endpoint.ValueString(),
		Port:        int(b.Port.ValueInt64()),
		IPMIPort:    int(b.IPMIPort.ValueInt64()),
		Username:    b.Username.ValueString(),
		Password:    b.Password.ValueString(),
		TLSCAPEM:    b.TLSCAPEM.ValueString(),
		InsecureTLS: b.InsecureTLS.ValueBool(),
	}.WithDefaults(defaults.Username, defaults.Password, opTimeout)
	if !b.Protocols.IsNull() {
		diags.Append(b.Protocols.ElementsAs(ctx, &cfg.Protocols, false)...)
	}
	if field, summary, detail := cfg.MissingLogin(name); field != "" {
		diags.AddAttributeError(path.Root("bmc").AtName(field), summary, detail)
	}
	return &bmcTarget{node: name, cfg: cfg}, diags
}

// bmcLogger sends internal/bmc's logs (bmclib's included, already stripped of passwords there)
// to Terraform's debug log.
func bmcLogger(ctx context.Context) logr.Logger {
	return funcr.New(func(prefix, args string) {
		tflog.Debug(ctx, strings.TrimSpace(prefix+" "+args))
	}, funcr.Options{Verbosity: 1})
}

// maskSecrets makes Terraform's log mask the secrets, should one ever reach it (internal/bmc
// already redacts them). Empty strings are skipped: masking "" would mangle every line.
func maskSecrets(ctx context.Context, secrets ...string) context.Context {
	for _, s := range secrets {
		if s != "" {
			ctx = tflog.MaskMessageStrings(ctx, s)
			ctx = tflog.MaskAllFieldValuesStrings(ctx, s)
		}
	}
	return ctx
}

// fail adds an error naming the node, the BMC and what failed, with what to do about it
// (failLogin, for a failure that says nothing of whether the login had worked).
func (t *bmcTarget) fail(diags *diag.Diagnostics, what string, err error) {
	t.failLogin(diags, what, err, false, false)
}

// failLogin adds an error naming the node, the BMC and what failed, with what to do about it
// (bmc.Failure: opened and workedBefore tell a lockout of the provider's own login).
func (t *bmcTarget) failLogin(diags *diag.Diagnostics, what string, err error, opened, workedBefore bool) {
	diags.AddError(bmc.Failure(t.node, what, err, t.cfg, opened, workedBefore))
}

// bmcApply makes the BMC match plan (bmc.Session.Apply holds the order and the diff), then fills
// the computed attributes the plan left unknown from what the BMC reads back. prior is the state
// to compare with: nil on create or when the node now points at another BMC, when everything is
// set. cfgUsers holds the accounts from the configuration, whose passwords are write-only and
// found nowhere else.
func (r *nodeResource) bmcApply(ctx context.Context, plan, prior *nodeModel, cfgUsers map[string]bmcUserModel, opTimeout time.Duration) diag.Diagnostics {
	tgt, diags := r.bmcConfig(ctx, plan, opTimeout)
	if diags.HasError() {
		return diags
	}
	ctx = maskSecrets(ctx, tgt.cfg.Password)
	for _, u := range cfgUsers {
		ctx = maskSecrets(ctx, u.Password.ValueString())
	}
	tgt.cfg.Logger = bmcLogger(ctx)
	sess, err := bmc.Open(ctx, tgt.cfg)
	if err != nil {
		tgt.failLogin(&diags, "open a session", err, false, prior != nil && !prior.Inventory.IsNull())
		return diags
	}
	defer sess.Close()
	progress(ctx, "bmc %s: session open at %s", tgt.node, tgt.cfg.Endpoint)
	if fb := sess.Fallback(); fb != "" {
		progress(ctx, "bmc %s: %s", tgt.node, fb)
	}

	want := desiredBMC(ctx, plan, cfgUsers, &diags)
	var was *bmc.Desired
	if prior != nil {
		p := desiredBMC(ctx, prior, nil, &diags)
		was = &p
	}
	if diags.HasError() {
		return diags
	}
	res, err := sess.Apply(ctx, want, was, bmc.ApplyOptions{Progress: func(format string, args ...any) {
		progress(ctx, "bmc %s: "+format, append([]any{tgt.node}, args...)...)
	}})
	for _, name := range res.Disabled {
		diags.AddAttributeWarning(path.Root("bmc_users"), "BMC account disabled, not deleted",
			fmt.Sprintf("Node %q: the BMC refused to clear the IPMI slot of %q, so the account is kept under its name, disabled, with NO ACCESS and a random password.", tgt.node, name))
	}
	var noPW *bmc.NoPasswordError
	var step *bmc.StepError
	switch {
	case errors.As(err, &noPW):
		diags.AddAttributeError(path.Root("bmc_users"), "No password for BMC user",
			fmt.Sprintf("Node %q: the BMC account %q needs its password in the configuration (it is write-only, so it is never kept in the state).", tgt.node, noPW.User))
		return diags
	case errors.As(err, &step):
		tgt.failLogin(&diags, step.Step, step.Err, true, true)
		return diags
	case err != nil:
		tgt.failLogin(&diags, "apply the configuration", err, true, true)
		return diags
	}
	if res.BIOSStillPending {
		diags.AddAttributeWarning(path.Root("bios_settings"), "BIOS settings still pending after the restart",
			fmt.Sprintf("Node %q: the host was restarted (%s) but the BMC still shows BIOS settings pending; they may apply at a later boot. The next refresh compares them again.", tgt.node, want.ResetAfterBIOS))
	}
	st := res.State
	if !plan.Firmware.IsNull() {
		changed := nodeApplyFirmware(ctx, tgt, sess, plan, &diags)
		if diags.HasError() {
			return diags
		}
		if changed {
			// A BMC that installed firmware may have restarted and forgotten this session:
			// read it back through a new one.
			sess.Close()
			if sess, err = bmc.Open(ctx, tgt.cfg); err != nil {
				tgt.failLogin(&diags, "open a session to read the new firmware back", err, false, true)
				return diags
			}
			defer sess.Close()
			if st, err = sess.Read(ctx); err != nil {
				tgt.failLogin(&diags, "read its state after the firmware update", err, true, true)
				return diags
			}
		}
		fw, err := sess.Firmware(ctx)
		if err != nil {
			tgt.failLogin(&diags, "read its firmware versions", err, true, true)
			return diags
		}
		nodeCheckFirmwareRead(ctx, tgt, plan, fw, &diags)
		nodeReadFirmware(ctx, plan, fw, &diags)
	}
	if plan.PowerState.IsUnknown() {
		plan.PowerState = types.StringValue(st.PowerState)
	}
	if plan.Inventory.IsUnknown() {
		plan.Inventory = inventoryValue(st)
	}
	return diags
}

// desiredBMC maps a node's BMC attributes to what bmc.Session.Apply takes: from a plan, with the
// passwords of cfgUsers; from a prior state (cfgUsers nil), as the last apply left them.
func desiredBMC(ctx context.Context, m *nodeModel, cfgUsers map[string]bmcUserModel, diags *diag.Diagnostics) bmc.Desired {
	d := bmc.Desired{ResetAfterBIOS: m.ResetBIOS.ValueString()}
	if !m.BMCUsers.IsNull() {
		var users []bmcUserModel
		diags.Append(m.BMCUsers.ElementsAs(ctx, &users, false)...)
		for _, u := range users {
			d.Users = append(d.Users, bmcUserOf(u, cfgUsers[u.Name.ValueString()].Password.ValueString()))
		}
	}
	if !m.BIOSSettings.IsNull() {
		d.BIOS = map[string]string{}
		diags.Append(m.BIOSSettings.ElementsAs(ctx, &d.BIOS, false)...)
	}
	if !m.BootDevice.IsNull() {
		var bd bootDeviceModel
		diags.Append(m.BootDevice.As(ctx, &bd, objectAsOptions)...)
		d.Boot = &bmc.BootOverride{Device: bd.Device.ValueString(), Persistent: bd.Persistent.ValueBool(), EFI: bd.EFI.ValueBool()}
	}
	if !m.PowerState.IsUnknown() && !m.PowerState.IsNull() {
		d.Power = m.PowerState.ValueString()
	}
	return d
}

func bmcUserOf(u bmcUserModel, password string) bmc.User {
	out := bmc.User{Name: u.Name.ValueString(), Role: u.Role.ValueString(), Password: password}
	if !u.PasswordVersion.IsNull() && !u.PasswordVersion.IsUnknown() {
		v := u.PasswordVersion.ValueString()
		out.PasswordVersion = &v
	}
	return out
}

// inventoryValue turns what the BMC reported into the inventory attribute. A field the BMC does
// not report (IPMI's FRU and system firmware version are optional) is null, "unknown", rather
// than an empty string or the BMC's refusal text.
func inventoryValue(st bmc.State) types.Object {
	str := func(s string) types.String {
		if strings.TrimSpace(s) == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	v, _ := types.ObjectValue(inventoryAttrTypes, map[string]attr.Value{
		"protocol": str(st.Protocol), "vendor": str(st.Vendor),
		"model": str(st.Model), "serial": str(st.Serial),
		"bmc_firmware": str(st.BMCFirmware), "bios_firmware": str(st.BIOSFirmware),
	})
	return v
}

// bmcRead refreshes m from the BMC: power, the boot override, BIOS settings and accounts that
// the configuration manages, and the inventory. A BMC that does not answer leaves the state as
// it is, with a warning: one node's BMC being down must not stop the plan of a whole cluster,
// and the next apply that needs that BMC fails with the error. Any other failure (credentials,
// certificate) is an error.
func (r *nodeResource) bmcRead(ctx context.Context, m *nodeModel, opTimeout time.Duration) diag.Diagnostics {
	tgt, diags := r.bmcConfig(ctx, m, opTimeout)
	if diags.HasError() {
		// No credentials (the provider's bmc block was removed, say together with this node's
		// bmc): nothing can be read, and failing would block the very change that removes it.
		var w diag.Diagnostics
		for _, d := range diags {
			w.AddWarning(fmt.Sprintf("Node %s: BMC state not refreshed: %s", m.Name.ValueString(), d.Summary()),
				d.Detail()+" Until then the plan uses the node's last known BMC state.")
		}
		return w
	}
	ctx = maskSecrets(ctx, tgt.cfg.Password)
	tgt.cfg.Logger = bmcLogger(ctx)
	sess, err := bmc.Open(ctx, tgt.cfg)
	opened := err == nil
	var st bmc.State
	var fw bmc.Firmware
	if err == nil {
		st, err = sess.Read(ctx)
		if err == nil && !m.Firmware.IsNull() {
			var ferr error
			if fw, ferr = sess.Firmware(ctx); ferr != nil && errors.Is(ferr, bmc.ErrNotSupported) {
				// Redfish did not answer and the session fell back to IPMI, which has no
				// firmware inventory: the rest of the refresh stands, the versions keep their
				// last known value.
				diags.AddAttributeWarning(path.Root("firmware"), fmt.Sprintf("Node %s: firmware versions not refreshed", m.Name.ValueString()),
					fmt.Sprintf("Node %q: %s. The plan uses the last known versions.", m.Name.ValueString(), strings.TrimSuffix(ferr.Error(), ".")))
				fw = bmc.Firmware{BMC: firmwareKnown(ctx, m, bmc.FirmwareBMC), BIOS: firmwareKnown(ctx, m, bmc.FirmwareBIOS)}
			} else {
				err = ferr
			}
		}
		sess.Close()
	}
	if err != nil {
		if bmc.Unreachable(err) {
			diags.AddWarning(fmt.Sprintf("Node %s: BMC not reachable, state not refreshed", tgt.node),
				fmt.Sprintf("Node %q: %s.\n\nThe plan uses the node's last known BMC state; drift on this node cannot be seen until its BMC answers, and an apply that changes it will fail.", tgt.node, strings.TrimSuffix(err.Error(), ".")))
			return diags
		}
		tgt.failLogin(&diags, "read its state", err, opened, !m.Inventory.IsNull())
		return diags
	}

	m.PowerState = types.StringValue(st.PowerState)
	m.Inventory = inventoryValue(st)
	nodeReadFirmware(ctx, m, fw, &diags)

	if !m.BootDevice.IsNull() {
		var bd bootDeviceModel
		diags.Append(m.BootDevice.As(ctx, &bd, objectAsOptions)...)
		have := bmc.BootOverride{Device: bd.Device.ValueString(), Persistent: bd.Persistent.ValueBool(), EFI: bd.EFI.ValueBool()}
		if got := bmc.ReadBackBoot(have, st); got != have {
			bd.Device, bd.Persistent, bd.EFI = types.StringValue(got.Device), types.BoolValue(got.Persistent), types.BoolValue(got.EFI)
			v, d := types.ObjectValueFrom(ctx, bootDeviceAttrTypes, bd)
			diags.Append(d...)
			m.BootDevice = v
		}
	}

	if !m.BIOSSettings.IsNull() {
		var have map[string]string
		diags.Append(m.BIOSSettings.ElementsAs(ctx, &have, false)...)
		if out, ok := bmc.ReadBackBIOS(have, st); ok {
			v, d := types.MapValueFrom(ctx, types.StringType, out)
			diags.Append(d...)
			m.BIOSSettings = v
		}
	}

	if !m.BMCUsers.IsNull() {
		var users, kept []bmcUserModel
		diags.Append(m.BMCUsers.ElementsAs(ctx, &users, false)...)
		byName := map[string]bmcUserModel{}
		var have []bmc.User
		for _, u := range users {
			byName[u.Name.ValueString()] = u
			have = append(have, bmcUserOf(u, ""))
		}
		if read, ok := bmc.ReadBackUsers(have, st); ok {
			for _, b := range read {
				u := byName[b.Name]
				u.Role = types.StringValue(b.Role)
				u.Password = types.StringNull()
				kept = append(kept, u)
			}
			v, d := types.ListValueFrom(ctx, types.ObjectType{AttrTypes: bmcUserAttrTypes}, kept)
			if kept == nil {
				v, d = types.ListValue(types.ObjectType{AttrTypes: bmcUserAttrTypes}, []attr.Value{})
			}
			diags.Append(d...)
			m.BMCUsers = v
		}
	}
	return diags
}

// configUsers reads bmc_users from the configuration, where the write-only passwords are.
func configUsers(ctx context.Context, cfg tfsdk.Config) (map[string]bmcUserModel, diag.Diagnostics) {
	var l types.List
	diags := cfg.GetAttribute(ctx, path.Root("bmc_users"), &l)
	out := map[string]bmcUserModel{}
	if diags.HasError() || l.IsNull() || l.IsUnknown() {
		return out, diags
	}
	var users []bmcUserModel
	diags.Append(l.ElementsAs(ctx, &users, false)...)
	for _, u := range users {
		out[u.Name.ValueString()] = u
	}
	return out, diags
}
