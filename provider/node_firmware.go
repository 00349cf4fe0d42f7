package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bmc"
)

// gpucluster_node.firmware: the BMC and BIOS versions a node runs, read from the Redfish
// UpdateService's FirmwareInventory, and brought to the declared ones by
// UpdateService.SimpleUpdate (internal/bmc firmware.go holds the protocol).

type nodeFirmwareModel struct {
	BMC    types.String `tfsdk:"bmc"`
	BIOS   types.String `tfsdk:"bios"`
	Images types.Object `tfsdk:"images"`
}

type nodeFirmwareImagesModel struct {
	BMC  types.String `tfsdk:"bmc"`
	BIOS types.String `tfsdk:"bios"`
}

var (
	nodeFirmwareImagesAttrTypes = map[string]attr.Type{"bmc": types.StringType, "bios": types.StringType}
	nodeFirmwareAttrTypes       = map[string]attr.Type{
		"bmc": types.StringType, "bios": types.StringType,
		"images": types.ObjectType{AttrTypes: nodeFirmwareImagesAttrTypes},
	}
)

// nodeFirmwareImageRE: an image is a URI with a scheme, which the BMC fetches itself (SimpleUpdate's
// ImageURI; the scheme decides the transfer protocol).
var nodeFirmwareImageRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://[^\s]+$`)

func nodeFirmwareAttribute() schema.Attribute {
	image := func(what string) schema.StringAttribute {
		return schema.StringAttribute{
			Optional: true,
			MarkdownDescription: "URI of the " + what + " image, which the BMC fetches itself (Redfish `SimpleUpdate` " +
				"`ImageURI`; the scheme, e.g. `https://`, sets the transfer protocol). Used only when the version differs.",
			Validators: []validator.String{stringvalidator.RegexMatches(nodeFirmwareImageRE,
				"must be a URI the BMC can fetch the image from, e.g. \"https://images.example/"+strings.ToLower(what)+"-1.2.3.bin\"")},
		}
	}
	version := func(what string) schema.StringAttribute {
		return schema.StringAttribute{
			Optional: true,
			Computed: true,
			MarkdownDescription: "The " + what + " firmware version the node must run, as the BMC's FirmwareInventory " +
				"spells it. Refresh reads the running version here, so a node off the baseline shows in the plan; " +
				"apply installs `images." + strings.ToLower(what) + "` when they differ and reads the version back. " +
				"Unset: the running version, read only.",
		}
	}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "BMC and BIOS firmware, through the Redfish UpdateService (needs Redfish: a BMC reached " +
			"only over IPMI is refused at plan). Refresh reads both versions from `UpdateService/FirmwareInventory`; " +
			"a version that differs from the declared one plans as an update, which apply carries out by posting " +
			"`UpdateService.SimpleUpdate` with the image's URI and following the BMC's task to `Completed` (failing " +
			"with the task's messages when it ends in `Exception` or `Killed`, and waiting out a BMC that restarts " +
			"into its new firmware), bounded by `timeouts`. A node already at the version is no change. The BIOS is " +
			"updated before the BMC, whose update restarts it.",
		Attributes: map[string]schema.Attribute{
			"bmc":  version("BMC"),
			"bios": version("BIOS"),
			"images": schema.SingleNestedAttribute{
				Optional:            true,
				MarkdownDescription: "Where the BMC fetches the images from, by component.",
				Attributes:          map[string]schema.Attribute{"bmc": image("BMC"), "bios": image("BIOS")},
			},
		},
	}
}

// nodeFirmwareOf reads a firmware object; ok is false when it is null or unknown.
func nodeFirmwareOf(ctx context.Context, o types.Object, diags *diag.Diagnostics) (fw nodeFirmwareModel, images nodeFirmwareImagesModel, ok bool) {
	if o.IsNull() || o.IsUnknown() {
		return fw, images, false
	}
	diags.Append(o.As(ctx, &fw, objectAsOptions)...)
	if !fw.Images.IsNull() && !fw.Images.IsUnknown() {
		diags.Append(fw.Images.As(ctx, &images, objectAsOptions)...)
	}
	return fw, images, true
}

func (f *nodeFirmwareModel) version(comp string) *types.String {
	if comp == bmc.FirmwareBIOS {
		return &f.BIOS
	}
	return &f.BMC
}

func (f nodeFirmwareImagesModel) image(comp string) types.String {
	if comp == bmc.FirmwareBIOS {
		return f.BIOS
	}
	return f.BMC
}

func nodeFirmwareValue(ctx context.Context, fw nodeFirmwareModel, diags *diag.Diagnostics) types.Object {
	v, d := types.ObjectValueFrom(ctx, nodeFirmwareAttrTypes, fw)
	diags.Append(d...)
	return v
}

// nodeModifyFirmwarePlan checks firmware against the BMC's protocols and the versions the last
// refresh read (prior: nil when there is none for this BMC), fills the versions left unset with
// what was read, and makes the inventory unknown when an update will change what it shows.
func nodeModifyFirmwarePlan(ctx context.Context, m, cfg, prior *nodeModel, protocols []string, diags *diag.Diagnostics) {
	if cfg.Firmware.IsNull() {
		m.Firmware = types.ObjectNull(nodeFirmwareAttrTypes)
		return
	}
	if msg := bmc.CheckFirmwareProtocols(protocols); msg != "" {
		diags.AddAttributeError(path.Root("firmware"), "Firmware needs Redfish", msg)
		return
	}
	want, images, ok := nodeFirmwareOf(ctx, m.Firmware, diags)
	if !ok {
		return
	}
	cfgFW, _, _ := nodeFirmwareOf(ctx, cfg.Firmware, diags)
	var was nodeFirmwareModel
	hasPrior := false
	if prior != nil {
		was, _, hasPrior = nodeFirmwareOf(ctx, prior.Firmware, diags)
	}
	update := false
	for _, comp := range bmc.FirmwareComponents {
		declared, running := cfgFW.version(comp), types.StringNull()
		if hasPrior {
			running = *was.version(comp)
		}
		switch {
		case declared.IsNull():
			// Read only: the running version, as the last refresh saw it.
			*want.version(comp) = types.StringUnknown()
			if hasPrior && !running.IsNull() && !running.IsUnknown() {
				*want.version(comp) = running
			}
		case declared.IsUnknown() || running.IsNull() || running.IsUnknown():
			update = true // not known yet: the apply decides
		case declared.ValueString() != running.ValueString():
			img := images.image(comp)
			if msg := bmc.CheckFirmwareImage(comp, declared.ValueString(), running.ValueString(), !img.IsNull()); msg != "" {
				diags.AddAttributeError(path.Root("firmware").AtName(comp), "No firmware image for the declared version", msg)
				continue
			}
			update = true
		}
	}
	m.Firmware = nodeFirmwareValue(ctx, want, diags)
	if update {
		// The update changes bmc_firmware / bios_firmware, read back after it.
		m.Inventory = types.ObjectUnknown(inventoryAttrTypes)
	}
}

// nodeReadFirmware fills m.Firmware's versions from the BMC's FirmwareInventory, keeping the images.
func nodeReadFirmware(ctx context.Context, m *nodeModel, fw bmc.Firmware, diags *diag.Diagnostics) {
	cur, _, ok := nodeFirmwareOf(ctx, m.Firmware, diags)
	if !ok {
		return
	}
	str := func(s string) types.String {
		if strings.TrimSpace(s) == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	cur.BMC, cur.BIOS = str(fw.BMC), str(fw.BIOS)
	m.Firmware = nodeFirmwareValue(ctx, cur, diags)
}

// nodeApplyFirmware brings the node's firmware to the plan's versions: for each component (the BIOS
// first: the BMC's own update restarts it) with a declared version and an image,
// bmc.Session.UpdateFirmware (no change when the BMC runs it already). It reports whether
// anything was installed; the caller then reads the BMC back through a new session, since a
// restarted BMC forgets the old one.
func nodeApplyFirmware(ctx context.Context, tgt *bmcTarget, sess *bmc.Session, plan *nodeModel, diags *diag.Diagnostics) (changed bool) {
	want, images, ok := nodeFirmwareOf(ctx, plan.Firmware, diags)
	if !ok {
		return false
	}
	for _, comp := range []string{bmc.FirmwareBIOS, bmc.FirmwareBMC} {
		v, img := want.version(comp), images.image(comp)
		if v.IsNull() || v.IsUnknown() || img.IsNull() || img.IsUnknown() {
			continue
		}
		progress(ctx, "bmc %s: %s firmware to %s", tgt.node, strings.ToUpper(comp), v.ValueString())
		res, err := sess.UpdateFirmware(ctx, comp, img.ValueString(), v.ValueString())
		if err != nil {
			tgt.failLogin(diags, "update its "+strings.ToUpper(comp)+" firmware to "+v.ValueString(), err, true, true)
			return changed
		}
		if res.Changed {
			changed = true
			progress(ctx, "bmc %s: %s firmware %s -> %s", tgt.node, strings.ToUpper(comp), res.Before, res.After)
		}
	}
	return changed
}

// nodeCheckFirmwareRead compares what the BMC runs after the apply with the declared versions: a
// version declared without an image (on create, before any refresh could refuse it at plan)
// that the BMC does not run is an error on the attribute.
func nodeCheckFirmwareRead(ctx context.Context, tgt *bmcTarget, plan *nodeModel, fw bmc.Firmware, diags *diag.Diagnostics) {
	want, images, ok := nodeFirmwareOf(ctx, plan.Firmware, diags)
	if !ok {
		return
	}
	for _, comp := range bmc.FirmwareComponents {
		v := want.version(comp)
		got := fw.BMC
		if comp == bmc.FirmwareBIOS {
			got = fw.BIOS
		}
		if v.IsNull() || v.IsUnknown() || v.ValueString() == got {
			continue
		}
		msg := bmc.CheckFirmwareImage(comp, v.ValueString(), got, !images.image(comp).IsNull())
		if msg == "" {
			msg = fmt.Sprintf("firmware.%s is %q but the BMC reports %q after the update", comp, v.ValueString(), got)
		}
		diags.AddAttributeError(path.Root("firmware").AtName(comp), "Firmware not at the declared version",
			fmt.Sprintf("Node %q: %s.", tgt.node, msg))
	}
}

// firmwareKnown is the version of comp the state holds ("" when none).
func firmwareKnown(ctx context.Context, m *nodeModel, comp string) string {
	var diags diag.Diagnostics
	fw, _, ok := nodeFirmwareOf(ctx, m.Firmware, &diags)
	if !ok {
		return ""
	}
	return fw.version(comp).ValueString()
}
