package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// specReader converts the fabric's inputs into a fabric.Spec (fabric_inputs.go). It records
// missing required values as attribute errors and reports whether any value the graph depends on
// is still unknown, in which case the analysis waits for apply.
type specReader struct {
	diags   diag.Diagnostics
	unknown bool
}

// str and int read a value of a short list (a handful of elements) at a ready path.
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

func lastStep(p path.Path) string {
	steps := p.Steps()
	if len(steps) == 0 {
		return "value"
	}
	return steps[len(steps)-1].String()
}

func (r *specReader) float(v types.Float64) float64 {
	if v.IsUnknown() {
		r.unknown = true
		return 0
	}
	return v.ValueFloat64()
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
		if len(p.Attrs) > 0 {
			if a, ok := designAttrOf[p.Map+"."+p.Attrs[0].Name]; ok {
				return path.Root("design").AtName(a)
			}
		}
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

// designAttrOf names the design argument behind an attribute of a generated element, where one
// argument sets it for every element; other problems go to the element's Origin (the size).
var designAttrOf = map[string]string{
	"switches.model": "switch_model", "nodes.model": "node_model", "cables.kind": "cable_kind",
	"racks.power_kw": "rack_power_kw", "racks.units": "rack_units", "switches.guid": "switch_guid_base",
	"hcas.port_guid": "hca_guid_base",
	// generated names are a prefix and a number: a name the fabric refuses comes from its prefix
	"racks.name": "prefixes", "switches.name": "prefixes", "nodes.name": "prefixes", "hcas.name": "prefixes",
}

// The models a switch and a node get when the element leaves `model` unset, as the resources and
// the generator do (one source: internal/topogen).
const (
	fabricDefaultSwitchModel = defaultSwitchModel
	fabricDefaultNodeModel   = defaultNodeModel
)
