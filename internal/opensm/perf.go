package opensm

import (
	"fmt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
	"regexp"
	"strconv"
	"strings"
)

// PortCounters is one block of perfquery output: the counters of one port.
type PortCounters struct {
	LID      int
	Port     int  // 255 (0xFF) is perfquery's "all ports" aggregate
	Extended bool // from `perfquery -x` (PortCountersExtended)
	Counters map[string]uint64
}

var rePerfHeader = regexp.MustCompile(`^# Port (extended )?counters: Lid (\d+) port (\d+)`)

// ParsePerfQuery reads the output of perfquery (infiniband-diags): blocks that start with
// "# Port counters: Lid L port P" (or "# Port extended counters: ...") followed by
// "Name:.....value" lines. Values are decimal or 0x hex. Lines it cannot read are reported;
// everything read is returned.
func ParsePerfQuery(text string) ([]PortCounters, error) {
	var out []PortCounters
	var errs []string
	cur := -1
	for n, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		if m := rePerfHeader.FindStringSubmatch(line); m != nil {
			lid, _ := strconv.Atoi(m[2])
			port, _ := strconv.Atoi(m[3])
			out = append(out, PortCounters{LID: lid, Port: port, Extended: m[1] != "", Counters: map[string]uint64{}})
			cur = len(out) - 1
			continue
		}
		if strings.HasPrefix(line, "#") || strings.HasPrefix(line, "ibwarn:") {
			continue
		}
		name, val, ok := strings.Cut(line, ":")
		if !ok || cur < 0 {
			errs = append(errs, fmt.Sprintf("line %d: cannot read %q", n+1, Truncate(line, 80)))
			continue
		}
		val = strings.TrimLeft(val, ".")
		v, err := strconv.ParseUint(strings.TrimSpace(val), 0, 64)
		if err != nil {
			errs = append(errs, fmt.Sprintf("line %d: counter %s has value %q", n+1, name, strings.TrimSpace(val)))
			continue
		}
		out[cur].Counters[strings.TrimSpace(name)] = v
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("perfquery text: %s", listed.First(errs, listed.Few, "; "))
	}
	return out, nil
}
