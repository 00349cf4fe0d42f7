package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// nodeRef is gpucluster_node_power's `node`: one gpucluster_node (instanceRef says what that is).
var nodeRef = instanceRef{attr: "node", typeName: "gpucluster_node", res: &nodeResource{}, example: "gpu001",
	why: "The action powers that node's own bmc and names it by its name, so that it cannot power one machine " +
		"while naming another."}

// nodeAttributeNames is every attribute of gpucluster_node, sorted.
func nodeAttributeNames(ctx context.Context) []string { return nodeRef.attributeNames(ctx) }

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
	attrs, d := nodeRef.of(ctx, node, "name", "bmc")
	diags.Append(d...)
	if attrs == nil {
		return "", bmcObj, diags
	}
	n, _ := attrs["name"].(types.String)
	b, _ := attrs["bmc"].(types.Object)
	if n.IsUnknown() || b.IsUnknown() {
		return "", bmcObj, diags
	}
	if b.IsNull() {
		diags.AddAttributeError(path.Root("node"), "The node has no bmc",
			fmt.Sprintf("gpucluster_node %q has no bmc, so the provider cannot reach its power: give the node a bmc "+
				"(endpoint, protocols) first.", n.ValueString()))
		return "", bmcObj, diags
	}
	return n.ValueString(), b, diags
}

// underNode moves the errors bmcTargetFor puts on `bmc.<field>` (a node's attribute) to
// `node.bmc.<field>`, where gpucluster_node_power takes the node's bmc.
func underNode(in diag.Diagnostics) diag.Diagnostics { return underAttr("node", in) }
