package provider

import "github.com/hashicorp/terraform-plugin-framework/types/basetypes"

// objectAsOptions converts objects leniently: unknown and null nested values become the zero
// value, since plan-time checks handle unknowns themselves.
var objectAsOptions = basetypes.ObjectAsOptions{UnhandledNullAsEmpty: true, UnhandledUnknownAsEmpty: true}
