package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxNames is how many names a message lists before "and N more": enough to act on (the first
// leaves to recable) and short enough to read in a CI log.
const maxNames = 5

// exceeds reports m > limit with a relative tolerance, so that 1.0000000001:1 computed from
// float sums does not fail a 1:1 policy.
func exceeds(m, limit float64) bool { return m > limit*(1+1e-9)+1e-12 }

// below reports m < limit with the same tolerance.
func below(m, limit float64) bool { return m < limit*(1-1e-9)-1e-12 }

// num prints a number as a person would write it: no exponent, at most `prec` decimals, no
// trailing zeros.
func num(x float64, prec int) string {
	if math.IsInf(x, 1) {
		return "infinity"
	}
	p := math.Pow(10, float64(prec))
	return strconv.FormatFloat(math.Round(x*p)/p, 'f', -1, 64)
}

// roundUp rounds x up to prec decimals: for an upper bound, which may be overstated, never
// understated.
func roundUp(x float64, prec int) float64 {
	p := math.Pow(10, float64(prec))
	return math.Ceil(x*p-1e-9) / p
}

// ratio prints a down:up ratio ("1.33:1"). Two decimals are enough unless rounding would make a
// failing value print like its limit ("1:1 ... allows at most 1:1"): then it takes more.
func ratio(m, limit float64) string {
	for prec := 2; prec < 6; prec++ {
		if num(m, prec) != num(limit, prec) || !exceeds(m, limit) {
			return num(m, prec) + ":1"
		}
	}
	return num(m, 6) + ":1"
}

// gbps prints a bandwidth in Gb/s.
func gbps(x float64) string { return num(x, 1) + " Gb/s" }

// percent prints a share as a percentage ("12.5%").
func percent(x float64) string { return num(x*100, 1) + "%" }

// seconds prints a duration estimate with three significant digits.
func seconds(x float64) string { return strconv.FormatFloat(x, 'g', 3, 64) + " s" }

// ports describes a capacity as ports ("32 x 400 Gb/s") when it is a whole number of ports of
// the given rate, and as a bandwidth otherwise (mixed rates).
func ports(capGbps, rate float64) string {
	if rate > 0 {
		n := capGbps / rate
		if n == math.Trunc(n) && n < 1e6 {
			return fmt.Sprintf("%d x %s", int(n), gbps(rate))
		}
	}
	return gbps(capGbps)
}

// names lists the first maxNames names and counts the rest: "a, b, c, d, e and 7 more".
func names(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	if len(list) <= maxNames {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:maxNames], ", "), len(list)-maxNames)
}

// plural returns "1 switch" or "3 switches".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
