package analysis

import "math"

// Defaults of Workload's zero fields.
const (
	DefaultGradientBytesPerParam = 2   // BF16 gradients
	DefaultGPUsPerNode           = 8   // DGX H100 / HGX H100
	DefaultNVLinkGBps            = 450 // NVLink4, 900 GB/s per GPU both directions together
)

// allReduce estimates one gradient all-reduce of S = Parameters * GradientBytesPerParam bytes
// over n GPUs (FACTS.md section 7), bandwidth terms only: the latency term 2(n-1)*alpha is left
// out, which understates the time of small messages but not of gradient-sized ones (at S of
// gigabytes and alpha of microseconds it is below 1%), and so is the reduction's compute term.
//
// Per-GPU network bandwidth: B_ib = port rate * BisectionRatio, the share of its port that every
// GPU is proved to get across the worst balanced cut (lower.go); the ring's and the rail
// all-reduce's traffic crosses every bisection, so the fabric's bottleneck caps each GPU there.
// Rates are Gb/s on the wire and bytes are bytes: B_ib bytes/s = B_ib * 1e9 / 8.
//
//   - Ring (Patarasuk & Yuan, JPDC 69(2), 2009: bandwidth-optimal, every GPU sends
//     2(n-1)/n * S): T = 2(n-1)/n * S / B_ib.
//   - Hierarchical, NVLink then rail-aligned InfiniBand (g GPUs a node, nodes = n/g): an
//     intra-node reduce-scatter and all-gather over NVLink, 2(g-1)/g * S / B_nvl, and g parallel
//     inter-node all-reduces of S/g, one per rail, 2(nodes-1)/nodes * S / (g * B_ib).
//
// When the fabric proves no bandwidth at all (BisectionRatio 0: the fabric is in pieces), the
// times are +Inf.
func allReduce(r *Result, w *Workload) *AllReduce {
	bpp := w.GradientBytesPerParam
	if bpp <= 0 {
		bpp = DefaultGradientBytesPerParam
	}
	n := w.GPUs
	if n <= 0 {
		n = r.Endpoints
	}
	g := w.GPUsPerNode
	if g <= 0 {
		g = DefaultGPUsPerNode
	}
	if g > n {
		g = n
	}
	nvl := w.NVLinkGBps
	if nvl <= 0 {
		nvl = DefaultNVLinkGBps
	}
	ar := &AllReduce{BottleneckGbps: r.PortRateGbps * r.BisectionRatio}
	S := w.Parameters * bpp
	if n <= 1 || S <= 0 {
		return ar
	}
	ib := ar.BottleneckGbps * 1e9 / 8 // bytes per second
	nvlBps := nvl * 1e9
	nf, gf := float64(n), float64(g)
	ar.RingSeconds = ringTime(nf, S, ib)
	nodes := nf / gf
	ar.HierarchicalSeconds = 2 * (gf - 1) / gf * S / nvlBps
	if nodes > 1 {
		ar.HierarchicalSeconds += 2 * (nodes - 1) / nodes * S / (gf * ib)
	}
	return ar
}

func ringTime(n, S, bytesPerSec float64) float64 {
	if bytesPerSec <= 0 {
		return math.Inf(1)
	}
	return 2 * (n - 1) / n * S / bytesPerSec
}
