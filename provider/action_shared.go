package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/action"
	aschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// What the actions (Terraform 1.14+: `terraform apply -invoke=action.TYPE.NAME`, or an
// `action_trigger` in a resource's lifecycle) share. They do their work through the same
// internal packages as the resources, with the same locks (one session per BMC, one SSH
// operation per host), timeouts (a `timeouts { invoke }` block), secret handling (credentials
// from the provider's blocks, masked in logs, never in errors) and progress lines.
//
// An action schema can mark nothing sensitive, and write-only attributes are refused in an
// action's configuration (Terraform 1.16 does not announce them for actions), so a secret given
// in an action's configuration shows in the plan unless its value is marked sensitive where it
// comes from (a reference to a resource's sensitive attribute, a sensitive variable,
// sensitive()). The actions' descriptions say so and point to the provider's blocks.

// actionProgress reports one step of an action twice: to Terraform's UI as the action's progress
// (what `terraform apply -invoke` prints) and to the provider's progress log, as the resources'
// steps are (progress.go).
func actionProgress(ctx context.Context, resp *action.InvokeResponse, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	progress(ctx, "%s", msg)
	if resp.SendProgress != nil {
		resp.SendProgress(action.InvokeProgressEvent{Message: msg})
	}
}

// actionAttribute converts a resource schema attribute to the same attribute of an action, so
// that an action takes an object of a resource's shape (`bmc = gpucluster_node.gpu001.bmc`)
// with the same validators and descriptions: one source for both. It knows the attribute kinds
// those objects use; another kind is a programming error, caught by the schema tests.
func actionAttribute(a rschema.Attribute) aschema.Attribute {
	switch a := a.(type) {
	case rschema.StringAttribute:
		desc := a.MarkdownDescription
		if a.Sensitive {
			// The first sentence says what it is; what follows is about state, which an action has not.
			if i := strings.Index(desc, ". "); i > 0 {
				desc = desc[:i+1]
			}
			desc += " An action cannot mark it sensitive: give it " +
				"in the provider's block, or pass a value marked sensitive (a resource's attribute, a sensitive variable, " +
				"`sensitive()`), or the plan shows it."
		}
		return aschema.StringAttribute{Required: a.Required, Optional: a.Optional, MarkdownDescription: desc, Validators: a.Validators}
	case rschema.Int64Attribute:
		return aschema.Int64Attribute{Required: a.Required, Optional: a.Optional, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
	case rschema.BoolAttribute:
		return aschema.BoolAttribute{Required: a.Required, Optional: a.Optional, MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
	case rschema.MapAttribute:
		return aschema.MapAttribute{Required: a.Required, Optional: a.Optional, ElementType: a.ElementType,
			MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
	case rschema.ListAttribute:
		return aschema.ListAttribute{Required: a.Required, Optional: a.Optional, ElementType: a.ElementType,
			MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
	case rschema.SingleNestedAttribute:
		attrs := make(map[string]aschema.Attribute, len(a.Attributes))
		for k, v := range a.Attributes {
			attrs[k] = actionAttribute(v)
		}
		return aschema.SingleNestedAttribute{Required: a.Required, Optional: a.Optional, Attributes: attrs,
			MarkdownDescription: a.MarkdownDescription, Validators: a.Validators}
	}
	panic(fmt.Sprintf("actionAttribute: %T has no action counterpart here", a))
}

// schemaAs asserts the kind of a schema attribute this package built itself; another kind is a
// programming error, caught by TestActionSchemas.
func schemaAs[T any](a any) T {
	v, ok := a.(T)
	if !ok {
		panic(fmt.Sprintf("schema attribute is %T, want %T", a, v))
	}
	return v
}
