package provider

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/waves"
)

// The HCA part of gpucluster_firmware_rollout: the cards of each wave's nodes brought to
// firmware.hca with flint over SSH, through internal/hca as gpucluster_hca.firmware does
// (QueryCards at plan, one command per node; UpdateFirmware at apply, which checks the PSID
// again before it burns and reads the card back). The waves order the nodes; within a node the
// cards are burned one after the other under the node's host lock, as gpucluster_hca does.

// componentHCA is the updates' component of a card.
const componentHCA = "hca"

// rolloutHCAAttrTypes is the part of a gpucluster_hca a rollout reads: a map of the resource
// (gpucluster_hca.all) converts to it, Terraform dropping the other attributes.
var (
	rolloutHCAAttrTypes = map[string]attr.Type{
		"name": types.StringType, "node": types.StringType, "device": types.StringType, "mst_device": types.StringType,
		"ssh_host": types.StringType, "tool": types.StringType, "ssh": types.ObjectType{AttrTypes: hcaSSHAttrTypes},
	}
	rolloutRunningHCAAttrTypes = map[string]attr.Type{"node": types.StringType, "device": types.StringType, "version": types.StringType, "psid": types.StringType}
)

type rolloutHCAModel struct {
	Name      types.String `tfsdk:"name"`
	Node      types.String `tfsdk:"node"`
	Device    types.String `tfsdk:"device"`
	MSTDevice types.String `tfsdk:"mst_device"`
	SSHHost   types.String `tfsdk:"ssh_host"`
	Tool      types.String `tfsdk:"tool"`
	SSH       types.Object `tfsdk:"ssh"`
}

// rolloutCard is one card of a node of the waves.
type rolloutCard struct {
	key   string   // its key in hcas, for error paths
	name  string   // gpucluster_hca name (node/device by default)
	node  string   // its node, as the waves name it
	model hcaModel // what gpucluster_hca's firmwareTarget reads: name, ssh_host, ssh, tool, device, mst_device
}

func (c rolloutCard) device() string { return c.model.Device.ValueString() }

// readCards reads the rollout's hcas: the cards by node, each node's cards in device order.
// ok is false when a value is unknown (the plan waits for apply).
func readCards(ctx context.Context, v types.Map, diags *diag.Diagnostics) (map[string][]rolloutCard, bool) {
	out := map[string][]rolloutCard{}
	if v.IsNull() {
		return out, true
	}
	if v.IsUnknown() {
		return nil, false
	}
	var m map[string]types.Object
	diags.Append(v.ElementsAs(ctx, &m, false)...)
	for k, o := range m {
		if o.IsUnknown() {
			return nil, false
		}
		var h rolloutHCAModel
		diags.Append(o.As(ctx, &h, objectAsOptions)...)
		if !known(h.Name, h.Node, h.Device, h.MSTDevice, h.SSHHost, h.Tool, h.SSH) {
			return nil, false
		}
		name := h.Name.ValueString()
		if name == "" {
			name = h.Node.ValueString() + "/" + h.Device.ValueString()
		}
		if h.SSHHost.IsNull() {
			diags.AddAttributeError(path.Root("hcas").AtMapKey(k).AtName("ssh_host"), "An HCA of the rollout has no ssh_host",
				fmt.Sprintf("HCA %q: its firmware is read and burned with flint over SSH on its node, so it needs ssh_host, e.g. ssh_host = gpucluster_node.%s.ssh_host", name, h.Node.ValueString()))
			continue
		}
		c := rolloutCard{key: k, name: name, node: h.Node.ValueString(), model: hcaModel{
			Name: types.StringValue(name), Node: h.Node, Device: h.Device, MSTDevice: h.MSTDevice,
			SSHHost: h.SSHHost, Tool: h.Tool, SSH: h.SSH,
		}}
		if c.model.SSH.IsNull() {
			c.model.SSH = types.ObjectNull(hcaSSHAttrTypes)
		}
		out[c.node] = append(out[c.node], c)
	}
	for _, cs := range out {
		sort.Slice(cs, func(i, j int) bool { return cs[i].device() < cs[j].device() })
	}
	return out, true
}

// cardRead is what the plan read of one card.
type cardRead struct {
	card rolloutCard
	fw   *hca.FirmwareInfo
}

// queryCards reads the cards of the named nodes and image on each node ("": none): one command
// per node and tool (hca.QueryCards), over the node's pooled connection, nodes at most 8 at
// once. A node that cannot be read is an error: the plan could not say what the rollout does
// there (a refresh turns it into a warning).
func (r *firmwareRolloutResource) queryCards(ctx context.Context, in *rolloutInputs, nodes []string, image string, diags *diag.Diagnostics) (map[string]cardRead, map[string]*hca.FirmwareInfo) {
	cards := map[string]cardRead{}
	images := map[string]*hca.FirmwareInfo{} // by node
	perNode := make(map[string]diag.Diagnostics, len(nodes))
	var mu sync.Mutex
	hr := &hcaResource{data: r.data}
	_, _, _ = waves.Run(ctx, [][]string{nodes}, 8, func(ctx context.Context, _ int, node string) error {
		ctx, cancel := context.WithTimeout(ctx, defaultHCAReadTimeout)
		defer cancel()
		var d diag.Diagnostics
		// Cards of one node reached the same way share one command.
		groups := map[string][]rolloutCard{}
		var order []string
		for _, c := range in.cards[node] {
			g := c.model.SSHHost.ValueString() + "\x00" + c.model.Tool.ValueString()
			if _, ok := groups[g]; !ok {
				order = append(order, g)
			}
			groups[g] = append(groups[g], c)
		}
		got := map[string]cardRead{}
		var img *hca.FirmwareInfo
		for _, g := range order {
			cs := groups[g]
			t, td := hr.firmwareTarget(ctx, &cs[0].model, defaultHCAReadTimeout)
			d.Append(td...)
			if td.HasError() {
				continue
			}
			client, err := nodeConnections.Client(ctx, t.ssh)
			if err != nil {
				t.fail(&d, "connect to its node to read the firmware of its cards", err, nil)
				continue
			}
			devs := make([]string, len(cs))
			for i, c := range cs {
				ct, _ := hr.firmwareTarget(ctx, &c.model, defaultHCAReadTimeout)
				devs[i] = ct.device
			}
			fis, gi, err := hca.QueryCards(ctx, client, t.tool, devs, image)
			if err != nil {
				d.AddAttributeError(path.Root("hcas"), fmt.Sprintf("Node %s: cannot read the firmware of its HCAs", node),
					hca.Failure(cs[0].name, strings.Join(devs, ", "), t.ssh.Addr(), t.toolText(), err, nil))
				continue
			}
			for i, c := range cs {
				got[c.name] = cardRead{card: c, fw: fis[i]}
			}
			img = gi
		}
		mu.Lock()
		defer mu.Unlock()
		perNode[node] = d
		for k, v := range got {
			cards[k] = v
		}
		if img != nil {
			images[node] = img
		}
		return nil
	})
	// In the order of the nodes, not of the answers: the cap (capDiagnosticsBy) shows the first.
	for _, node := range nodes {
		diags.Append(perNode[node]...)
	}
	return cards, images
}

// refreshCards re-reads running_hcas from the cards of the waves' nodes (queryCards without the
// image: one command per node), so that a card changed outside Terraform shows in the state and
// as drift in the next plan. A node that cannot be read keeps its cards' last known versions,
// with a warning, as a BMC that does not answer keeps its node's.
func (r *firmwareRolloutResource) refreshCards(ctx context.Context, in *rolloutInputs, prior types.Map, diags *diag.Diagnostics) types.Map {
	var m map[string]struct {
		Node    types.String `tfsdk:"node"`
		Device  types.String `tfsdk:"device"`
		Version types.String `tfsdk:"version"`
		PSID    types.String `tfsdk:"psid"`
	}
	diags.Append(prior.ElementsAs(ctx, &m, false)...)
	out := map[string]cardRead{}
	for n, x := range m {
		out[n] = cardRead{card: rolloutCard{name: n, node: x.Node.ValueString(), model: hcaModel{Device: x.Device}},
			fw: &hca.FirmwareInfo{FWVersion: x.Version.ValueString(), PSID: x.PSID.ValueString()}}
	}
	var nodes []string
	for _, n := range in.waveNodes() {
		if len(in.cards[n]) > 0 {
			nodes = append(nodes, n)
		}
	}
	var d diag.Diagnostics
	read, _ := r.queryCards(ctx, in, nodes, "", &d)
	for _, e := range d {
		if e.Severity() == diag.SeverityError {
			diags.AddWarning(e.Summary()+"; running_hcas not refreshed for it", e.Detail()+"\n\nThe plan reads the cards again, and fails if it cannot.")
		} else {
			diags.Append(e)
		}
	}
	for n, c := range read {
		out[n] = c
	}
	return runningHCAsValue(out, diags)
}

// planCards lists the card updates by node and the version each card has after them. A card
// whose PSID is not the image's is refused here, in flint's words, so that it never reaches a
// burn; so are an image that is not the baseline version and a card off a psid baseline. Each
// cause is said once, on the attribute to change.
func (in *rolloutInputs) planCards(read map[string]cardRead, images map[string]*hca.FirmwareInfo, diags *diag.Diagnostics) (map[string][]rolloutUpdate, map[string]cardRead) {
	ups := map[string][]rolloutUpdate{}
	after := map[string]cardRead{}
	image, wantV, wantP := known1(in.hcaFW.Image), known1(in.hcaFW.Version), known1(in.hcaFW.PSID)
	for _, node := range in.waveNodes() {
		img := images[node]
		if img != nil && wantV != "" && img.FWVersion != wantV {
			diags.AddAttributeError(path.Root("firmware").AtName("hca").AtName("version"), "The HCA image is not the baseline version",
				fmt.Sprintf("%s on node %s holds firmware %s, not version = %s. Use the image of %s, or set version = %q.", image, node, img.FWVersion, wantV, wantV, img.FWVersion))
			return nil, nil
		}
		to := wantV
		if to == "" && img != nil {
			to = img.FWVersion
		}
		for _, c := range in.cards[node] {
			cr, ok := read[c.name]
			if !ok {
				continue
			}
			switch {
			case img != nil && hca.CheckPSID("", "", cr.fw.PSID, img.PSID) != nil:
				diags.AddAttributeError(path.Root("firmware").AtName("hca").AtName("image"), fmt.Sprintf("HCA %s: the image is for another card", c.name),
					fmt.Sprintf("HCA %q (device %s of node %s): %s: flint refuses to burn it: %s Use an image built for PSID %s, or leave the card out of hcas.",
						c.name, c.device(), node, image, hca.CheckPSID("", "", cr.fw.PSID, img.PSID), cr.fw.PSID))
				continue
			case wantP != "" && cr.fw.PSID != wantP:
				diags.AddAttributeError(path.Root("firmware").AtName("hca").AtName("psid"), fmt.Sprintf("HCA %s: the card has another PSID", c.name),
					fmt.Sprintf("HCA %q (device %s of node %s): the card's PSID is %s, not psid = %s. Leave it out of hcas, or roll out the baseline of its own board separately.", c.name, c.device(), node, cr.fw.PSID, wantP))
				continue
			}
			a := cr
			if to != "" && cr.fw.FWVersion != to {
				if image == "" {
					diags.AddAttributeError(path.Root("firmware").AtName("hca").AtName("image"), "No HCA firmware image for the baseline",
						fmt.Sprintf("HCA %q (%s on %s) runs firmware %s, not the baseline %s, and there is no image to burn; set firmware.hca.image to the path of the %s image on the nodes.", c.name, c.device(), node, cr.fw.FWVersion, to, to))
					return nil, nil
				}
				ups[node] = append(ups[node], rolloutUpdate{node: node, comp: componentHCA, device: c.device(), card: c.name, from: cr.fw.FWVersion, to: to, at: image})
				fw := *cr.fw
				fw.FWVersion = to
				a.fw = &fw
			}
			after[c.name] = a
		}
	}
	return ups, after
}

func runningHCAsValue(m map[string]cardRead, diags *diag.Diagnostics) types.Map {
	elems := map[string]attr.Value{}
	for n, c := range m {
		o, d := types.ObjectValue(rolloutRunningHCAAttrTypes, map[string]attr.Value{
			"node": types.StringValue(c.card.node), "device": types.StringValue(c.card.device()),
			"version": types.StringValue(c.fw.FWVersion), "psid": types.StringValue(c.fw.PSID),
		})
		diags.Append(d...)
		elems[n] = o
	}
	out, d := types.MapValue(types.ObjectType{AttrTypes: rolloutRunningHCAAttrTypes}, elems)
	diags.Append(d...)
	return out
}

// updateCards burns the planned cards of one node, one after the other under the node's host
// lock (hca.UpdateFirmware: the PSIDs checked again, the burn, the read-back), and says once for
// the node which cards wait for a firmware reset. It returns what each card reads back.
func (r *firmwareRolloutResource) updateCards(ctx context.Context, in *rolloutInputs, wave int, node string, ups []rolloutUpdate, timeout time.Duration, diags *diag.Diagnostics) (map[string]*hca.FirmwareInfo, bool) {
	hr := &hcaResource{data: r.data}
	byName := map[string]rolloutCard{}
	for _, c := range in.cards[node] {
		byName[c.name] = c
	}
	got := map[string]*hca.FirmwareInfo{}
	var pending []string
	for _, u := range ups {
		c, ok := byName[u.card]
		if !ok {
			diags.AddError(fmt.Sprintf("HCA %s is no longer in hcas", u.card), fmt.Sprintf("The plan updates HCA %q of node %s, which hcas no longer holds; plan again.", u.card, node))
			return got, false
		}
		t, d := hr.firmwareTarget(ctx, &c.model, timeout)
		diags.Append(d...)
		if d.HasError() {
			return got, false
		}
		lctx, client, release := t.connectLocked(ctx, diags)
		if release == nil {
			return got, false
		}
		progress(ctx, "firmware rollout wave %d: %s HCA %s %s -> %s", wave, node, u.device, u.from, u.to)
		res, err := hca.UpdateFirmware(lctx, client, t.tool, t.device, u.at)
		release()
		if err != nil {
			var pm *hca.PSIDMismatchError
			if errors.As(err, &pm) {
				diags.AddAttributeError(path.Root("firmware").AtName("hca").AtName("image"), fmt.Sprintf("HCA %s: the image is for another card; not burned", t.name),
					fmt.Sprintf("HCA %q (device %s on %s, wave %d): %s: %s Nothing was written. Use an image built for PSID %s.", t.name, t.device, t.ssh.Addr(), wave, u.at, err, pm.CardPSID))
				return got, false
			}
			var cmds []string
			if res != nil {
				cmds = res.Commands
			}
			t.fail(diags, fmt.Sprintf("update its firmware to %s (wave %d)", u.to, wave), err, cmds)
			return got, false
		}
		if res.After.FWVersion != u.to {
			diags.AddError(fmt.Sprintf("HCA %s: firmware not at the baseline after wave %d", t.name, wave),
				fmt.Sprintf("HCA %q (device %s on %s): the flash reads back firmware %s, not %s.", t.name, t.device, t.ssh.Addr(), res.After.FWVersion, u.to))
			return got, false
		}
		got[c.name] = res.After
		if res.ResetPending {
			pending = append(pending, fmt.Sprintf("%s (flash %s)", u.device, res.After.FWVersion))
		}
		progress(ctx, "firmware rollout wave %d: %s HCA %s reads back %s", wave, node, u.device, res.After.FWVersion)
	}
	if len(pending) > 0 {
		diags.AddWarning(fmt.Sprintf("Node %s: HCA firmware reset pending", node),
			fmt.Sprintf("Node %s (wave %d): the HCAs %s hold their new firmware but run the old one until a firmware reset or a reboot. Apply gpucluster_hca_reset to them (or reboot the node) while the node is drained for its wave: the reset takes the HCAs' links down.",
				node, wave, strings.Join(pending, ", ")))
	}
	return got, true
}

// rolloutHCAFirmwareAttribute is firmware.hca: the baseline of the cards, named and checked as
// gpucluster_hca.firmware's fields are.
func rolloutHCAFirmwareAttribute() schema.Attribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "The HCA baseline, as `gpucluster_hca.firmware` takes it: every card of `hcas` on a node of the " +
			"waves must hold `version` on its flash. Unset: the cards are not rolled out.",
		Attributes: map[string]schema.Attribute{
			"version": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Firmware version every card must hold (`FW Version` of `flint -d DEV q`), e.g. `28.43.1014`. " +
					"Unset: the image's version. An image of another version is refused at plan.",
				Validators: []validator.String{stringvalidator.RegexMatches(fwVersionRE,
					"must be a firmware version as flint prints it, major.minor.subminor, e.g. \"28.43.1014\"")}},
			"psid": schema.StringAttribute{Optional: true,
				MarkdownDescription: "The PSID every card must carry, e.g. `MT_0000001244`: a card with another is refused at plan.",
				Validators:          []validator.String{stringvalidator.LengthBetween(1, 16)}},
			"image": schema.StringAttribute{Optional: true,
				MarkdownDescription: "Path of the firmware image on every node of the waves, e.g. `/srv/fw/fw-ConnectX7-rel-28_43_1014.bin`; " +
					"the plan reads it on each node (`flint -i IMAGE q`) and refuses a card whose PSID is not the image's, as flint " +
					"refuses the burn.",
				Validators: []validator.String{stringvalidator.RegexMatches(imagePathRE, "must be an absolute path on the node, e.g. \"/srv/fw/fw-ConnectX7.bin\"")}},
		},
	}
}

// finalCards is running_hcas after apply: what each burned card read back; a card planned but
// not burned (its wave failed or was not started) the version the plan read (before).
func finalCards(ctx context.Context, planned types.Map, in *rolloutInputs, got map[string]*hca.FirmwareInfo, before map[string]string, diags *diag.Diagnostics) types.Map {
	if planned.IsNull() || planned.IsUnknown() {
		return types.MapNull(types.ObjectType{AttrTypes: rolloutRunningHCAAttrTypes})
	}
	var m map[string]struct {
		Node    types.String `tfsdk:"node"`
		Device  types.String `tfsdk:"device"`
		Version types.String `tfsdk:"version"`
		PSID    types.String `tfsdk:"psid"`
	}
	diags.Append(planned.ElementsAs(ctx, &m, false)...)
	byName := map[string]rolloutCard{}
	for _, cs := range in.cards {
		for _, c := range cs {
			byName[c.name] = c
		}
	}
	out := map[string]cardRead{}
	for n, x := range m {
		c := byName[n]
		if c.name == "" {
			c = rolloutCard{name: n, node: x.Node.ValueString(), model: hcaModel{Device: x.Device}}
		}
		fi := &hca.FirmwareInfo{FWVersion: x.Version.ValueString(), PSID: x.PSID.ValueString()}
		if g, ok := got[n]; ok {
			fi = g
		} else if v, ok := before[n]; ok {
			fi.FWVersion = v
		}
		out[n] = cardRead{card: c, fw: fi}
	}
	return runningHCAsValue(out, diags)
}
