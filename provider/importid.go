package provider

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Inventory resources (racks, switches, cables, ...) describe hardware; there is no remote object
// to read back on import, so the import ID carries the attributes after the name:
//
//	rack01,row=1,position=3,units=48,power_kw=40
//
// parseImportID splits such an ID into the leading name and the key=value settings, and rejects
// keys the resource does not know, listing the ones it does.
func parseImportID(id string, known ...string) (name string, kv map[string]string, err error) {
	parts := strings.Split(id, ",")
	name = strings.TrimSpace(parts[0])
	if name == "" {
		return "", nil, fmt.Errorf("import ID %q has no name; write it as NAME[,ATTR=VALUE...]", id)
	}
	allowed := map[string]bool{}
	for _, k := range known {
		allowed[k] = true
	}
	kv = map[string]string{}
	for _, p := range parts[1:] {
		k, v, ok := strings.Cut(p, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return "", nil, fmt.Errorf("import ID %q: %q is not ATTR=VALUE", id, p)
		}
		if !allowed[k] {
			sorted := append([]string(nil), known...)
			sort.Strings(sorted)
			return "", nil, fmt.Errorf("import ID %q: unknown attribute %q; valid: %s", id, k, strings.Join(sorted, ", "))
		}
		kv[k] = strings.TrimSpace(v)
	}
	return name, kv, nil
}

// requireImportKeys reports the first mandatory attribute missing from an import ID.
func requireImportKeys(id string, kv map[string]string, syntax string, keys ...string) error {
	var missing []string
	for _, k := range keys {
		if kv[k] == "" {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("import ID %q needs %s: %s", id, strings.Join(missing, " and "), syntax)
	}
	return nil
}

// importString is the import ID's value for key, or null when the ID leaves it out.
func importString(kv map[string]string, key string) types.String {
	if v, ok := kv[key]; ok {
		return types.StringValue(v)
	}
	return types.StringNull()
}

// importInt64 is the import ID's whole number for key, or null when the ID leaves it out.
func importInt64(diags *diag.Diagnostics, kv map[string]string, key string) types.Int64 {
	v, ok := kv[key]
	if !ok {
		return types.Int64Null()
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		diags.AddError("Invalid import ID", fmt.Sprintf("%s=%q is not a whole number", key, v))
		return types.Int64Null()
	}
	return types.Int64Value(n)
}
