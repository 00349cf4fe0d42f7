package importid

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Parse splits an import ID into the leading name and the key=value settings, and rejects keys
// the type does not know, listing the ones it does.
func Parse(id string, known ...string) (name string, kv map[string]string, err error) {
	// A control character (a NUL, a line break) is in no name, port or value an ID can hold, and
	// would pass into the state and the generated files as it is.
	if i := strings.IndexFunc(id, unicode.IsControl); i >= 0 {
		return "", nil, fmt.Errorf("import ID %q holds a control character (%U) at byte %d; an import ID is printable text, NAME[,ATTR=VALUE...]", id, []rune(id[i:])[0], i)
	}
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

// Require reports the mandatory attributes missing from an import ID (all of them, in the order
// given), with the type's syntax.
func Require(id string, kv map[string]string, syntax string, keys ...string) error {
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

// Int reads the whole number of key; set is false when the ID leaves it out.
func Int(kv map[string]string, key string) (n int64, set bool, err error) {
	v, ok := kv[key]
	if !ok {
		return 0, false, nil
	}
	n, err = strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, true, fmt.Errorf("%s=%q is not a whole number", key, v)
	}
	return n, true, nil
}

// Float reads the number of key; set is false when the ID leaves it out.
func Float(kv map[string]string, key string) (f float64, set bool, err error) {
	v, ok := kv[key]
	if !ok {
		return 0, false, nil
	}
	f, err = strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, true, fmt.Errorf("%s=%q is not a number", key, v)
	}
	return f, true, nil
}

// String is the value of key, nil when the ID leaves it out (an empty value is set: "kind=").
func String(kv map[string]string, key string) *string {
	if v, ok := kv[key]; ok {
		return &v
	}
	return nil
}
