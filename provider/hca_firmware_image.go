package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

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

// gpucluster_hca.firmware: the firmware image on the card's flash, read with flint (or mstflint)
// over SSH and brought to an image file on the node with flint's burn, through internal/hca
// (QueryCardAndImage, UpdateFirmware). The plan queries the card and the image in one command so
// that it shows the version an update brings and refuses a PSID mismatch before anything is
// written, as flint itself would refuse the burn.

type hcaFirmwareModel struct {
	Version types.String `tfsdk:"version"`
	PSID    types.String `tfsdk:"psid"`
	Image   types.String `tfsdk:"image"`
}

var hcaFirmwareAttrTypes = map[string]attr.Type{"version": types.StringType, "psid": types.StringType, "image": types.StringType}

func hcaFirmwareImageAttribute() schema.Attribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The adapter's firmware, as `flint -d DEV q` (or `mstflint`, whichever the node has: see `tool`) reads it " +
			"over SSH on the HCA's node (needs `ssh_host`). Every refresh reads `version` and `psid` from the card, so a " +
			"card off the baseline shows in the plan. With `image`, the plan also reads the image (`flint -i IMAGE q`, one " +
			"command with the card's query) and shows the version it brings; an image whose PSID is not the card's is " +
			"refused at plan, as flint refuses to burn it. Apply checks the PSIDs again, burns (`flint -d DEV -i IMAGE -y b`), " +
			"reads the card back, and warns that the new firmware runs only after a firmware reset " +
			"(`gpucluster_hca_reset`) or a reboot. An image the flash already holds is no change. Destroying the HCA leaves " +
			"the firmware as it is.",
		Attributes: map[string]schema.Attribute{
			"version": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "Firmware version on the card's flash (`FW Version`), e.g. `28.43.1014` (major `28` is " +
					"ConnectX-7). Set, it is the site's baseline: the plan refuses an `image` of another version, and a card " +
					"at another version without an `image` to bring it there. Unset, it is the image's version, or the card's " +
					"without an image.",
				Validators: []validator.String{stringvalidator.RegexMatches(fwVersionRE,
					"must be a firmware version as flint prints it, major.minor.subminor, e.g. \"28.43.1014\"")},
			},
			"psid": schema.StringAttribute{
				Optional: true, Computed: true,
				MarkdownDescription: "The card's PSID (Parameter-Set IDentification, e.g. `MT_0000000841`): the board and " +
					"its parameter set, which an image must carry to be burned. Set, the plan refuses a card or an image " +
					"with another PSID. Unset, it is the card's.",
				Validators: []validator.String{stringvalidator.LengthBetween(1, 16)},
			},
			"image": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Path of the firmware image on the HCA's node, e.g. " +
					"`/srv/fw/fw-ConnectX7-rel-28_43_1014-MCX75310AAS-NEA_Ax.bin`. Unset: the firmware is only read.",
				Validators: []validator.String{stringvalidator.RegexMatches(imagePathRE, "must be an absolute path on the node, e.g. \"/srv/fw/fw-ConnectX7.bin\"")},
			},
		},
	}
}

var (
	fwVersionRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)
	imagePathRE = regexp.MustCompile(`^/[^\x00\n]*$`)
)

// firmwarePath is the attribute path of one field of firmware.
func firmwarePath(field string) path.Path { return path.Root("firmware").AtName(field) }

func firmwareOf(ctx context.Context, o types.Object, diags *diag.Diagnostics) (hcaFirmwareModel, bool) {
	var f hcaFirmwareModel
	if o.IsNull() || o.IsUnknown() {
		return f, false
	}
	diags.Append(o.As(ctx, &f, objectAsOptions)...)
	return f, !diags.HasError()
}

func firmwareObject(f hcaFirmwareModel, diags *diag.Diagnostics) types.Object {
	o, d := types.ObjectValue(hcaFirmwareAttrTypes, map[string]attr.Value{"version": f.Version, "psid": f.PSID, "image": f.Image})
	diags.Append(d...)
	return o
}

// modifyFirmwareImagePlan plans firmware: what the user set, the rest from the card and the
// image. The card is read at plan with the image (hca.QueryCardAndImage) when an image is set
// and the node is known; otherwise the refreshed state tells the card. A node that does not
// answer, or an image not there yet (another resource may put it there in the same apply), is a
// warning and apply checks again; a PSID mismatch or a version that is not the baseline is an
// error, once, on the attribute to change.
//
// cfgTool is the configured tool: null, the node is asked which it has when the card is read
// here, and the plan records the answer.
func (r *hcaResource) modifyFirmwareImagePlan(ctx context.Context, state tfsdk.State, m *hcaModel, cfg types.Object, cfgTool types.String, diags *diag.Diagnostics) {
	if cfg.IsNull() {
		m.Firmware = types.ObjectNull(hcaFirmwareAttrTypes)
		return
	}
	want, ok := firmwareOf(ctx, cfg, diags)
	if !ok {
		return
	}
	if m.SSHHost.IsNull() {
		node := "<node>"
		if !m.Node.IsUnknown() {
			node = m.Node.ValueString()
		}
		diags.AddAttributeError(path.Root("ssh_host"), "firmware needs ssh_host",
			fmt.Sprintf("firmware is read and burned with flint over SSH on the HCA's node, so the HCA needs ssh_host, e.g. ssh_host = gpucluster_node.%s.ssh_host", node))
		return
	}
	name := m.Name.ValueString()
	var card hcaFirmwareModel // the card as the last refresh read it
	if !state.Raw.IsNull() {
		var prior hcaModel
		diags.Append(state.Get(ctx, &prior)...)
		if pf, ok := firmwareOf(ctx, prior.Firmware, diags); ok && sameFirmwareTarget(m, &prior) {
			card = pf
		}
	}
	var img *hca.FirmwareInfo
	toolKnown := !m.Tool.IsUnknown() || cfgTool.IsNull() // unknown and unset: the node says
	if !want.Image.IsNull() && !want.Image.IsUnknown() && known(m.SSHHost, m.Device, m.MSTDevice, m.SSH) && toolKnown {
		c, i, err := r.inspectFirmware(ctx, m, want.Image.ValueString())
		var nt *hca.NoToolError
		switch {
		case errors.As(err, &nt):
			diags.AddAttributeError(path.Root("tool"), fmt.Sprintf("HCA %s: no flint or mstflint on node %s", name, m.Node.ValueString()),
				fmt.Sprintf("HCA %q (device %s): node %s (%s): %s.", name, m.Device.ValueString(), m.Node.ValueString(), m.SSHHost.ValueString(), nt))
			return
		case err != nil:
			diags.AddAttributeWarning(firmwarePath("image"), fmt.Sprintf("HCA %s: firmware image not read at plan", name),
				fmt.Sprintf("HCA %q: %s.\n\nThe plan cannot show the version the image brings nor check its PSID; apply checks both before it burns.", name, err))
		default:
			card.Version, card.PSID, img = types.StringValue(c.FWVersion), types.StringValue(c.PSID), i
			recordTool(m, c.Tool)
		}
	}
	plan := hcaFirmwareModel{Image: want.Image, Version: want.Version, PSID: want.PSID}
	cardPSID, cardVersion := known1(card.PSID), known1(card.Version)
	switch {
	case img != nil && cardPSID != "" && hca.CheckPSID("", "", cardPSID, img.PSID) != nil:
		diags.AddAttributeError(firmwarePath("image"), fmt.Sprintf("HCA %s: the image is for another card", name),
			fmt.Sprintf("HCA %q: %s: flint refuses to burn it (%s). Use an image built for PSID %s (NVIDIA publishes one per PSID), or remove image.",
				name, want.Image.ValueString(), hca.CheckPSID("", "", cardPSID, img.PSID), cardPSID))
		return
	case known1(want.PSID) != "" && cardPSID != "" && want.PSID.ValueString() != cardPSID:
		diags.AddAttributeError(firmwarePath("psid"), fmt.Sprintf("HCA %s: the card has another PSID", name),
			fmt.Sprintf("HCA %q: the card's PSID is %s, not %s. Set psid = %q, or use the HCA that carries %s.", name, cardPSID, want.PSID.ValueString(), cardPSID, want.PSID.ValueString()))
		return
	case known1(want.PSID) != "" && img != nil && want.PSID.ValueString() != img.PSID:
		diags.AddAttributeError(firmwarePath("image"), fmt.Sprintf("HCA %s: the image is for another PSID", name),
			fmt.Sprintf("HCA %q: %s carries PSID %s, not psid = %s. Use an image built for %s.", name, want.Image.ValueString(), img.PSID, want.PSID.ValueString(), want.PSID.ValueString()))
		return
	case known1(want.Version) != "" && img != nil && want.Version.ValueString() != img.FWVersion:
		diags.AddAttributeError(firmwarePath("version"), fmt.Sprintf("HCA %s: the image is not the baseline version", name),
			fmt.Sprintf("HCA %q: %s holds firmware %s, not version = %s. Use the image of %s, or set version = %q.", name, want.Image.ValueString(), img.FWVersion, want.Version.ValueString(), want.Version.ValueString(), img.FWVersion))
		return
	case known1(want.Version) != "" && want.Image.IsNull() && cardVersion != "" && want.Version.ValueString() != cardVersion:
		diags.AddAttributeError(firmwarePath("image"), fmt.Sprintf("HCA %s: off the firmware baseline, and no image", name),
			fmt.Sprintf("HCA %q: the card runs firmware %s, not version = %s, and there is no image to burn. Set image to the path of the %s image on the node.", name, cardVersion, want.Version.ValueString(), want.Version.ValueString()))
		return
	}
	if plan.Version.IsNull() || plan.Version.IsUnknown() {
		switch {
		case img != nil:
			plan.Version = types.StringValue(img.FWVersion)
		case want.Image.IsNull() && cardVersion != "":
			plan.Version = card.Version
		default:
			plan.Version = types.StringUnknown()
		}
	}
	if plan.PSID.IsNull() || plan.PSID.IsUnknown() {
		plan.PSID = types.StringUnknown()
		if cardPSID != "" {
			plan.PSID = types.StringValue(cardPSID)
		}
	}
	// A burn changes what firmware_settings' firmware_version reads: leave it to apply.
	if !m.FirmwareVersion.IsNull() && (plan.Version.IsUnknown() || plan.Version.ValueString() != cardVersion) {
		m.FirmwareVersion = types.StringUnknown()
	}
	m.Firmware = firmwareObject(plan, diags)
}

// known reports whether every value is known (null counts as known).
func known(vs ...attr.Value) bool {
	for _, v := range vs {
		if v.IsUnknown() {
			return false
		}
	}
	return true
}

// known1 is a string's value when it is known and set, else "".
func known1(s types.String) string {
	if s.IsNull() || s.IsUnknown() {
		return ""
	}
	return s.ValueString()
}

// inspectFirmware reads the card and the image at plan, over the node's pooled connection,
// bounded by the read timeout.
func (r *hcaResource) inspectFirmware(ctx context.Context, m *hcaModel, image string) (card, img *hca.FirmwareInfo, err error) {
	ctx, cancel := context.WithTimeout(ctx, defaultHCAReadTimeout)
	defer cancel()
	t, d := r.firmwareTarget(ctx, m, defaultHCAReadTimeout)
	if d.HasError() {
		return nil, nil, errors.New(d[0].Detail())
	}
	client, err := nodeConnections.Client(ctx, t.ssh)
	if err != nil {
		return nil, nil, fmt.Errorf("device %s on %s: %w", t.device, t.ssh.Addr(), err)
	}
	card, img, _, err = hca.QueryCardAndImage(ctx, client, t.tool, t.device, image)
	if err == nil && img == nil {
		err = fmt.Errorf("no image")
	}
	return card, img, err
}

// firmwareImageApply brings the card to firmware.image (hca.UpdateFirmware: PSID check, burn
// when the version differs, read back) or, without an image, reads the card; under the node's
// host lock, as firmware_settings are applied, so two HCAs of a node burn one after the other.
func (r *hcaResource) firmwareImageApply(ctx context.Context, plan *hcaModel, opTimeout time.Duration) diag.Diagnostics {
	var diags diag.Diagnostics
	f, ok := firmwareOf(ctx, plan.Firmware, &diags)
	if !ok {
		return diags
	}
	t, d := r.firmwareTarget(ctx, plan, opTimeout)
	diags.Append(d...)
	if diags.HasError() {
		return diags
	}
	ctx, client, release := t.connectLocked(ctx, &diags)
	if release == nil {
		return diags
	}
	defer release()
	var after *hca.FirmwareInfo
	if f.Image.IsNull() {
		var err error
		if after, err = hca.QueryFirmware(ctx, client, t.tool, t.device); err != nil {
			t.fail(&diags, "read its firmware", err, nil)
			return diags
		}
	} else {
		res, err := hca.UpdateFirmware(ctx, client, t.tool, t.device, f.Image.ValueString())
		if res != nil && res.Tool != "" {
			t.tool = res.Tool
		}
		if err != nil {
			var pm *hca.PSIDMismatchError
			if errors.As(err, &pm) {
				diags.AddAttributeError(firmwarePath("image"), fmt.Sprintf("HCA %s: the image is for another card; not burned", t.name),
					fmt.Sprintf("HCA %q (device %s on %s): %s: %s Nothing was written. Use an image built for PSID %s.", t.name, t.device, t.ssh.Addr(), f.Image.ValueString(), err, pm.CardPSID))
				return diags
			}
			var cmds []string
			if res != nil {
				cmds = res.Commands
			}
			t.fail(&diags, "update its firmware", err, cmds)
			return diags
		}
		after = res.After
		if res.Burned {
			progress(ctx, "flint %s on %s: burned %s, firmware %s -> %s", t.name, t.host, f.Image.ValueString(), res.Before.FWVersion, res.After.FWVersion)
		}
		if res.ResetPending {
			running := after.RunningVersion
			if running == "" {
				running = res.Before.FWVersion
			}
			diags.AddWarning(fmt.Sprintf("HCA %s: firmware reset pending", t.name),
				fmt.Sprintf("HCA %q (device %s on %s): the flash holds firmware %s, but the card runs %s until a firmware reset or a reboot. Apply a gpucluster_hca_reset action to this HCA (or reboot its node) in a maintenance window: the reset takes the HCA's links down.",
					t.name, t.device, t.ssh.Addr(), after.FWVersion, running))
		}
	}
	if v := known1(f.Version); v != "" && v != after.FWVersion {
		diags.AddAttributeError(firmwarePath("version"), fmt.Sprintf("HCA %s: firmware is not the planned version", t.name),
			fmt.Sprintf("HCA %q (device %s on %s): the flash reads back firmware %s, not %s.", t.name, t.device, t.ssh.Addr(), after.FWVersion, v))
		return diags
	}
	if p := known1(f.PSID); p != "" && p != after.PSID {
		diags.AddAttributeError(firmwarePath("psid"), fmt.Sprintf("HCA %s: the card has another PSID", t.name),
			fmt.Sprintf("HCA %q (device %s on %s): the card's PSID is %s, not %s.", t.name, t.device, t.ssh.Addr(), after.PSID, p))
		return diags
	}
	f.Version, f.PSID = types.StringValue(after.FWVersion), types.StringValue(after.PSID)
	plan.Firmware = firmwareObject(f, &diags)
	recordTool(plan, after.Tool)
	return diags
}

// firmwareImageRead refreshes firmware.version and psid from the card. fi is the card's query
// when firmware_settings' refresh already ran it (one command per node and refresh), else nil.
// An unreachable node leaves the state as it is, with a warning.
func (r *hcaResource) firmwareImageRead(ctx context.Context, m *hcaModel, fi *hca.FirmwareInfo, opTimeout time.Duration) diag.Diagnostics {
	var diags diag.Diagnostics
	f, ok := firmwareOf(ctx, m.Firmware, &diags)
	if !ok {
		return diags
	}
	if fi == nil {
		t, d := r.firmwareTarget(ctx, m, opTimeout)
		if d.HasError() {
			for _, e := range d {
				diags.AddWarning(e.Summary()+"; firmware not refreshed", e.Detail())
			}
			return diags
		}
		client, err := nodeConnections.Client(ctx, t.ssh)
		if err != nil {
			if remote.Unreachable(err) {
				diags.AddWarning(fmt.Sprintf("HCA %s: node not reachable, firmware not refreshed", t.name),
					fmt.Sprintf("HCA %q (device %s on %s): %s.\n\nThe plan uses the last known firmware version.", t.name, t.device, t.ssh.Addr(), err))
				return diags
			}
			t.fail(&diags, "connect to its node", err, nil)
			return diags
		}
		if fi, err = hca.QueryFirmware(ctx, client, t.tool, t.device); err != nil {
			t.fail(&diags, "read its firmware", err, nil)
			return diags
		}
	}
	recordTool(m, fi.Tool)
	f.Version, f.PSID = types.StringValue(fi.FWVersion), types.StringValue(fi.PSID)
	m.Firmware = firmwareObject(f, &diags)
	return diags
}
