package provider

import (
	"fmt"
	"sort"
	"strings"
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
