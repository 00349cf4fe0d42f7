package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// The fabric's lists take the resource objects themselves (`values(gpucluster_switch.all)`) or
// plain objects of the same shape. Their nested attributes are all Optional: Terraform validates
// list elements as unknown objects first, and the framework would report Required children as
// missing (terraform-plugin-framework issue 186), so presence is checked in ModifyPlan instead.

// specReader converts the fabric's lists into a fabric.Spec. It records missing required values
// as attribute errors and reports whether any value the graph depends on is still unknown, in
// which case the analysis waits for apply.
type specReader struct {
	diags   diag.Diagnostics
	unknown bool
}

// loc names an attribute of a list element without building its path: paths are made only for
// the few values that need a diagnostic.
type loc struct {
	list   string
	i      int
	nested string // "" or a nested object ("a", "b") or list ("members")
	j      int    // index in a nested list
	attr   string
	ready  path.Path // set by pathLoc: the whole path, already built
}

func (l loc) path() path.Path {
	if l.list == "" {
		return l.ready
	}
	p := path.Root(l.list).AtListIndex(l.i)
	switch {
	case l.nested == "members":
		p = p.AtName(l.nested).AtListIndex(l.j)
	case l.nested != "":
		p = p.AtName(l.nested)
	}
	return p.AtName(l.attr)
}

func (l loc) at(attr string) loc { l.attr = attr; return l }

// str and int are strAt and intAt for callers that already hold a path (short lists).
func (r *specReader) str(v types.String, p path.Path, required bool) string {
	return r.strAt(v, pathLoc(p), required)
}

func (r *specReader) int(v types.Int64, p path.Path, required bool, def int) int {
	return r.intAt(v, pathLoc(p), required, def)
}

// pathLoc wraps a ready path in a loc.
func pathLoc(p path.Path) loc { return loc{ready: p, attr: lastStep(p)} }

func lastStep(p path.Path) string {
	steps := p.Steps()
	if len(steps) == 0 {
		return "value"
	}
	return steps[len(steps)-1].String()
}

func (r *specReader) strAt(v types.String, l loc, required bool) string {
	if v.IsUnknown() {
		r.unknown = true
		return ""
	}
	if v.IsNull() || v.ValueString() == "" {
		if required {
			r.diags.AddAttributeError(l.path(), "Missing required attribute", fmt.Sprintf("%s is required for every element of this list.", l.attr))
		}
		return ""
	}
	return v.ValueString()
}

func (r *specReader) intAt(v types.Int64, l loc, required bool, def int) int {
	if v.IsUnknown() {
		r.unknown = true
		return def
	}
	if v.IsNull() {
		if required {
			r.diags.AddAttributeError(l.path(), "Missing required attribute", fmt.Sprintf("%s is required for every element of this list.", l.attr))
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

// obj is one element of a fabric list. Elements are read straight from their attribute values:
// the framework's reflection (ElementsAs) took 10 s and 2.2 GB for a 16,384-endpoint fabric,
// this takes a small fraction of that, so the provider adds little to Terraform's own cost.
type obj map[string]attr.Value

func (o obj) str(k string) types.String {
	if v, ok := o[k].(types.String); ok {
		return v
	}
	return types.StringNull()
}

func (o obj) i64(k string) types.Int64 {
	if v, ok := o[k].(types.Int64); ok {
		return v
	}
	return types.Int64Null()
}

func (o obj) f64(k string) types.Float64 {
	if v, ok := o[k].(types.Float64); ok {
		return v
	}
	return types.Float64Null()
}

func (o obj) boolean(k string) types.Bool {
	if v, ok := o[k].(types.Bool); ok {
		return v
	}
	return types.BoolNull()
}

// child returns a nested object attribute; ok is false when it is null.
func (r *specReader) child(o obj, k string) (obj, bool) {
	v, isObj := o[k].(types.Object)
	if !isObj || v.IsNull() {
		return nil, false
	}
	if v.IsUnknown() {
		r.unknown = true
		return nil, false
	}
	return v.Attributes(), true
}

// elems returns the elements of a list attribute as objects, noting unknown lists and elements.
func (r *specReader) elems(v attr.Value) []obj {
	l, ok := v.(types.List)
	if !ok || l.IsNull() {
		return nil
	}
	if l.IsUnknown() {
		r.unknown = true
		return nil
	}
	raw := l.Elements()
	out := make([]obj, 0, len(raw))
	for _, e := range raw {
		o, ok := e.(types.Object)
		if !ok || o.IsUnknown() {
			r.unknown = true
			return nil
		}
		out = append(out, o.Attributes())
	}
	return out
}

func (r *specReader) spec(_ context.Context, m *fabricModel) *fabric.Spec {
	s := &fabric.Spec{}
	racks := r.elems(m.Racks)
	s.Racks = make([]fabric.Rack, 0, len(racks))
	for i, it := range racks {
		p := loc{list: "racks", i: i}
		s.Racks = append(s.Racks, fabric.Rack{
			Name: r.strAt(it.str("name"), p.at("name"), true), Row: r.intAt(it.i64("row"), p.at("row"), true, 0),
			Position: r.intAt(it.i64("position"), p.at("position"), true, 0), Units: r.intAt(it.i64("units"), p.at("units"), false, 0),
			PowerKW: r.float(it.f64("power_kw")),
		})
	}
	switches := r.elems(m.Switches)
	s.Switches = make([]fabric.Switch, 0, len(switches))
	for i, it := range switches {
		p := loc{list: "switches", i: i}
		model := r.strAt(it.str("model"), p.at("model"), false)
		if model == "" {
			model = fabricDefaultSwitchModel
		}
		s.Switches = append(s.Switches, fabric.Switch{
			Name: r.strAt(it.str("name"), p.at("name"), true), Model: model, Rack: r.strAt(it.str("rack"), p.at("rack"), false),
			PositionU: r.intAt(it.i64("position_u"), p.at("position_u"), false, 0), Role: r.strAt(it.str("role"), p.at("role"), false),
			GUID: r.strAt(it.str("guid"), p.at("guid"), false), Group: r.strAt(it.str("group"), p.at("group"), false),
		})
	}
	nodes := r.elems(m.Nodes)
	s.Nodes = make([]fabric.Node, 0, len(nodes))
	for i, it := range nodes {
		p := loc{list: "nodes", i: i}
		model := r.strAt(it.str("model"), p.at("model"), false)
		if model == "" {
			model = fabricDefaultNodeModel
		}
		s.Nodes = append(s.Nodes, fabric.Node{
			Name: r.strAt(it.str("name"), p.at("name"), true), Model: model, Rack: r.strAt(it.str("rack"), p.at("rack"), false),
			PositionU: r.intAt(it.i64("position_u"), p.at("position_u"), false, 0), ComputeHCAs: r.intAt(it.i64("compute_hcas"), p.at("compute_hcas"), false, 0),
		})
	}
	hcas := r.elems(m.HCAs)
	s.HCAs = make([]fabric.HCA, 0, len(hcas))
	for i, it := range hcas {
		p := loc{list: "hcas", i: i}
		node := r.strAt(it.str("node"), p.at("node"), true)
		device := r.strAt(it.str("device"), p.at("device"), true)
		name := r.strAt(it.str("name"), p.at("name"), false)
		if name == "" {
			name = fabric.HCAName(node, device)
		}
		s.HCAs = append(s.HCAs, fabric.HCA{
			Name: name, Node: node, Device: device, Model: r.strAt(it.str("model"), p.at("model"), false),
			PortGUID: r.strAt(it.str("port_guid"), p.at("port_guid"), false), Rail: r.intAt(it.i64("rail"), p.at("rail"), false, -1),
		})
	}
	end := func(it obj, side string, i int) fabric.End {
		e, ok := r.child(it, side)
		if !ok {
			if !r.unknown {
				r.diags.AddAttributeError(path.Root("cables").AtListIndex(i).AtName(side), "Missing required attribute", fmt.Sprintf("%s = { device, port } is required for every cable.", side))
			}
			return fabric.End{}
		}
		p := loc{list: "cables", i: i, nested: side}
		return fabric.End{Device: r.strAt(e.str("device"), p.at("device"), true), Port: r.intAt(e.i64("port"), p.at("port"), true, 0)}
	}
	cables := r.elems(m.Cables)
	s.Cables = make([]fabric.Cable, 0, len(cables))
	for i, it := range cables {
		p := loc{list: "cables", i: i}
		s.Cables = append(s.Cables, fabric.Cable{
			A: end(it, "a", i), B: end(it, "b", i),
			Kind: r.strAt(it.str("kind"), p.at("kind"), false), LengthM: r.float(it.f64("length_m")),
		})
	}
	for i, it := range r.elems(m.Partitions) {
		p := loc{list: "partitions", i: i}
		part := fabric.Partition{
			Name: r.strAt(it.str("name"), p.at("name"), true), PKey: r.strAt(it.str("pkey"), p.at("pkey"), true),
			IPoIB: it.boolean("ipoib").ValueBool(), MTU: r.intAt(it.i64("mtu"), p.at("mtu"), false, 0),
			RateGbps: r.intAt(it.i64("rate"), p.at("rate"), false, 0), SL: r.intAt(it.i64("sl"), p.at("sl"), false, 0),
		}
		for j, mem := range r.elems(it["members"]) {
			mp := loc{list: "partitions", i: i, nested: "members", j: j}
			membership := r.strAt(mem.str("membership"), mp.at("membership"), false)
			if membership == "" {
				membership = "full"
			}
			part.Members = append(part.Members, fabric.Member{
				HCA: r.strAt(mem.str("hca"), mp.at("hca"), false), GUID: r.strAt(mem.str("guid"), mp.at("guid"), false), Membership: membership,
			})
		}
		s.Partitions = append(s.Partitions, part)
	}
	return s
}

// listItems decodes a short list attribute (a handful of elements) into typed items through the
// framework's reflection. Never use it for the fabric's inventory lists: see obj.
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

// problemPath turns a fabric.Path into the attribute path of the fabric resource: the element of
// an inventory map by key, or, for an element generated from `design`, the design attribute that
// produced it.
func problemPath(p fabric.Path) path.Path {
	if p.Design != "" {
		return path.Root("design").AtName(p.Design)
	}
	if p.Map == "" {
		return path.Empty()
	}
	out := path.Root(p.Map).AtMapKey(p.Key)
	for _, s := range p.Attrs {
		if s.Name == "" {
			out = out.AtListIndex(s.Index)
		} else {
			out = out.AtName(s.Name)
		}
	}
	return out
}

// The models a switch and a node get when the element leaves `model` unset, as the resources do.
const (
	fabricDefaultSwitchModel = "QM9700"
	fabricDefaultNodeModel   = "DGX-H100"
)
