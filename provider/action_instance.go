package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// instanceRef describes an action attribute that takes one instance of a resource
// (`node = gpucluster_node.gpu001`, `hca = gpucluster_hca.gpu001_mlx5_0`), so that the action
// acts on what that resource is and names it by its own name: it cannot name one machine and
// act on another (issue 32).
type instanceRef struct {
	attr     string            // the action's attribute, e.g. "node"
	typeName string            // the resource type, e.g. "gpucluster_node"
	res      resource.Resource // its schema is the shape a reference has
	example  string            // a resource name for the messages, e.g. "gpu001"
	why      string            // what the action does with it, the last sentence of a refusal
}

// attributeNames is every attribute of the resource, sorted: the shape a reference to an instance
// has and an object written in a configuration (or another resource) has not.
func (r instanceRef) attributeNames(ctx context.Context) []string {
	var rs resource.SchemaResponse
	r.res.Schema(ctx, resource.SchemaRequest{}, &rs)
	names := make([]string, 0, len(rs.Schema.Attributes))
	for k := range rs.Schema.Attributes {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// of is the one test of "is this value an instance of the resource": it has every attribute of
// the resource's schema, which a reference to the resource (or to one instance of its for_each
// or count) has and a name, an object literal, another resource or a whole for_each (an object
// keyed by instance) or count (a tuple) has not. It returns the wanted attributes read in the
// resource's own types (a dynamic value carries numbers as numbers; the resource's int64 and the
// value's number have the same Terraform type), or nil while the value is not known yet (a
// reference at validation), which is not an error. One error per cause, on the attribute.
func (r instanceRef) of(ctx context.Context, v types.Dynamic, want ...string) (map[string]attr.Value, diag.Diagnostics) {
	var diags diag.Diagnostics
	if v.IsNull() || v.IsUnknown() || v.IsUnderlyingValueNull() || v.IsUnderlyingValueUnknown() {
		return nil, diags
	}
	o, ok := v.UnderlyingValue().(basetypes.ObjectValue)
	var missing []string
	if ok {
		attrs := o.Attributes()
		for _, k := range r.attributeNames(ctx) {
			if _, has := attrs[k]; !has {
				missing = append(missing, k)
			}
		}
	}
	if !ok || len(missing) > 0 {
		what := "a " + strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", v.UnderlyingValue()), "basetypes."), "Value")
		if ok {
			shown := strings.Join(missing[:min(len(missing), 5)], ", ")
			if len(missing) > 5 {
				shown += fmt.Sprintf(" and %d more", len(missing)-5)
			}
			what = fmt.Sprintf("an object without %d of %s's attributes (%s)", len(missing), r.typeName, shown)
		}
		diags.AddAttributeError(path.Root(r.attr), fmt.Sprintf("%s is not a %s", r.attr, r.typeName),
			fmt.Sprintf("%s is %s. It must be one %s, as a reference to the resource gives it: %s = %s.%s, or "+
				"%s.all[%q] for an instance of a for_each or count. %s", r.attr, what, r.typeName, r.attr, r.typeName,
				r.example, r.typeName, r.example, r.why))
		return nil, diags
	}
	var rs resource.SchemaResponse
	r.res.Schema(ctx, resource.SchemaRequest{}, &rs)
	attrs := o.Attributes()
	out := make(map[string]attr.Value, len(want))
	for _, k := range want {
		tv, err := attrs[k].ToTerraformValue(ctx)
		var typed attr.Value
		if err == nil {
			typed, err = rs.Schema.Attributes[k].GetType().ValueFromTerraform(ctx, tv)
		}
		if err != nil {
			diags.AddAttributeError(path.Root(r.attr), fmt.Sprintf("%s is not a %s", r.attr, r.typeName),
				fmt.Sprintf("The %s of %s is not in the shape of %s's %s: %v. %s", k, r.attr, r.typeName, k, err, r.why))
			return nil, diags
		}
		out[k] = typed
	}
	return out, diags
}

// underAttr moves diagnostics made on a resource's attributes (`bmc.endpoint`) under the action
// attribute that takes the resource's instance (`node.bmc.endpoint`).
func underAttr(root string, in diag.Diagnostics) diag.Diagnostics {
	out := make(diag.Diagnostics, 0, len(in))
	for _, d := range in {
		dp, ok := d.(diag.DiagnosticWithPath)
		if !ok {
			out = append(out, d)
			continue
		}
		p := path.Root(root)
		for _, st := range dp.Path().Steps() {
			if a, ok := st.(path.PathStepAttributeName); ok {
				p = p.AtName(string(a))
			}
		}
		if d.Severity() == diag.SeverityError {
			out.AddAttributeError(p, d.Summary(), d.Detail())
		} else {
			out.AddAttributeWarning(p, d.Summary(), d.Detail())
		}
	}
	return out
}
