package counters

import (
	"sort"
	"time"
)

// Counter names as perfquery prints them (the PortCounters fields of the InfiniBand Architecture
// Specification, Volume 1, section 16.1.3.5). The judgement reads these.
const (
	SymbolErrorCounter       = "SymbolErrorCounter"
	LinkErrorRecoveryCounter = "LinkErrorRecoveryCounter"
	LinkDownedCounter        = "LinkDownedCounter"
	PortRcvErrors            = "PortRcvErrors"
	PortXmitDiscards         = "PortXmitDiscards"
	PortXmitWait             = "PortXmitWait"
)

// widths are the PortCounters field widths in bits (IBA Vol. 1, 16.1.3.5, Table "PortCounters"):
// a counter at 2^width - 1 has saturated. Fields not listed are taken as 64-bit (the
// PortCountersExtended ones), which never saturate in a port's life.
var widths = map[string]uint{
	SymbolErrorCounter:             16,
	LinkErrorRecoveryCounter:       8,
	LinkDownedCounter:              8,
	PortRcvErrors:                  16,
	"PortRcvRemotePhysicalErrors":  16,
	"PortRcvSwitchRelayErrors":     16,
	PortXmitDiscards:               16,
	"PortXmitConstraintErrors":     8,
	"PortRcvConstraintErrors":      8,
	"LocalLinkIntegrityErrors":     4,
	"ExcessiveBufferOverrunErrors": 4,
	"VL15Dropped":                  16,
	"QP1Dropped":                   16,
	"PortXmitData":                 32,
	"PortRcvData":                  32,
	"PortXmitPkts":                 32,
	"PortRcvPkts":                  32,
	PortXmitWait:                   32,
}

// Max is the value at which a counter stops counting: 2^width - 1 for a PortCounters field, the
// largest uint64 otherwise (extended counters, unknown names).
func Max(name string, extended bool) uint64 {
	w, ok := widths[name]
	if !ok || extended {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// Read is the counters of one port at one time.
type Read struct {
	At       time.Time
	Values   map[string]uint64
	Extended bool // PortCountersExtended (perfquery -x): 64-bit counters
}

// Rate is how one counter changed over a window.
type Rate struct {
	Delta     uint64  // how much it counted in the window (a lower bound when Saturated)
	PerSecond float64 // Delta / window
	// Reset: the counter went backwards, so it was cleared in the window (perfquery -R, a node
	// reboot); Delta counts from zero.
	Reset bool
	// Saturated: the counter is at its maximum at the end of the window and no longer counts;
	// Delta and PerSecond are lower bounds. Clear the port's counters to measure again.
	Saturated bool
}

// Rates compares two reads of one port: the window in seconds (last.At - first.At) and, for
// every counter in both, how it changed. A window of zero or less gives no rates.
func Rates(first, last Read) (window float64, rates map[string]Rate) {
	window = last.At.Sub(first.At).Seconds()
	if window <= 0 {
		return window, nil
	}
	rates = make(map[string]Rate, len(last.Values))
	for name, v := range last.Values {
		u, ok := first.Values[name]
		if !ok {
			continue
		}
		r := Rate{Delta: v - u}
		if v < u {
			r.Delta, r.Reset = v, true
		}
		if v == Max(name, last.Extended) {
			r.Saturated = true
		}
		r.PerSecond = float64(r.Delta) / window
		rates[name] = r
	}
	return window, rates
}

// SymbolBER is the symbol error rate per bit of one end over a window: symbol errors counted /
// (link rate x window). ok is false without a SymbolErrorCounter rate or a positive link rate
// and window.
func SymbolBER(rates map[string]Rate, window, rateGbps float64) (ber float64, ok bool) {
	r, has := rates[SymbolErrorCounter]
	if !has || window <= 0 || rateGbps <= 0 {
		return 0, false
	}
	return float64(r.Delta) / (rateGbps * 1e9 * window), true
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
