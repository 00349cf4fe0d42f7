package provider

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
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
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bmc"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/waves"
)

// gpucluster_firmware_rollout: brings the BMC and BIOS firmware of many nodes to one baseline in
// the waves gpucluster_maintenance_waves proved safe. Terraform orders resources only by their
// references and cannot order the instances of one for_each among themselves, so a rollout in
// waves cannot be made of per-node resources waiting for each other (they would hold Terraform's
// -parallelism slots while the wave they wait for has none, and a node already at the baseline
// never reaches apply to say that its wave is done). One resource owns the rollout instead: its
// plan reads every node of the waves and lists the updates wave by wave, and its apply runs the
// waves one after the other (internal/waves Run) with the node's own Redfish update
// (internal/bmc, as gpucluster_node.firmware does).

var (
	_ resource.Resource               = (*firmwareRolloutResource)(nil)
	_ resource.ResourceWithConfigure  = (*firmwareRolloutResource)(nil)
	_ resource.ResourceWithModifyPlan = (*firmwareRolloutResource)(nil)
)

func newFirmwareRolloutResource() resource.Resource { return &firmwareRolloutResource{} }

type firmwareRolloutResource struct{ data *Data }

type firmwareRolloutModel struct {
	ID          types.String   `tfsdk:"id"`
	Waves       types.List     `tfsdk:"waves"`
	Nodes       types.Map      `tfsdk:"nodes"`
	HCAs        types.Map      `tfsdk:"hcas"`
	Firmware    types.Object   `tfsdk:"firmware"`
	Parallelism types.Int64    `tfsdk:"parallelism"`
	Running     types.Map      `tfsdk:"running"`
	RunningHCAs types.Map      `tfsdk:"running_hcas"`
	Updates     types.List     `tfsdk:"updates"`
	Summary     types.String   `tfsdk:"summary"`
	Timeouts    timeouts.Value `tfsdk:"timeouts"`
}

type rolloutWaveModel struct {
	Devices      []string           `tfsdk:"devices"`
	DrainedNodes []string           `tfsdk:"drained_nodes"`
	Degraded     *rolloutProofModel `tfsdk:"degraded"`
}

type rolloutProofModel struct {
	BisectionLowerGbps   types.Float64 `tfsdk:"bisection_lower_gbps"`
	FullBisectionGbps    types.Float64 `tfsdk:"full_bisection_gbps"`
	BisectionRatio       types.Float64 `tfsdk:"bisection_ratio"`
	RequiredRatio        types.Float64 `tfsdk:"required_ratio"`
	MaxOversubscription  types.Float64 `tfsdk:"max_oversubscription"`
	UnreachableEndpoints types.Int64   `tfsdk:"unreachable_endpoints"`
}

// rolloutNodeAttrTypes is the part of a gpucluster_node a rollout reads: a map of the resource
// (gpucluster_node.all) converts to it, Terraform dropping the other attributes.
var (
	rolloutNodeAttrTypes    = map[string]attr.Type{"name": types.StringType, "bmc": types.ObjectType{AttrTypes: nodeBMCAttrTypes}}
	rolloutRunningAttrTypes = map[string]attr.Type{"bmc": types.StringType, "bios": types.StringType}
	rolloutUpdateAttrTypes  = map[string]attr.Type{
		"wave": types.Int64Type, "node": types.StringType, "component": types.StringType, "device": types.StringType,
		"from": types.StringType, "to": types.StringType,
	}
	rolloutWaveType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"devices": types.ListType{ElemType: types.StringType}, "drained_nodes": types.ListType{ElemType: types.StringType},
		"degraded": types.ObjectType{AttrTypes: waveProofAttrTypes},
	}}
)

// defaultRolloutParallelism is Terraform's own default -parallelism: as many nodes of a wave at
// once as Terraform would update resources at once.
const defaultRolloutParallelism = 10

const defaultRolloutTimeout = 2 * time.Hour

func (r *firmwareRolloutResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_firmware_rollout"
}

func (r *firmwareRolloutResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	r.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (r *firmwareRolloutResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	version := func(what string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: "The " + what + " version every node of the waves must run, as the BMC's FirmwareInventory spells it. Unset: not rolled out."}
	}
	image := func(what string) schema.StringAttribute {
		return schema.StringAttribute{Optional: true, MarkdownDescription: "URI of the " + what + " image, which each BMC fetches itself (Redfish `SimpleUpdate` `ImageURI`).",
			Validators: []validator.String{stringvalidator.RegexMatches(nodeFirmwareImageRE, "must be a URI the BMC can fetch the image from, e.g. \"https://images.example/bmc-25.01.03.bin\"")}}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Brings the BMC, BIOS and HCA firmware of many nodes to one baseline in the waves that " +
			"`gpucluster_maintenance_waves` proved safe. The plan reads every node of the waves through Redfish " +
			"(`UpdateService/FirmwareInventory`) and lists, in `updates` and `summary`, each node off the baseline with the " +
			"wave it belongs to and the proof of that wave. Apply takes the waves one after the other: the nodes of a wave " +
			"are updated together (at most `parallelism` at once; `UpdateService.SimpleUpdate`, its task followed to " +
			"`Completed`), each read back, and the next wave starts only once every node of this one runs its new " +
			"versions. With `firmware.hca`, the plan also queries the cards of each node of the waves (`flint -d DEV q` for " +
			"each card and `flint -i IMAGE q`, one SSH command per node) and lists each card off the baseline in its node's " +
			"wave; a card whose PSID is not the image's is refused at plan, in flint's words, and never reaches a burn. " +
			"Apply burns a wave's cards (its nodes together, a node's cards one after the other), checks the PSIDs again, " +
			"reads each card back and warns that a firmware reset is pending, before the next wave starts. " +
			"A failed node finishes its wave and stops the rollout: later waves are not started, and the error " +
			"names them. Nodes at the baseline are not touched. Terraform cannot order the instances of one `for_each` " +
			"among themselves, so the rollout is one resource, not a `waves` input on each node: keep `firmware.images` " +
			"off the `gpucluster_node` resources it rolls out, and let them read the versions (`firmware = {}`).",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, MarkdownDescription: "Always `rollout`.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()}},
			"waves": schema.ListAttribute{
				Required: true, ElementType: rolloutWaveType,
				MarkdownDescription: "The waves, in order: `data.gpucluster_maintenance_waves.<name>.waves` as it is (its " +
					"`devices` are node names; their `degraded` proofs are shown in `summary`).",
				Validators: []validator.List{listvalidator.SizeAtLeast(1)},
			},
			"nodes": schema.MapAttribute{
				Optional: true, ElementType: types.ObjectType{AttrTypes: rolloutNodeAttrTypes},
				MarkdownDescription: "How to reach each node's BMC: a map of `gpucluster_node` (e.g. `gpucluster_node.all`) or of " +
					"objects `{ name, bmc }` of the same shape. A node is found by its `name`, or by its key where it has none. " +
					"Every node of the waves must be here when `firmware.bmc` or `firmware.bios` is set; the BMC's login falls back " +
					"to the provider's `bmc` block.",
			},
			"hcas": schema.MapAttribute{
				Optional: true, ElementType: types.ObjectType{AttrTypes: rolloutHCAAttrTypes},
				MarkdownDescription: "The HCAs whose firmware `firmware.hca` rolls out: a map of `gpucluster_hca` (e.g. " +
					"`gpucluster_hca.all`) or of objects `{ name, node, device, mst_device, ssh_host, tool, ssh }` of the same shape. " +
					"A card goes down in the wave of its `node`; cards of nodes in no wave are left alone. flint runs over SSH " +
					"on `ssh_host` (the provider's `ssh` block, or the card's `ssh`), as for `gpucluster_hca.firmware`.",
			},
			"firmware": schema.SingleNestedAttribute{
				Required:            true,
				MarkdownDescription: "The baseline: `bmc`, `bios` and `images` as `gpucluster_node.firmware` takes them, and `hca` as `gpucluster_hca.firmware` takes it.",
				Attributes: map[string]schema.Attribute{
					"bmc":  version("BMC"),
					"bios": version("BIOS"),
					"images": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "Where each BMC fetches the images from.",
						Attributes: map[string]schema.Attribute{"bmc": image("BMC"), "bios": image("BIOS")}},
					"hca": rolloutHCAFirmwareAttribute(),
				},
			},
			"parallelism": schema.Int64Attribute{Optional: true,
				MarkdownDescription: fmt.Sprintf("Most nodes of one wave updated at once (default %d, Terraform's own `-parallelism`).", defaultRolloutParallelism),
				Validators:          []validator.Int64{int64validator.AtLeast(1)}},
			"running": schema.MapAttribute{Computed: true, ElementType: types.ObjectType{AttrTypes: rolloutRunningAttrTypes},
				MarkdownDescription: "The versions each node of the waves runs (`bmc`, `bios`), by node: refresh reads them, so a node " +
					"taken off the baseline outside Terraform shows in the next plan."},
			"updates": schema.ListAttribute{Computed: true, ElementType: types.ObjectType{AttrTypes: rolloutUpdateAttrTypes},
				MarkdownDescription: "The updates of the rollout, wave by wave: `{ wave, node, component, device, from, to }` (`wave` " +
					"counts from 1; `component` is `bios`, `bmc` or `hca`, `device` the HCA's `device` for `hca` and null otherwise; " +
					"the BIOS of a node before its BMC, whose update restarts it, then its HCAs in device order). Kept from the last " +
					"rollout while every node and card is at the baseline."},
			"running_hcas": schema.MapAttribute{Computed: true, ElementType: types.ObjectType{AttrTypes: rolloutRunningHCAAttrTypes},
				MarkdownDescription: "The firmware on the flash of each card of the waves (`{ node, device, version, psid }`, by HCA " +
					"name), as refresh and the plan read it (each queries the cards, one command per node) and apply read it back: a " +
					"card changed outside Terraform shows as drift. " +
					"A burned image runs after a firmware reset (`gpucluster_hca_reset`) or a reboot; apply warns of it per node."},
			"summary": schema.StringAttribute{Computed: true,
				MarkdownDescription: "One line per wave, for the plan and the change ticket: the proof that the wave keeps " +
					"`policy.degraded`, the nodes to drain, and its updates."},
		},
		Blocks: map[string]schema.Block{"timeouts": timeouts.Block(ctx, timeouts.Opts{Create: true, Read: true, Update: true,
			CreateDescription: "Bound on the whole rollout (default 2h).", UpdateDescription: "Bound on the whole rollout (default 2h).",
			ReadDescription: "Bound on reading every node's versions (default 5m)."})},
	}
}

// rolloutInputs is the rollout's configuration, read.
type rolloutInputs struct {
	waves []rolloutWaveModel
	nodes map[string]types.Object // by node name: its bmc object
	keys  map[string]string       // node name -> key in nodes, for error paths
	fw    nodeFirmwareModel
	imgs  nodeFirmwareImagesModel
	hcaFW hcaFirmwareModel         // firmware.hca; all null without it
	cards map[string][]rolloutCard // by node: its cards in hcas
}

// rolloutFirmwareModel is the rollout's firmware: gpucluster_node.firmware's fields and hca.
type rolloutFirmwareModel struct {
	BMC    types.String `tfsdk:"bmc"`
	BIOS   types.String `tfsdk:"bios"`
	Images types.Object `tfsdk:"images"`
	HCA    types.Object `tfsdk:"hca"`
}

// bmcWanted: the rollout has a BMC or BIOS baseline, so its nodes' BMCs are read.
func (in *rolloutInputs) bmcWanted() bool { return !in.fw.BMC.IsNull() || !in.fw.BIOS.IsNull() }

// hcaWanted: the rollout has an HCA baseline.
func (in *rolloutInputs) hcaWanted() bool {
	return !in.hcaFW.Version.IsNull() || !in.hcaFW.Image.IsNull() || !in.hcaFW.PSID.IsNull()
}

func (r *firmwareRolloutResource) inputs(ctx context.Context, m *firmwareRolloutModel, diags *diag.Diagnostics) (*rolloutInputs, bool) {
	if m.Waves.IsUnknown() || m.Nodes.IsUnknown() || m.Firmware.IsUnknown() || m.Firmware.IsNull() {
		return nil, false
	}
	in := &rolloutInputs{nodes: map[string]types.Object{}, keys: map[string]string{}}
	diags.Append(m.Waves.ElementsAs(ctx, &in.waves, false)...)
	var nodes map[string]types.Object
	if !m.Nodes.IsNull() {
		diags.Append(m.Nodes.ElementsAs(ctx, &nodes, false)...)
	}
	var rf rolloutFirmwareModel
	diags.Append(m.Firmware.As(ctx, &rf, objectAsOptions)...)
	if diags.HasError() || rf.HCA.IsUnknown() || rf.Images.IsUnknown() {
		return nil, false
	}
	in.fw = nodeFirmwareModel{BMC: rf.BMC, BIOS: rf.BIOS, Images: rf.Images}
	if !rf.Images.IsNull() {
		diags.Append(rf.Images.As(ctx, &in.imgs, objectAsOptions)...)
	}
	in.hcaFW = hcaFirmwareModel{Version: types.StringNull(), PSID: types.StringNull(), Image: types.StringNull()}
	if !rf.HCA.IsNull() {
		diags.Append(rf.HCA.As(ctx, &in.hcaFW, objectAsOptions)...)
	}
	if !known(in.hcaFW.Version, in.hcaFW.PSID, in.hcaFW.Image) {
		return nil, false
	}
	cards, ok := readCards(ctx, m.HCAs, diags)
	if !ok {
		return nil, false
	}
	in.cards = cards
	if in.hcaWanted() && m.HCAs.IsNull() {
		diags.AddAttributeError(path.Root("hcas"), "An HCA baseline without hcas",
			"firmware.hca is set but hcas is not, so the rollout knows no card to bring to it; give the cards (hcas = gpucluster_hca.all)")
	}
	for k, o := range nodes {
		if o.IsUnknown() {
			return nil, false
		}
		attrs := o.Attributes()
		name := k
		if n, ok := attrs["name"].(types.String); ok && !n.IsNull() {
			if n.IsUnknown() {
				return nil, false
			}
			name = n.ValueString()
		}
		b, _ := attrs["bmc"].(types.Object)
		if b.IsUnknown() {
			return nil, false
		}
		in.nodes[name], in.keys[name] = b, k
	}
	seen := map[string]int{}
	for i, w := range in.waves {
		for _, d := range w.Devices {
			at := path.Root("waves").AtListIndex(i)
			if j, dup := seen[d]; dup {
				diags.AddAttributeError(at, "A node in two waves", fmt.Sprintf("%s is in wave %d and wave %d; each node goes down in one wave (take the waves of gpucluster_maintenance_waves as they are)", d, j+1, i+1))
				continue
			}
			seen[d] = i
			if !in.bmcWanted() {
				continue
			}
			b, ok := in.nodes[d]
			switch {
			case !ok:
				diags.AddAttributeError(path.Root("nodes"), "A node of the waves is not in nodes",
					fmt.Sprintf("wave %d takes down %q, which nodes does not hold; give every node of the waves (nodes = gpucluster_node.all). A rollout updates nodes: the waves' devices must be nodes, not switches", i+1, d))
			case b.IsNull():
				diags.AddAttributeError(path.Root("nodes").AtMapKey(in.keys[d]).AtName("bmc"), "A node of the waves has no BMC",
					fmt.Sprintf("node %q has no bmc, so its firmware cannot be read or updated; give it a bmc block", d))
			default:
				var bm nodeBMCModel
				diags.Append(b.As(ctx, &bm, objectAsOptions)...)
				var protocols []string
				if !bm.Protocols.IsNull() {
					diags.Append(bm.Protocols.ElementsAs(ctx, &protocols, false)...)
				}
				if msg := bmc.CheckFirmwareProtocols(protocols); msg != "" {
					diags.AddAttributeError(path.Root("nodes").AtMapKey(in.keys[d]).AtName("bmc").AtName("protocols"), "Firmware needs Redfish",
						fmt.Sprintf("node %q: %s", d, msg))
				}
			}
		}
	}
	return in, !diags.HasError()
}

// waveNodes lists the nodes of the waves in wave order.
func (in *rolloutInputs) waveNodes() []string {
	var out []string
	for _, w := range in.waves {
		out = append(out, w.Devices...)
	}
	return out
}

// readVersions reads the versions of the named nodes from their BMCs, at most 8 at once.
// Unreachable nodes are errors when mustReach, else warnings and left out.
func (r *firmwareRolloutResource) readVersions(ctx context.Context, in *rolloutInputs, names []string, opTimeout time.Duration, mustReach bool, diags *diag.Diagnostics) map[string]bmc.Firmware {
	out := map[string]bmc.Firmware{}
	perNode := make(map[string]diag.Diagnostics, len(names))
	var mu sync.Mutex
	// One wave of every node: Run is here only a bounded fan-out.
	_, _, _ = waves.Run(ctx, [][]string{names}, 8, func(ctx context.Context, _ int, name string) error {
		var d diag.Diagnostics
		tgt, td := bmcTargetFor(ctx, r.data, name, in.nodes[name], opTimeout)
		d.Append(td...)
		if !d.HasError() {
			if sess, err := bmc.Open(ctx, tgt.cfg); err != nil {
				tgt.fail(&d, "open a session to read its firmware", err)
			} else {
				fw, err := sess.Firmware(ctx)
				sess.Close()
				if err != nil {
					tgt.failLogin(&d, "read its firmware versions", err, true, true)
				} else {
					mu.Lock()
					out[name] = fw
					mu.Unlock()
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if mustReach {
			perNode[name] = d
		} else {
			var w diag.Diagnostics
			for _, e := range d {
				w.AddWarning(e.Summary()+"; versions not refreshed", e.Detail())
			}
			perNode[name] = w
		}
		return nil
	})
	// In the order of the names, not of the answers: the cap (capDiagnosticsBy) shows the first.
	for _, name := range names {
		diags.Append(perNode[name]...)
	}
	return out
}

func runningOf(fw bmc.Firmware) rolloutRunning { return rolloutRunning{BMC: fw.BMC, BIOS: fw.BIOS} }

type rolloutRunning struct{ BMC, BIOS string }

func (v rolloutRunning) get(comp string) string {
	if comp == bmc.FirmwareBIOS {
		return v.BIOS
	}
	return v.BMC
}

func (v *rolloutRunning) set(comp, s string) {
	if comp == bmc.FirmwareBIOS {
		v.BIOS = s
	} else {
		v.BMC = s
	}
}

type rolloutUpdate struct {
	wave                     int
	node, comp, from, to, at string // at: the image
	device, card             string // an HCA's: its device and its name
}

// plan computes the updates wave by wave (the BIOS before the BMC, as gpucluster_node does) and
// the versions each node runs after them; an off-baseline component without an image is an
// error on firmware.images.
func (in *rolloutInputs) plan(running map[string]rolloutRunning, cardUps map[string][]rolloutUpdate, diags *diag.Diagnostics) ([]rolloutUpdate, map[string]rolloutRunning) {
	var ups []rolloutUpdate
	after := map[string]rolloutRunning{}
	missing := map[string]bool{}
	for i, w := range in.waves {
		for _, n := range w.Devices {
			cur := running[n]
			next := cur
			for _, comp := range []string{bmc.FirmwareBIOS, bmc.FirmwareBMC} {
				want, img := in.fw.version(comp), in.imgs.image(comp)
				if want.IsNull() || want.ValueString() == cur.get(comp) {
					continue
				}
				if img.IsNull() {
					if !missing[comp] {
						missing[comp] = true
						diags.AddAttributeError(path.Root("firmware").AtName("images").AtName(comp), "No firmware image for the baseline",
							fmt.Sprintf("%s (and maybe others) runs %s %q, not the baseline %q; set firmware.images.%s to the URI of the %q image, or remove firmware.%s",
								n, strings.ToUpper(comp), cur.get(comp), want.ValueString(), comp, want.ValueString(), comp))
					}
					continue
				}
				ups = append(ups, rolloutUpdate{wave: i + 1, node: n, comp: comp, from: cur.get(comp), to: want.ValueString(), at: img.ValueString()})
				next.set(comp, want.ValueString())
			}
			for _, u := range cardUps[n] {
				u.wave = i + 1
				ups = append(ups, u)
			}
			if in.bmcWanted() {
				after[n] = next
			}
		}
	}
	return ups, after
}

// summary is one line per wave: its proof, the nodes to drain and its updates.
func (in *rolloutInputs) summary(ups []rolloutUpdate) string {
	var lines []string
	for i, w := range in.waves {
		proof := "no proof given"
		if p := w.Degraded; p != nil {
			proof = fmt.Sprintf("proved: bisection %s of %s Gb/s, ratio %s >= %s required, %d endpoints out of service, worst oversubscription %s",
				fmtNum(p.BisectionLowerGbps.ValueFloat64()), fmtNum(p.FullBisectionGbps.ValueFloat64()), fmtNum(p.BisectionRatio.ValueFloat64()),
				fmtNum(p.RequiredRatio.ValueFloat64()), p.UnreachableEndpoints.ValueInt64(), fmtNum(p.MaxOversubscription.ValueFloat64()))
		}
		drain := "none"
		if len(w.DrainedNodes) > 0 {
			drain = strings.Join(w.DrainedNodes, ", ")
		}
		var what []string
		for _, u := range ups {
			if u.wave == i+1 {
				comp := strings.ToUpper(u.comp)
				if u.device != "" {
					comp += " " + u.device
				}
				what = append(what, fmt.Sprintf("%s %s %s -> %s", u.node, comp, u.from, u.to))
			}
		}
		todo := "nothing to update"
		if len(what) > 0 {
			todo = strings.Join(what, ", ")
		}
		lines = append(lines, fmt.Sprintf("wave %d of %d (%s; drain %s): %s", i+1, len(in.waves), proof, drain, todo))
	}
	return strings.Join(lines, "\n")
}

func fmtNum(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.4f", f), "0"), ".")
}

func runningValue(m map[string]rolloutRunning, diags *diag.Diagnostics) types.Map {
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	elems := map[string]attr.Value{}
	for n, v := range m {
		o, d := types.ObjectValue(rolloutRunningAttrTypes, map[string]attr.Value{"bmc": str(v.BMC), "bios": str(v.BIOS)})
		diags.Append(d...)
		elems[n] = o
	}
	out, d := types.MapValue(types.ObjectType{AttrTypes: rolloutRunningAttrTypes}, elems)
	diags.Append(d...)
	return out
}

func runningFrom(ctx context.Context, v types.Map, diags *diag.Diagnostics) map[string]rolloutRunning {
	out := map[string]rolloutRunning{}
	if v.IsNull() || v.IsUnknown() {
		return out
	}
	var m map[string]struct {
		BMC  types.String `tfsdk:"bmc"`
		BIOS types.String `tfsdk:"bios"`
	}
	diags.Append(v.ElementsAs(ctx, &m, false)...)
	for n, x := range m {
		out[n] = rolloutRunning{BMC: x.BMC.ValueString(), BIOS: x.BIOS.ValueString()}
	}
	return out
}

func updatesValue(ups []rolloutUpdate, diags *diag.Diagnostics) types.List {
	elems := []attr.Value{}
	for _, u := range ups {
		dev := types.StringNull()
		if u.device != "" {
			dev = types.StringValue(u.device)
		}
		o, d := types.ObjectValue(rolloutUpdateAttrTypes, map[string]attr.Value{
			"wave": types.Int64Value(int64(u.wave)), "node": types.StringValue(u.node), "component": types.StringValue(u.comp),
			"from": types.StringValue(u.from), "to": types.StringValue(u.to), "device": dev,
		})
		diags.Append(d...)
		elems = append(elems, o)
	}
	out, d := types.ListValue(types.ObjectType{AttrTypes: rolloutUpdateAttrTypes}, elems)
	diags.Append(d...)
	return out
}

// ModifyPlan reads what each node of the waves runs (from the refreshed state; a node the state
// does not hold yet is read from its BMC now) and plans the updates wave by wave. With every
// node at the baseline it keeps the last rollout's updates and summary, so nothing changes.
func (r *firmwareRolloutResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// One diagnostic per node or card of the waves, thousands of them: capped per cause.
	defer func() { resp.Diagnostics = capDiagnosticsBy(resp.Diagnostics, bySubject) }()
	if req.Plan.Raw.IsNull() {
		return
	}
	var m firmwareRolloutModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = types.StringValue("rollout")
	in, ok := r.inputs(ctx, &m, &resp.Diagnostics)
	if !ok {
		if !resp.Diagnostics.HasError() {
			m.Running, m.Updates, m.Summary = types.MapUnknown(types.ObjectType{AttrTypes: rolloutRunningAttrTypes}),
				types.ListUnknown(types.ObjectType{AttrTypes: rolloutUpdateAttrTypes}), types.StringUnknown()
			m.RunningHCAs = types.MapUnknown(types.ObjectType{AttrTypes: rolloutRunningHCAAttrTypes})
			resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
		}
		return
	}
	var prior *firmwareRolloutModel
	running := map[string]rolloutRunning{}
	if !req.State.Raw.IsNull() {
		prior = &firmwareRolloutModel{}
		resp.Diagnostics.Append(req.State.Get(ctx, prior)...)
		running = runningFrom(ctx, prior.Running, &resp.Diagnostics)
	}
	var unread []string
	for _, n := range in.waveNodes() {
		if _, ok := running[n]; !ok && in.bmcWanted() {
			unread = append(unread, n)
		}
	}
	if len(unread) > 0 {
		for n, fw := range r.readVersions(ctx, in, unread, defaultHCAReadTimeout, true, &resp.Diagnostics) {
			running[n] = runningOf(fw)
		}
		if resp.Diagnostics.HasError() {
			return
		}
	}
	// The cards are read at every plan (one command per node): their state is on the nodes, and
	// the PSID check must see the card and the image as they are now.
	cardUps, cardsAfter := map[string][]rolloutUpdate{}, map[string]cardRead{}
	if in.hcaWanted() {
		var nodes []string
		for _, n := range in.waveNodes() {
			if len(in.cards[n]) > 0 {
				nodes = append(nodes, n)
			}
		}
		read, images := r.queryCards(ctx, in, nodes, known1(in.hcaFW.Image), &resp.Diagnostics)
		if resp.Diagnostics.HasError() {
			return
		}
		if cardUps, cardsAfter = in.planCards(read, images, &resp.Diagnostics); resp.Diagnostics.HasError() {
			return
		}
	}
	ups, after := in.plan(running, cardUps, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	m.Running = runningValue(after, &resp.Diagnostics)
	m.RunningHCAs = runningHCAsValue(cardsAfter, &resp.Diagnostics)
	if len(ups) == 0 && prior != nil && !prior.Updates.IsNull() {
		m.Updates, m.Summary = prior.Updates, prior.Summary
	} else {
		m.Updates, m.Summary = updatesValue(ups, &resp.Diagnostics), types.StringValue(in.summary(ups))
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, &m)...)
}

func (r *firmwareRolloutResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	// One diagnostic per node or card of the waves, thousands of them: capped per cause.
	defer func() { resp.Diagnostics = capDiagnosticsBy(resp.Diagnostics, bySubject) }()
	var m firmwareRolloutModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Create(ctx, defaultRolloutTimeout)
	resp.Diagnostics.Append(d...)
	r.apply(ctx, &m, nil, timeout, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *firmwareRolloutResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	// One diagnostic per node or card of the waves, thousands of them: capped per cause.
	defer func() { resp.Diagnostics = capDiagnosticsBy(resp.Diagnostics, bySubject) }()
	var m, prior firmwareRolloutModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &prior)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Update(ctx, defaultRolloutTimeout)
	resp.Diagnostics.Append(d...)
	r.apply(ctx, &m, &prior, timeout, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// apply runs the planned updates wave by wave (waves.Run). Each node: its updates through one
// session (bmc.Session.UpdateFirmware follows the task to Completed, waiting out the BMC's
// restart), then its versions read back through a new session (a restarted BMC forgets the old
// one) and compared with the baseline. On failure m.Running holds what is known: the read-back
// of the nodes done, the prior versions of the rest.
func (r *firmwareRolloutResource) apply(ctx context.Context, m, prior *firmwareRolloutModel, timeout time.Duration, diags *diag.Diagnostics) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in, ok := r.inputs(ctx, m, diags)
	if !ok {
		if !diags.HasError() {
			diags.AddError("Unknown values", "gpucluster_firmware_rollout needs waves, nodes and firmware known at apply.")
		}
		return
	}
	var planned []struct {
		Wave      types.Int64  `tfsdk:"wave"`
		Node      types.String `tfsdk:"node"`
		Component types.String `tfsdk:"component"`
		Device    types.String `tfsdk:"device"`
		From      types.String `tfsdk:"from"`
		To        types.String `tfsdk:"to"`
	}
	if !m.Updates.IsUnknown() {
		diags.Append(m.Updates.ElementsAs(ctx, &planned, false)...)
	}
	// The updates to make are the plan's, less those the nodes have already made: a plan with
	// every node at the baseline keeps the last rollout's updates, which are all done.
	planRunning := runningFrom(ctx, m.Running, diags)
	known := map[string]rolloutRunning{}
	notBurned := map[string]string{} // card -> version before its planned burn
	if prior != nil {
		known = runningFrom(ctx, prior.Running, diags)
	}
	cardOf := map[[2]string]string{} // node, device -> HCA name
	for n, cs := range in.cards {
		for _, c := range cs {
			cardOf[[2]string{n, c.device()}] = c.name
		}
	}
	var ups []rolloutUpdate
	for _, p := range planned {
		u := rolloutUpdate{wave: int(p.Wave.ValueInt64()), node: p.Node.ValueString(), comp: p.Component.ValueString(), from: p.From.ValueString(), to: p.To.ValueString()}
		if u.comp == componentHCA {
			u.device, u.at = p.Device.ValueString(), known1(in.hcaFW.Image)
			u.card = cardOf[[2]string{u.node, u.device}]
			// Not skipped when the state says it is done, as the BMC's are: the state of the
			// cards is not refreshed (every plan queries them), and hca.UpdateFirmware burns
			// nothing when the flash already holds the image's version.
			notBurned[u.card] = u.from
			ups = append(ups, u)
			continue
		}
		if k, ok := known[u.node]; ok && k.get(u.comp) == u.to {
			continue // the last rollout's, kept in the plan: already done
		}
		u.at = in.imgs.image(u.comp).ValueString()
		ups = append(ups, u)
	}
	byNode := map[string][]rolloutUpdate{}
	lists := make([][]string, len(in.waves))
	for _, u := range ups {
		if len(byNode[u.node]) == 0 {
			lists[u.wave-1] = append(lists[u.wave-1], u.node)
		}
		byNode[u.node] = append(byNode[u.node], u)
	}
	var nonEmpty [][]string
	var numbers []int
	for i, l := range lists {
		if len(l) > 0 {
			nonEmpty, numbers = append(nonEmpty, l), append(numbers, i+1)
		}
	}
	par := defaultRolloutParallelism
	if !m.Parallelism.IsNull() {
		par = int(m.Parallelism.ValueInt64())
	}
	var mu sync.Mutex
	nodeDiags := map[string]diag.Diagnostics{}
	got := map[string]rolloutRunning{}
	gotCards := map[string]*hca.FirmwareInfo{}
	_, _, err := waves.Run(ctx, nonEmpty, par, func(ctx context.Context, k int, name string) error {
		var d diag.Diagnostics
		var bmcUps, cardUps []rolloutUpdate
		for _, u := range byNode[name] {
			if u.comp == componentHCA {
				cardUps = append(cardUps, u)
			} else {
				bmcUps = append(bmcUps, u)
			}
		}
		ok := true
		var fw bmc.Firmware
		if len(bmcUps) > 0 {
			fw, ok = r.updateNode(ctx, in, numbers[k-1], name, bmcUps, timeout, &d)
		}
		var cards map[string]*hca.FirmwareInfo
		if ok && len(cardUps) > 0 {
			cards, ok = r.updateCards(ctx, in, numbers[k-1], name, cardUps, timeout, &d)
		}
		mu.Lock()
		defer mu.Unlock()
		nodeDiags[name] = d
		if ok && len(bmcUps) > 0 {
			got[name] = runningOf(fw)
		}
		for c, fi := range cards {
			gotCards[c] = fi
		}
		if d.HasError() || !ok {
			return fmt.Errorf("%s failed", name)
		}
		return nil
	})
	names := make([]string, 0, len(nodeDiags))
	for n := range nodeDiags {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		diags.Append(nodeDiags[n]...)
	}
	final := map[string]rolloutRunning{}
	for n, v := range planRunning {
		final[n] = v
		if _, touched := byNode[n]; touched {
			if g, ok := got[n]; ok {
				final[n] = g
			} else if k, ok := known[n]; ok {
				final[n] = k
			}
		}
	}
	m.Running = runningValue(final, diags)
	m.RunningHCAs = finalCards(ctx, m.RunningHCAs, in, gotCards, notBurned, diags)
	if err != nil {
		// Number the failed wave as the plan does, not as Run counted the waves with updates.
		diags.AddError("Firmware rollout stopped", fmt.Sprintf("%s. Nodes of the waves not started keep their firmware; fix the cause and apply again: nodes already at the baseline are not touched again.", renumber(err.Error(), numbers, len(in.waves))))
	}
}

// renumber rewrites Run's "wave k of n" (k counting only the waves with updates) as the plan's
// wave number.
func renumber(msg string, numbers []int, total int) string {
	for k := len(numbers); k >= 1; k-- {
		msg = strings.ReplaceAll(msg, fmt.Sprintf("wave %d of %d", k, len(numbers)), fmt.Sprintf("wave %d of %d", numbers[k-1], total))
	}
	if i := strings.Index(msg, "; wave"); i >= 0 {
		msg = msg[:i] + "; the waves after it were not started"
	}
	return msg
}

// updateNode updates one node's components and reads its versions back.
func (r *firmwareRolloutResource) updateNode(ctx context.Context, in *rolloutInputs, wave int, name string, ups []rolloutUpdate, timeout time.Duration, diags *diag.Diagnostics) (bmc.Firmware, bool) {
	tgt, d := bmcTargetFor(ctx, r.data, name, in.nodes[name], timeout)
	diags.Append(d...)
	if diags.HasError() {
		return bmc.Firmware{}, false
	}
	if r.data != nil && r.data.bmcOwners != nil {
		r.data.bmcOwners.Claim(tgt.cfg, tgt.node)
	}
	sess, err := bmc.Open(ctx, tgt.cfg)
	if err != nil {
		tgt.fail(diags, fmt.Sprintf("open a session for wave %d", wave), err)
		return bmc.Firmware{}, false
	}
	for _, u := range ups {
		progress(ctx, "firmware rollout wave %d: %s %s %s -> %s", wave, name, strings.ToUpper(u.comp), u.from, u.to)
		if _, err := sess.UpdateFirmware(ctx, u.comp, u.at, u.to); err != nil {
			sess.Close()
			tgt.failLogin(diags, fmt.Sprintf("update its %s firmware to %s (wave %d)", strings.ToUpper(u.comp), u.to, wave), err, true, true)
			return bmc.Firmware{}, false
		}
	}
	sess.Close()
	if sess, err = bmc.Open(ctx, tgt.cfg); err != nil {
		tgt.failLogin(diags, "open a session to read the new firmware back", err, false, true)
		return bmc.Firmware{}, false
	}
	defer sess.Close()
	fw, err := sess.Firmware(ctx)
	if err != nil {
		tgt.failLogin(diags, "read its firmware versions back", err, true, true)
		return bmc.Firmware{}, false
	}
	for _, u := range ups {
		if got := runningOf(fw).get(u.comp); got != u.to {
			diags.AddError(fmt.Sprintf("Node %s: %s firmware not at the baseline after wave %d", name, strings.ToUpper(u.comp), wave),
				fmt.Sprintf("Node %q: the update to %s %s completed but the BMC reports %q; check the image at %s.", name, strings.ToUpper(u.comp), u.to, got, u.at))
		}
	}
	progress(ctx, "firmware rollout wave %d: %s reads back BMC %s, BIOS %s", wave, name, fw.BMC, fw.BIOS)
	return fw, true
}

// Read refreshes the versions each node of the waves runs (with a BMC or BIOS baseline); a node
// that does not answer keeps its last known versions, with a warning.
func (r *firmwareRolloutResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	// One diagnostic per node or card of the waves, thousands of them: capped per cause.
	defer func() { resp.Diagnostics = capDiagnosticsBy(resp.Diagnostics, bySubject) }()
	var m firmwareRolloutModel
	resp.Diagnostics.Append(req.State.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	timeout, d := m.Timeouts.Read(ctx, defaultHCAReadTimeout)
	resp.Diagnostics.Append(d...)
	in, ok := r.inputs(ctx, &m, &resp.Diagnostics)
	if !ok {
		return
	}
	running := runningFrom(ctx, m.Running, &resp.Diagnostics)
	if in.bmcWanted() {
		for n, fw := range r.readVersions(ctx, in, in.waveNodes(), timeout, false, &resp.Diagnostics) {
			running[n] = runningOf(fw)
		}
	}
	// The cards too (one command per node): the plan reads them again anyway, but the state and
	// the plan's "before" must show a card changed outside Terraform.
	if in.hcaWanted() && !m.RunningHCAs.IsNull() && !m.RunningHCAs.IsUnknown() {
		m.RunningHCAs = r.refreshCards(ctx, in, m.RunningHCAs, &resp.Diagnostics)
	}
	m.Running = runningValue(running, &resp.Diagnostics)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

// Delete forgets the rollout; the nodes keep their firmware.
func (r *firmwareRolloutResource) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {
}
