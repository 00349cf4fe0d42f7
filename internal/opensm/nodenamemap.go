package opensm

import (
	"fmt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
	"strconv"
	"strings"
)

// ParseNodeNameMap reads a node name map, the file Render writes as node-name-map and that
// OpenSM and the infiniband-diags read with node_name_map_name / --node-name-map. It reads it as
// rdma-core's parser does (util/node_name_map.c, parse_node_map_wrap and map_name): blank lines
// and lines starting with '#' are skipped; a line is a GUID in C's strtoull base 0 (0x-prefixed
// hex, or decimal) followed by white space and the name, which is the first run of characters
// that holds no '"' or '#' (so `0x0002c90000000001 "leaf 01"  # rack 3` names "leaf 01"; trailing
// blanks of an unquoted name are dropped); a line
// without a name maps nothing; the first line for a GUID wins. A line whose GUID cannot be read
// makes those tools ignore the whole file, so it is an error here, with its line number.
func ParseNodeNameMap(text string) (map[GUID]string, error) {
	out := map[GUID]string{}
	var errs []string
	for n, raw := range strings.Split(text, "\n") {
		line := strings.TrimLeft(raw, " \t\r\v\f")
		if line == "" || line[0] == '#' {
			continue
		}
		end := strings.IndexAny(line, " \t\r\v\f#")
		if end < 0 {
			end = len(line)
		}
		num := line[:end]
		base := 10
		digits := num
		if strings.HasPrefix(num, "0x") || strings.HasPrefix(num, "0X") {
			base, digits = 16, num[2:]
		} else if len(num) > 1 && num[0] == '0' {
			base, digits = 8, num[1:]
		}
		v, err := strconv.ParseUint(digits, base, 64)
		if err != nil || digits == "" {
			errs = append(errs, fmt.Sprintf("line %d: %q is not a GUID; write 0x and the hex digits, e.g. 0x0002c90000000001 \"leaf01\"", n+1, Truncate(num, 40)))
			continue
		}
		rest := strings.TrimLeft(line[end:], " \t\r\v\f")
		// Trailing blanks of an unquoted name (`0x... leaf01  # rack 3`) are kept by rdma-core
		// and never meant; they are dropped here.
		name := strings.TrimRight(firstToken(rest, "\"#"), " \t\r\v\f")
		if name == "" {
			continue
		}
		if _, dup := out[GUID(v)]; !dup {
			out[GUID(v)] = name
		}
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("node name map: %s (OpenSM and the diags ignore a map with such a line)", listed.First(errs, listed.Few, "; "))
	}
	return out, nil
}

// firstToken is C's strtok(s, delims) once: the first run of characters not in delims.
func firstToken(s, delims string) string {
	start := 0
	for start < len(s) && strings.IndexByte(delims, s[start]) >= 0 {
		start++
	}
	end := start
	for end < len(s) && strings.IndexByte(delims, s[end]) < 0 {
		end++
	}
	return s[start:end]
}
