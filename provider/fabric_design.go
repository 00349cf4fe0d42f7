package provider

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The `design` object: gpucluster_topology's arguments, normalized (topogen.Design.Normalized),
// as the topology's computed `design` and as the input of gpucluster_fabric and the data sources
// that read a fabric. Everything about an argument comes from the generator's argument table
// (topogen.Args): its type and description in the fabric's `design`, in the topology's computed
// `design` and in the topology's own arguments (data_source_topology_design.go), the encoder
// (designValue) and the one decoder both read (decodeArgs). A new argument or kind is a line
// of that table, and nothing here changes. Values are checked by decodeArgs (types, ranges: a 0
// is never read as unset) and topogen.Generate, whose refusals name the argument; they are
// reported on design.<argument>, or on the topology's argument.

func argAttrType(a *topogen.Arg) attr.Type {
	switch a.Type {
	case topogen.ArgInt:
		return types.Int64Type
	case topogen.ArgFloat:
		return types.Float64Type
	case topogen.ArgInts3:
		return types.ListType{ElemType: types.Int64Type}
	case topogen.ArgStringMap:
		return types.MapType{ElemType: types.StringType}
	default: // ArgString, ArgGUID
		return types.StringType
	}
}

// designAttrTypes is the type of `design`, the same in gpucluster_topology and the fabric.
func designAttrTypes() map[string]attr.Type {
	top, nested := topogen.ArgGroups()
	at := make(map[string]attr.Type, len(top)+len(nested))
	for _, a := range top {
		at[a.Name] = argAttrType(a)
	}
	for g, as := range nested {
		o := map[string]attr.Type{}
		for _, a := range as {
			o[a.Name] = argAttrType(a)
		}
		at[g] = types.ObjectType{AttrTypes: o}
	}
	at[plan.AttrAsBuilt] = floorRecordType
	return at
}

func designType() types.ObjectType { return types.ObjectType{AttrTypes: designAttrTypes()} }

var (
	tfNumberList = tftypes.List{ElementType: tftypes.Number}
	tfStringMap  = tftypes.Map{ElementType: tftypes.String}
)

// argSchema is one argument as an Optional input of a resource schema, without validators,
// defaults or plan modifiers (tfwire keeps `design` away from the framework, as the maps); a
// required one says so and is checked by decodeArgs.
func argSchema(a *topogen.Arg) schema.Attribute {
	doc := a.Doc
	if a.Required {
		doc = "Required. " + doc
	}
	switch a.Type {
	case topogen.ArgInt:
		return schema.Int64Attribute{Optional: true, MarkdownDescription: doc}
	case topogen.ArgFloat:
		return schema.Float64Attribute{Optional: true, MarkdownDescription: doc}
	case topogen.ArgInts3:
		return schema.ListAttribute{Optional: true, ElementType: types.Int64Type, MarkdownDescription: doc}
	case topogen.ArgStringMap:
		return schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: doc}
	default:
		return schema.StringAttribute{Optional: true, MarkdownDescription: doc}
	}
}

// designSchema is the fabric's `design` input.
func designSchema() schema.SingleNestedAttribute {
	top, nested := topogen.ArgGroups()
	attrs := map[string]schema.Attribute{}
	for _, a := range top {
		attrs[a.Name] = argSchema(a)
	}
	for g, as := range nested {
		o := map[string]schema.Attribute{}
		for _, a := range as {
			o[a.Name] = argSchema(a)
		}
		attrs[g] = schema.SingleNestedAttribute{Optional: true, MarkdownDescription: topogen.GroupDoc(g), Attributes: o}
	}
	attrs[plan.AttrAsBuilt] = floorRecordSchema()
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "A generated design: `design = data.gpucluster_topology.pod.design`, the generator's arguments " +
			"normalized (defaults filled in, planned sizes resolved; see `gpucluster_topology` for each argument). The fabric " +
			"builds the same graph the data source describes, so the plan shows these few lines rather than thousands of " +
			"items; growing `scalable_units` or `node_count` within the planned size shows as that one argument. Items of the " +
			"maps merge with it by name: an item of a generated name replaces the generated one, a new name adds to it.",
		Attributes: attrs,
	}
}

// argValue encodes one argument of p; unset is null.
func argValue(a *topogen.Arg, p *topogen.Params) tftypes.Value {
	if !a.IsSet(p) {
		return tftypes.NewValue(tfTypeOfAttr(argAttrType(a)), nil)
	}
	switch a.Type {
	case topogen.ArgInt:
		return tfInt(a.Int(p))
	case topogen.ArgFloat:
		return tftypes.NewValue(tftypes.Number, a.Float(p))
	case topogen.ArgGUID:
		return tfStr(topogen.FormatGUID(a.GUID(p)))
	case topogen.ArgInts3:
		d := a.Ints3(p)
		return tftypes.NewValue(tfNumberList, []tftypes.Value{tfInt(d[0]), tfInt(d[1]), tfInt(d[2])})
	case topogen.ArgStringMap:
		m := make(map[string]tftypes.Value, len(a.StringMap(p)))
		for k, v := range a.StringMap(p) {
			m[k] = tfStr(v)
		}
		return tftypes.NewValue(tfStringMap, m)
	default:
		return tfStr(a.String(p))
	}
}

func tfTypeOfAttr(t attr.Type) tftypes.Type { return t.TerraformType(context.Background()) }

// designValue encodes normalized parameters as the `design` object, with the record of the floor
// it is fitted to (floorValue; noFloor without one).
func designValue(p topogen.Params, floor tftypes.Value) tftypes.Value {
	top, nested := topogen.ArgGroups()
	vals := make(map[string]tftypes.Value, len(top)+len(nested))
	for _, a := range top {
		vals[a.Name] = argValue(a, &p)
	}
	for g, as := range nested {
		o := make(map[string]tftypes.Value, len(as))
		for _, a := range as {
			o[a.Name] = argValue(a, &p)
		}
		vals[g] = tftypes.NewValue(tfTypeOfAttr(designAttrTypes()[g]), o)
	}
	vals[plan.AttrAsBuilt] = floor
	return tftypes.NewValue(tfTypeOfAttr(designType()), vals)
}

// decodeDesign reads the `design` object (non-null) into generator parameters; problems are
// attribute errors under design, unknown values set r.unknown.
func (r *specReader) decodeDesign(v tftypes.Value) topogen.Params {
	return r.decodeDesignAt(v, "design")
}

// decodeDesignAt is decodeDesign for a design held by another attribute (gpucluster_bom's
// prior_design): problems are reported under that attribute.
func (r *specReader) decodeDesignAt(v tftypes.Value, attribute string) topogen.Params {
	if !v.IsKnown() {
		r.unknown = true
		return topogen.Params{}
	}
	root := path.Root(attribute)
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		r.diags.AddAttributeError(root, "Cannot read "+attribute, err.Error())
		return topogen.Params{}
	}
	return r.decodeArgs(attrs, func(name string) path.Path { return root.AtName(name) }, attribute+".")
}

// decodeArgs reads the arguments of the table from the attributes of the object holding them
// (the topology's configuration, or a `design`): at gives an argument's path, prefix how a
// message names it ("design." or ""). Null is the default (topogen's zero); a value out of the
// argument's range, 0 included where 0 is not valid, is an error rather than read as unset.
func (r *specReader) decodeArgs(attrs map[string]tftypes.Value, at func(string) path.Path, prefix string) topogen.Params {
	var p topogen.Params
	top, nested := topogen.ArgGroups()
	for _, a := range top {
		r.decodeArg(&p, a, attrs[a.Name], at(a.Name), prefix)
	}
	names := make([]string, 0, len(nested))
	for g := range nested {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		gv, ok := attrs[g]
		switch {
		case !ok || gv.IsNull():
			continue
		case !gv.IsKnown():
			r.unknown = true
			continue
		}
		var inner map[string]tftypes.Value
		if gv.As(&inner) != nil {
			continue
		}
		for _, a := range nested[g] {
			r.decodeArg(&p, a, inner[a.Name], at(g).AtName(a.Name), prefix)
		}
	}
	return p
}

func (r *specReader) decodeArg(p *topogen.Params, a *topogen.Arg, v tftypes.Value, at path.Path, prefix string) {
	name := prefix + a.Path()
	// A nested attribute is named at the start of the detail (Terraform quotes the source line of
	// a top-level one only).
	label := ""
	if prefix != "" {
		label = name + ": "
	}
	switch {
	case v.Type() == nil || v.IsNull():
		if a.Required {
			r.diags.AddAttributeError(at, "Missing required attribute", fmt.Sprintf("%s%s is required.", label, name))
		}
		return
	case !v.IsKnown():
		r.unknown = true
		return
	}
	switch a.Type {
	case topogen.ArgInt:
		if f := tfNumberFloat(v); r.inRange(a, f, at, label) {
			a.SetInt(p, int(f))
		}
	case topogen.ArgFloat:
		if f := tfNumberFloat(v); r.inRange(a, f, at, label) {
			a.SetFloat(p, f)
		}
	case topogen.ArgGUID:
		var s string
		_ = v.As(&s)
		g, err := topogen.ParseGUID(s)
		if err != nil {
			r.diags.AddAttributeError(at, "Invalid GUID", label+err.Error())
			return
		}
		a.SetGUID(p, g)
	case topogen.ArgInts3:
		var l []tftypes.Value
		_ = v.As(&l)
		if len(l) != 3 {
			r.diags.AddAttributeError(at, "Invalid "+a.Name, fmt.Sprintf("%s%s takes 3 sides, e.g. [4, 4, 4]; got %d", label, a.Name, len(l)))
			return
		}
		var d [3]int
		for i := range l {
			if !l[i].IsKnown() {
				r.unknown = true
				return
			}
			d[i] = tfNumberInt(l[i])
		}
		a.SetInts3(p, d)
	case topogen.ArgStringMap:
		var m map[string]tftypes.Value
		_ = v.As(&m)
		out := make(map[string]string, len(m))
		for k, ev := range m {
			if !ev.IsKnown() {
				r.unknown = true
				continue
			}
			var s string
			_ = ev.As(&s)
			out[k] = s
		}
		a.SetStringMap(p, out)
	default:
		var s string
		_ = v.As(&s)
		a.SetString(p, s)
	}
}

// inRange checks a number against its argument's range (topogen.Arg.RangeProblem) and reports the
// problem on the argument, after label.
func (r *specReader) inRange(a *topogen.Arg, v float64, at path.Path, label string) bool {
	if msg := a.RangeProblem(v); msg != "" {
		r.diags.AddAttributeError(at, "Invalid "+a.Name, label+msg)
		return false
	}
	return true
}
