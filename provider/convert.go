package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// objectAsOptions converts objects leniently: unknown and null nested values become the zero
// value, since plan-time checks handle unknowns themselves.
var objectAsOptions = basetypes.ObjectAsOptions{UnhandledNullAsEmpty: true, UnhandledUnknownAsEmpty: true}

func textList(ss []string) types.List {
	vs := make([]attr.Value, len(ss))
	for i, s := range ss {
		vs[i] = types.StringValue(s)
	}
	return types.ListValueMust(types.StringType, vs)
}
