package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Resource identity (Terraform 1.12+, OpenTofu 1.12+): the few attributes that name one resource
// instance, stored beside its state, given in `import` blocks as `identity = { ... }` and returned
// by the list resources for `terraform query`. Every resource sets its identity in Create, Read
// and Update from its own state, so a state written before identity existed gets one at the next
// refresh. The import IDs of before (NAME,ATTR=VALUE,...) keep working beside it.
//
// An identity names, it does not describe: a rack, switch, node, partition and fabric by `name`,
// an HCA by `node` and `device`, a cable by its `label`. What else an import by identity knows
// comes from the identity itself (an HCA's default name, a cable's ends), from the provider's
// `floor` (the fabric on the floor, for switches, nodes, HCAs and cables) and from the hardware
// Read reaches; everything only the configuration says, the first apply records.

// nameIdentity is the identity of the types known by their name.
type nameIdentity struct {
	Name types.String `tfsdk:"name"`
}

// nameIdentitySchema is the identity schema of a type known by its name.
func nameIdentitySchema(what string) identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"name": identityschema.StringAttribute{RequiredForImport: true, Description: "The " + what + "'s `name`."},
	}}
}

// setIdentity records a resource's identity in a Create, Read or Update response. The response
// has no identity holder when the method is called outside the framework (unit tests).
func setIdentity(ctx context.Context, id *tfsdk.ResourceIdentity, v any, diags *diag.Diagnostics) {
	if id == nil {
		return
	}
	diags.Append(id.Set(ctx, v)...)
}

// importByIdentity tells an import by identity (an `import` block with `identity`) from one by
// ID (`terraform import` or an `import` block with `id`).
func importByIdentity(req resource.ImportStateRequest) bool {
	return req.ID == "" && req.Identity != nil && !req.Identity.Raw.IsNull()
}

// identityString reads one string attribute of an import identity and checks it with a fabric
// rule, reporting a bad value once, naming the attribute and what would be right.
func identityString(ctx context.Context, req resource.ImportStateRequest, name string, check func(string) string, diags *diag.Diagnostics) string {
	var v types.String
	diags.Append(req.Identity.GetAttribute(ctx, path.Root(name), &v)...)
	if diags.HasError() {
		return ""
	}
	if v.IsNull() || v.IsUnknown() || v.ValueString() == "" {
		diags.AddError("Invalid import identity", fmt.Sprintf("identity.%s is missing: the import block's identity needs %s = \"...\"", name, name))
		return ""
	}
	if check != nil {
		if msg := check(v.ValueString()); msg != "" {
			diags.AddError("Invalid import identity", fmt.Sprintf("identity.%s: %s", name, msg))
			return ""
		}
	}
	return v.ValueString()
}

// importName is the name of a type known by its name, from an import by identity.
func importName(ctx context.Context, req resource.ImportStateRequest, check func(string) string, diags *diag.Diagnostics) string {
	return identityString(ctx, req, "name", check, diags)
}
