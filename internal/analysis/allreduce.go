package analysis

import (
	"fmt"
	"math"
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Defaults of Workload's zero fields.
const (
	DefaultGradientBytesPerParam = 2   // BF16 gradients
	DefaultGPUsPerNode           = 8   // DGX H100 / HGX H100
	DefaultNVLinkGBps            = 450 // NVLink4, 900 GB/s per GPU both directions together
)

// allReduce estimates one gradient all-reduce of S = Parameters * GradientBytesPerParam bytes
// over n GPUs (ring: Patarasuk & Yuan, "Bandwidth optimal all-reduce algorithms for clusters
// of workstations", JPDC 69(2):117-124, 2009), bandwidth terms only: the latency term 2(n-1)*alpha is left
// out, which understates the time of small messages but not of gradient-sized ones (at S of
// gigabytes and alpha of microseconds it is below 1%), and so is the reduction's compute term.
//
// Per-GPU network bandwidth: B_gpu = port rate * BisectionRatio * ports per GPU. Port rate *
// BisectionRatio is the share of its port that every endpoint is proved to get across the worst
// balanced cut (lower.go); the ring's and the rail all-reduce's traffic crosses every bisection,
// so the fabric's bottleneck caps each port there. Where GPUs share an HCA (4 compute HCAs for 8
// GPUs: an HGX build with one HCA per GPU pair) each GPU gets that port's share divided among
// them, so ports per GPU is the node's cabled HCA ports over its GPUs, the smallest over the
// nodes (the slowest node paces a ring). Rates are Gb/s on the wire and bytes are bytes:
// B bytes/s = B * 1e9 / 8.
//
//   - Ring (Patarasuk & Yuan, JPDC 69(2), 2009: bandwidth-optimal, every GPU sends
//     2(n-1)/n * S): T = 2(n-1)/n * S / B_gpu.
//   - Hierarchical, NVLink then rail-aligned InfiniBand (g GPUs a node, nodes = n/g): an
//     intra-node reduce-scatter and all-gather over NVLink, 2(g-1)/g * S / B_nvl, and parallel
//     inter-node all-reduces of the node's S over its g * ports-per-GPU rails,
//     2(nodes-1)/nodes * S / (g * B_gpu).
//
// When the fabric proves no bandwidth at all (BisectionRatio 0: the fabric is in pieces), the
// times are +Inf.
func allReduce(r *Result, w *Workload, f fabricGPUs) *AllReduce {
	bpp := w.GradientBytesPerParam
	if bpp <= 0 {
		bpp = DefaultGradientBytesPerParam
	}
	if f.gpus == 0 { // no node information: one GPU per endpoint
		f = fabricGPUs{gpus: r.Endpoints, perNode: w.GPUsPerNode, portsPerGPU: 1}
	}
	n := w.GPUs
	if n <= 0 {
		n = f.gpus
	}
	g := f.perNode
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
	ar := &AllReduce{BottleneckGbps: r.PortRateGbps * r.BisectionRatio * f.portsPerGPU}
	S := w.Parameters * bpp
	if n <= 1 || S <= 0 {
		return ar
	}
	ib := ar.BottleneckGbps * 1e9 / 8 // bytes per second per GPU
	nvlBps := nvl * 1e9
	nf, gf := float64(n), float64(g)
	ar.RingSeconds = ringTime(nf, S, ib)
	nodes := nf / gf
	ar.HierarchicalSeconds = S / nvlBps * (2 * (gf - 1) / gf)
	if nodes > 1 {
		ar.HierarchicalSeconds += ringTime(nodes, S, gf*ib)
	}
	return ar
}

func ringTime(n, S, bytesPerSec float64) float64 {
	if bytesPerSec <= 0 {
		return math.Inf(1)
	}
	// S is divided first: a gradient near the largest float64 must not overflow on the way.
	return S / bytesPerSec * (2 * (n - 1) / n)
}

// fabricGPUs is what the estimate needs to know of the nodes: the GPUs on nodes with a cabled
// HCA port, the GPUs of the smallest such node, and the fewest cabled ports per GPU.
type fabricGPUs struct {
	gpus        int
	perNode     int
	nodes       int
	portsPerGPU float64
}

// gpusOf counts the GPUs of the nodes whose HCAs reach the fabric. A node's GPUs come from
// w.NodeGPUs, else w.GPUsPerNode, else DefaultGPUsPerNode; HCAs that name no node count as
// one GPU each.
func gpusOf(t *topo, w *Workload) fabricGPUs {
	ports := map[string]int{}
	loose := 0
	for _, e := range t.eps {
		if node := t.g.Devices[e.hca].Node; node != "" {
			ports[node]++
		} else {
			loose++
		}
	}
	def := DefaultGPUsPerNode
	if w != nil && w.GPUsPerNode > 0 {
		def = w.GPUsPerNode
	}
	f := fabricGPUs{gpus: loose, portsPerGPU: math.Inf(1), nodes: len(ports)}
	if loose > 0 {
		f.portsPerGPU, f.perNode = 1, 1
	}
	names := make([]string, 0, len(ports))
	for n := range ports {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		gp := def
		if w != nil && w.NodeGPUs[n] > 0 {
			gp = w.NodeGPUs[n]
		}
		f.gpus += gp
		if f.perNode == 0 || gp < f.perNode {
			f.perNode = gp
		}
		if s := float64(ports[n]) / float64(gp); s < f.portsPerGPU {
			f.portsPerGPU = s
		}
	}
	if math.IsInf(f.portsPerGPU, 1) {
		f.portsPerGPU = 0
	}
	return f
}

// FabricGPUs is the number of GPUs on the nodes whose HCAs are cabled to the fabric, by
// nodeGPUs (NodeGPUs) and DefaultGPUsPerNode for nodes it does not name; an HCA without a node
// counts as one GPU. It is what "GPUs on the fabric" means to the policy (RoCEv2's limit) where
// nodes share HCAs between GPUs, so endpoints undercount them.
func FabricGPUs(g *fabric.Graph, nodeGPUs map[string]int) int {
	if g == nil {
		return 0
	}
	return gpusOf(newTopo(g), &Workload{NodeGPUs: nodeGPUs}).gpus
}

// NodeGPUs returns the GPUs of each node of the spec by name, from its catalog model; nodes
// whose model has no GPU count (or is unknown) are left out, so the default applies to them.
func NodeGPUs(spec *fabric.Spec, cat *catalog.Catalog) map[string]int {
	out := map[string]int{}
	if spec == nil || cat == nil {
		return out
	}
	for _, n := range spec.Nodes {
		if m, ok := cat.Nodes[n.Model]; ok && m.GPUs > 0 {
			out[n.Name] = m.GPUs
		}
	}
	return out
}

// WorkloadError is a workload the fabric cannot run; Attribute names the workload argument.
type WorkloadError struct {
	Attribute string
	Reason    string
}

func (e *WorkloadError) Error() string { return "workload." + e.Attribute + ": " + e.Reason }

// CheckWorkload refuses a workload the fabric cannot hold: more GPUs than the nodes cabled to
// it have. An estimate for such a job would describe a fabric that does not exist. It also
// refuses a gradient of more bytes than a float64 holds (parameters x gradient bytes beyond
// about 1.8e308): the estimate would be +Inf, which the provider can only show as null, and a
// null estimate without a word is what issue 22 found.
func CheckWorkload(g *fabric.Graph, w *Workload) error {
	if g == nil || w == nil {
		return nil
	}
	bpp := w.GradientBytesPerParam
	if bpp <= 0 {
		bpp = DefaultGradientBytesPerParam
	}
	if s := w.Parameters * bpp; math.IsInf(s, 0) || math.IsNaN(s) {
		return &WorkloadError{Attribute: "parameters", Reason: fmt.Sprintf(
			"%g parameters of %g gradient bytes each are more bytes than the provider computes with (about 1.8e308), so no all-reduce time can be estimated; give the model's parameter count, e.g. parameters = 70e9",
			w.Parameters, bpp)}
	}
	if w.GPUs <= 0 {
		return nil
	}
	f := gpusOf(newTopo(g), w)
	if w.GPUs > f.gpus {
		return &WorkloadError{Attribute: "gpus", Reason: fmt.Sprintf(
			"%d GPUs asked, but the fabric has %d (%d nodes with a cabled HCA); set workload.gpus to at most %d, or leave it unset for every GPU",
			w.GPUs, f.gpus, f.nodes, f.gpus)}
	}
	return nil
}
