package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// The fabric's lists take the resource objects themselves (`values(gpucluster_switch.all)`) or
// plain objects of the same shape. Their nested attributes are all Optional: Terraform validates
// list elements as unknown objects first, and the framework would report Required children as
// missing (terraform-plugin-framework issue 186), so presence is checked in ModifyPlan instead.

type fabricRackItem struct {
	Name     types.String  `tfsdk:"name"`
	Row      types.Int64   `tfsdk:"row"`
	Position types.Int64   `tfsdk:"position"`
	Units    types.Int64   `tfsdk:"units"`
	PowerKW  types.Float64 `tfsdk:"power_kw"`
}

type fabricSwitchItem struct {
	Name      types.String `tfsdk:"name"`
	Model     types.String `tfsdk:"model"`
	Rack      types.String `tfsdk:"rack"`
	PositionU types.Int64  `tfsdk:"position_u"`
	Role      types.String `tfsdk:"role"`
	GUID      types.String `tfsdk:"guid"`
	Group     types.String `tfsdk:"group"`
}

type fabricNodeItem struct {
	Name        types.String `tfsdk:"name"`
	Model       types.String `tfsdk:"model"`
	Rack        types.String `tfsdk:"rack"`
	PositionU   types.Int64  `tfsdk:"position_u"`
	ComputeHCAs types.Int64  `tfsdk:"compute_hcas"`
}

type fabricHCAItem struct {
	Name     types.String `tfsdk:"name"`
	Node     types.String `tfsdk:"node"`
	Device   types.String `tfsdk:"device"`
	Model    types.String `tfsdk:"model"`
	PortGUID types.String `tfsdk:"port_guid"`
	Rail     types.Int64  `tfsdk:"rail"`
}

type fabricEnd struct {
	Device types.String `tfsdk:"device"`
	Port   types.Int64  `tfsdk:"port"`
}

type fabricCableItem struct {
	A       *fabricEnd    `tfsdk:"a"`
	B       *fabricEnd    `tfsdk:"b"`
	Kind    types.String  `tfsdk:"kind"`
	LengthM types.Float64 `tfsdk:"length_m"`
}

type fabricMemberItem struct {
	HCA        types.String `tfsdk:"hca"`
	GUID       types.String `tfsdk:"guid"`
	Membership types.String `tfsdk:"membership"`
}

type fabricPartitionItem struct {
	Name    types.String       `tfsdk:"name"`
	PKey    types.String       `tfsdk:"pkey"`
	Members []fabricMemberItem `tfsdk:"members"`
	IPoIB   types.Bool         `tfsdk:"ipoib"`
	MTU     types.Int64        `tfsdk:"mtu"`
	Rate    types.Int64        `tfsdk:"rate"`
	SL      types.Int64        `tfsdk:"sl"`
}

// specReader converts the fabric's lists into a fabric.Spec. It records missing required values
// as attribute errors and reports whether any value the graph depends on is still unknown, in
// which case the analysis waits for apply.
type specReader struct {
	diags   diag.Diagnostics
	unknown bool
}

func (r *specReader) str(v types.String, p path.Path, required bool) string {
	if v.IsUnknown() {
		r.unknown = true
		return ""
	}
	if v.IsNull() || v.ValueString() == "" {
		if required {
			r.diags.AddAttributeError(p, "Missing required attribute", fmt.Sprintf("%s is required for every element of this list.", lastStep(p)))
		}
		return ""
	}
	return v.ValueString()
}

func (r *specReader) int(v types.Int64, p path.Path, required bool, def int) int {
	if v.IsUnknown() {
		r.unknown = true
		return def
	}
	if v.IsNull() {
		if required {
			r.diags.AddAttributeError(p, "Missing required attribute", fmt.Sprintf("%s is required for every element of this list.", lastStep(p)))
		}
		return def
	}
	return int(v.ValueInt64())
}

func (r *specReader) float(v types.Float64) float64 {
	if v.IsUnknown() {
		r.unknown = true
		return 0
	}
	return v.ValueFloat64()
}

func lastStep(p path.Path) string {
	steps := p.Steps()
	if len(steps) == 0 {
		return "value"
	}
	return steps[len(steps)-1].String()
}

// list decodes a list attribute into items, noting unknown lists.
func listItems[T any](ctx context.Context, r *specReader, l types.List) []T {
	if l.IsUnknown() {
		r.unknown = true
		return nil
	}
	if l.IsNull() {
		return nil
	}
	for _, e := range l.Elements() {
		if e.IsUnknown() {
			r.unknown = true
			return nil
		}
	}
	var out []T
	r.diags.Append(l.ElementsAs(ctx, &out, true)...)
	return out
}

func (r *specReader) spec(ctx context.Context, m *fabricModel) *fabric.Spec {
	s := &fabric.Spec{}
	for i, it := range listItems[fabricRackItem](ctx, r, m.Racks) {
		p := path.Root("racks").AtListIndex(i)
		s.Racks = append(s.Racks, fabric.Rack{
			Name: r.str(it.Name, p.AtName("name"), true), Row: r.int(it.Row, p.AtName("row"), true, 0),
			Position: r.int(it.Position, p.AtName("position"), true, 0), Units: r.int(it.Units, p.AtName("units"), false, 0),
			PowerKW: r.float(it.PowerKW),
		})
	}
	for i, it := range listItems[fabricSwitchItem](ctx, r, m.Switches) {
		p := path.Root("switches").AtListIndex(i)
		model := r.str(it.Model, p.AtName("model"), false)
		if model == "" {
			model = fabricDefaultSwitchModel
		}
		s.Switches = append(s.Switches, fabric.Switch{
			Name: r.str(it.Name, p.AtName("name"), true), Model: model, Rack: r.str(it.Rack, p.AtName("rack"), false),
			PositionU: r.int(it.PositionU, p.AtName("position_u"), false, 0), Role: r.str(it.Role, p.AtName("role"), false),
			GUID: r.str(it.GUID, p.AtName("guid"), false), Group: r.str(it.Group, p.AtName("group"), false),
		})
	}
	for i, it := range listItems[fabricNodeItem](ctx, r, m.Nodes) {
		p := path.Root("nodes").AtListIndex(i)
		model := r.str(it.Model, p.AtName("model"), false)
		if model == "" {
			model = fabricDefaultNodeModel
		}
		s.Nodes = append(s.Nodes, fabric.Node{
			Name: r.str(it.Name, p.AtName("name"), true), Model: model, Rack: r.str(it.Rack, p.AtName("rack"), false),
			PositionU: r.int(it.PositionU, p.AtName("position_u"), false, 0), ComputeHCAs: r.int(it.ComputeHCAs, p.AtName("compute_hcas"), false, 0),
		})
	}
	for i, it := range listItems[fabricHCAItem](ctx, r, m.HCAs) {
		p := path.Root("hcas").AtListIndex(i)
		node := r.str(it.Node, p.AtName("node"), true)
		device := r.str(it.Device, p.AtName("device"), true)
		name := r.str(it.Name, p.AtName("name"), false)
		if name == "" {
			name = fabric.HCAName(node, device)
		}
		s.HCAs = append(s.HCAs, fabric.HCA{
			Name: name, Node: node, Device: device, Model: r.str(it.Model, p.AtName("model"), false),
			PortGUID: r.str(it.PortGUID, p.AtName("port_guid"), false), Rail: r.int(it.Rail, p.AtName("rail"), false, -1),
		})
	}
	end := func(e *fabricEnd, p path.Path) fabric.End {
		if e == nil {
			r.diags.AddAttributeError(p, "Missing required attribute", fmt.Sprintf("%s = { device, port } is required for every cable.", lastStep(p)))
			return fabric.End{}
		}
		return fabric.End{Device: r.str(e.Device, p.AtName("device"), true), Port: r.int(e.Port, p.AtName("port"), true, 0)}
	}
	for i, it := range listItems[fabricCableItem](ctx, r, m.Cables) {
		p := path.Root("cables").AtListIndex(i)
		s.Cables = append(s.Cables, fabric.Cable{
			A: end(it.A, p.AtName("a")), B: end(it.B, p.AtName("b")),
			Kind: r.str(it.Kind, p.AtName("kind"), false), LengthM: r.float(it.LengthM),
		})
	}
	for i, it := range listItems[fabricPartitionItem](ctx, r, m.Partitions) {
		p := path.Root("partitions").AtListIndex(i)
		part := fabric.Partition{
			Name: r.str(it.Name, p.AtName("name"), true), PKey: r.str(it.PKey, p.AtName("pkey"), true),
			IPoIB: it.IPoIB.ValueBool(), MTU: r.int(it.MTU, p.AtName("mtu"), false, 0),
			RateGbps: r.int(it.Rate, p.AtName("rate"), false, 0), SL: r.int(it.SL, p.AtName("sl"), false, 0),
		}
		for j, mem := range it.Members {
			mp := p.AtName("members").AtListIndex(j)
			membership := r.str(mem.Membership, mp.AtName("membership"), false)
			if membership == "" {
				membership = "full"
			}
			part.Members = append(part.Members, fabric.Member{
				HCA: r.str(mem.HCA, mp.AtName("hca"), false), GUID: r.str(mem.GUID, mp.AtName("guid"), false), Membership: membership,
			})
		}
		s.Partitions = append(s.Partitions, part)
	}
	return s
}

// problemPath turns a fabric.Path into the attribute path of the fabric resource.
func problemPath(p fabric.Path) path.Path {
	if p.List == "" {
		return path.Empty()
	}
	out := path.Root(p.List).AtListIndex(p.Index)
	for _, a := range p.Attrs {
		var n int
		if _, err := fmt.Sscanf(a, "%d", &n); err == nil && fmt.Sprint(n) == a {
			out = out.AtListIndex(n)
		} else {
			out = out.AtName(a)
		}
	}
	return out
}

// The models a switch and a node get when the element leaves `model` unset, as the resources do.
const (
	fabricDefaultSwitchModel = "QM9700"
	fabricDefaultNodeModel   = "DGX-H100"
)
