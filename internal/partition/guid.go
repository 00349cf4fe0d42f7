package partition

import (
	"fmt"
	"strconv"
	"strings"
)

// GUID is an EUI-64 InfiniBand GUID (node or port).
type GUID uint64

// String renders the GUID the way OpenSM's own files and dumps do: 0x and 16 hex digits.
func (g GUID) String() string { return fmt.Sprintf("0x%016x", uint64(g)) }

// ParseGUID reads a GUID written as 0x-prefixed hex ("0x0002c90300001001", any case, up to 16
// digits), bare hex of 16 digits, or colon-separated bytes as ibstat and sysfs print them
// ("0002:c903:0000:1001" or "00:02:c9:03:00:00:10:01"). Zero is refused: OpenSM treats a zero
// GUID as "no GUID" (osm_prtn_config.c partition_add_port returns an error for it).
func ParseGUID(s string) (GUID, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty GUID")
	}
	var hex string
	switch {
	case strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X"):
		hex = t[2:]
	case strings.Contains(t, ":"):
		hex = strings.ReplaceAll(t, ":", "")
		if len(hex) != 16 {
			return 0, fmt.Errorf("GUID %q: colon form must hold 16 hex digits", s)
		}
	case len(t) == 16:
		hex = t
	default:
		return 0, fmt.Errorf("GUID %q: write it as 0x followed by up to 16 hex digits", s)
	}
	if hex == "" || len(hex) > 16 {
		return 0, fmt.Errorf("GUID %q: expected 1 to 16 hex digits", s)
	}
	v, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("GUID %q: not hexadecimal", s)
	}
	if v == 0 {
		return 0, fmt.Errorf("GUID %q is zero; OpenSM treats a zero GUID as no GUID", s)
	}
	return GUID(v), nil
}
