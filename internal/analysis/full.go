package analysis

import "sort"

// FullBisection is the bandwidth a balanced cut must carry for the fabric to be called
// non-blocking: the sum of the floor(N/2) smallest endpoint rates, N = len(rates). With every
// port at B it is floor(N/2) x B. It is the one definition of "full bisection" in the provider:
// Result.FullBisectionGbps, the proved bound's demand D (lower.go), every ratio printed or judged
// (bisection_ratio, analysis.degraded, the policy's messages) divide by it.
//
// Why floor. A balanced cut of N endpoints puts floor(N/2) on one side and ceil(N/2) on the other
// (the definition of bisection bandwidth: W. J. Dally, B. Towles, "Principles and Practices of
// Interconnection Networks", Morgan Kaufmann 2004, section 3.3.1). No traffic can cross the cut
// faster than the smaller side injects or receives it, so the ideal network (every endpoint on one
// crossbar) has a bisection of exactly the smaller side's ports, and with mixed rates the worst
// balanced cut puts the floor(N/2) slowest ports alone on one side. N x B / 2 would ask an odd
// fabric for half a port more than any network can carry: a full fat tree of 1,015 endpoints
// would be judged 0.999 (202,800 of 203,000 Gb/s) where it is exactly non-blocking.
//
// The rates are not modified.
func FullBisection(rates []float64) float64 {
	s := append([]float64(nil), rates...)
	sort.Float64s(s)
	sum := 0.0
	for _, r := range s[:len(s)/2] {
		sum += r
	}
	return sum
}
