package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
)

// The inventory types' import IDs (NAME,ATTR=VALUE,...) are read by internal/importid; the types
// whose ID holds only strings and whole numbers map its settings to their model here.
// importString is the import ID's value for key, or null when the ID leaves it out.
func importString(kv map[string]string, key string) types.String {
	return types.StringPointerValue(importid.String(kv, key))
}

// importInt64 is the import ID's whole number for key, or null when the ID leaves it out.
func importInt64(diags *diag.Diagnostics, kv map[string]string, key string) types.Int64 {
	n, set, err := importid.Int(kv, key)
	if err != nil {
		diags.AddError("Invalid import ID", err.Error())
	}
	if err != nil || !set {
		return types.Int64Null()
	}
	return types.Int64Value(n)
}

// addImportErrors reports each problem of an import ID.
func addImportErrors(diags *diag.Diagnostics, errs ...error) {
	for _, err := range errs {
		diags.AddError("Invalid import ID", err.Error())
	}
}
