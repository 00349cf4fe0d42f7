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

// nodeAttributeNames is every attribute of gpucluster_node, sorted: the shape a reference to a
// node (`gpucluster_node.gpu001`) has and an object written in a configuration has not.
func nodeAttributeNames(ctx context.Context) []string {
	var rs resource.SchemaResponse
	(&nodeResource{}).Schema(ctx, resource.SchemaRequest{}, &rs)
	names := make([]string, 0, len(rs.Schema.Attributes))
	for k := range rs.Schema.Attributes {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// powerNodeOf reads gpucluster_node_power's `node`: the gpucluster_node itself, whose name the
// action says and whose own bmc it powers, so that no configuration can name one machine and
// power another (issue 32: `node = "gpu999"` with gpu001's `bmc` powered gpu001 and logged "node
// gpu999"). A value is that node when it has every attribute of gpucluster_node, which a
// reference to the resource has and a name, an object literal, another resource or a whole
// for_each (an object keyed by instance) has not. The old form (`node` a name beside `bmc`) is
// refused with what to write. name is "" and bmcObj null while the node is not known yet (a
// reference at validation), which is not an error; one error per cause.
func powerNodeOf(ctx context.Context, node, oldBMC types.Dynamic) (name string, bmcObj types.Object, diags diag.Diagnostics) {
	bmcObj = types.ObjectNull(nodeBMCAttrTypes)
	if s, ok := node.UnderlyingValue().(basetypes.StringValue); ok {
		given := "gpu001"
		if !s.IsUnknown() && !s.IsNull() && s.ValueString() != "" {
			given = s.ValueString()
		}
		diags.AddAttributeError(path.Root("node"), "node is the gpucluster_node itself, not its name",
			fmt.Sprintf("node is now the node, and the action powers that node's own BMC: write node = "+
				"gpucluster_node.<resource> for the node %q (e.g. gpucluster_node.%s, or gpucluster_node.all[%q] for an "+
				"instance of a for_each) and remove bmc. A name beside a bmc could name one machine and power another.",
				given, given, given))
		return "", bmcObj, diags
	}
	if !oldBMC.IsNull() {
		diags.AddAttributeError(path.Root("bmc"), "bmc is no longer taken: the BMC is the node's own",
			"The action powers the BMC of node (gpucluster_node.<resource>.bmc); a bmc given beside it could be another "+
				"machine's. Remove bmc.")
		return "", bmcObj, diags
	}
	if node.IsNull() || node.IsUnknown() || node.IsUnderlyingValueNull() || node.IsUnderlyingValueUnknown() {
		return "", bmcObj, diags
	}
	o, ok := node.UnderlyingValue().(basetypes.ObjectValue)
	var missing []string
	if ok {
		attrs := o.Attributes()
		for _, k := range nodeAttributeNames(ctx) {
			if _, has := attrs[k]; !has {
				missing = append(missing, k)
			}
		}
	}
	if !ok || len(missing) > 0 {
		what := "a " + strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%T", node.UnderlyingValue()), "basetypes."), "Value")
		if ok {
			shown := strings.Join(missing[:min(len(missing), 5)], ", ")
			if len(missing) > 5 {
				shown += fmt.Sprintf(" and %d more", len(missing)-5)
			}
			what = fmt.Sprintf("an object without %d of gpucluster_node's attributes (%s)", len(missing), shown)
		}
		diags.AddAttributeError(path.Root("node"), "node is not a gpucluster_node",
			fmt.Sprintf("node is %s. It must be one gpucluster_node, as a reference to the resource gives it: "+
				"node = gpucluster_node.gpu001, or gpucluster_node.all[\"gpu001\"] for an instance of a for_each or count. "+
				"The action powers that node's own bmc and names it by its name, so that it cannot power one machine "+
				"while naming another.", what))
		return "", bmcObj, diags
	}
	attrs := o.Attributes()
	n, _ := attrs["name"].(basetypes.StringValue)
	b, _ := attrs["bmc"].(basetypes.ObjectValue)
	if n.IsUnknown() || b.IsUnknown() {
		return "", bmcObj, diags
	}
	if b.IsNull() {
		diags.AddAttributeError(path.Root("node"), "The node has no bmc",
			fmt.Sprintf("gpucluster_node %q has no bmc, so the provider cannot reach its power: give the node a bmc "+
				"(endpoint, protocols) first.", n.ValueString()))
		return "", bmcObj, diags
	}
	// A dynamic value carries numbers as numbers: read the bmc back in the node's own types
	// (port is an int64 there), which have the same Terraform types.
	tv, err := b.ToTerraformValue(ctx)
	var typed attr.Value
	if err == nil {
		typed, err = types.ObjectType{AttrTypes: nodeBMCAttrTypes}.ValueFromTerraform(ctx, tv)
	}
	obj, isObj := typed.(types.Object)
	if err == nil && !isObj {
		err = fmt.Errorf("read as %T", typed)
	}
	if err != nil {
		diags.AddAttributeError(path.Root("node"), "node is not a gpucluster_node",
			fmt.Sprintf("The bmc of node %q is not in the shape of gpucluster_node's bmc: %v.", n.ValueString(), err))
		return "", bmcObj, diags
	}
	return n.ValueString(), obj, diags
}

// underNode moves the errors bmcTargetFor puts on `bmc.<field>` (a node's attribute) to
// `node.bmc.<field>`, where gpucluster_node_power takes the node's bmc.
func underNode(in diag.Diagnostics) diag.Diagnostics {
	out := make(diag.Diagnostics, 0, len(in))
	for _, d := range in {
		dp, ok := d.(diag.DiagnosticWithPath)
		if !ok {
			out = append(out, d)
			continue
		}
		p := path.Root("node")
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
