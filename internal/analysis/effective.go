package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Effective bisection bandwidth under static routing: T. Hoefler, T. Schneider, A. Lumsdaine,
// "Multistage switches are not crossbars: effects of static routing in high-performance
// networks", IEEE Cluster 2008 (full-bisection InfiniBand fat trees deliver 55-60% of it to
// random bisection patterns under OpenSM's routes), and P. Geoffray, T. Hoefler, "Adaptive
// routing strategies for modern high performance networks", Hot Interconnects 2008 (a
// non-blocking 512-node Clos as low as 38%).
//
// The model is Hoefler et al.'s:
//   - a bisection pattern splits the endpoints at random into two halves and pairs each
//     endpoint of one half with one of the other (here: a uniformly random perfect matching of
//     all endpoints, which is the same distribution); each pair exchanges one flow in each
//     direction, so every endpoint sends one flow and receives one;
//   - every flow follows the one path the forwarding tables give its destination LID (static
//     routing, LMC 0);
//   - a channel (one direction of a link) shared by k flows gives each 1/k of its rate, and a
//     flow gets the share of the most congested channel on its path. This is the congestion
//     model of the paper, chosen over a max-min fair allocation so the number compares with the
//     published ones, and because InfiniBand's credit-based flow control blocks a flow at its
//     worst hop rather than handing its unused share to others (max-min would be optimistic);
//   - a pattern's ratio is delivered / offered bandwidth, offered being what each flow gets
//     alone (its slowest channel).
//
// Patterns come from a PCG generator with a fixed seed, so the same fabric and routes give the
// same numbers on every plan.

// DefaultSamples is the number of bisection patterns when Routing.Samples is 0.
const DefaultSamples = 100

// DefaultSeed seeds the pattern generator when Routing.Seed is 0.
const DefaultSeed = 0x6770_6375_6c75_7374

// Routing is the subnet manager's configuration, as far as the routes depend on it.
type Routing struct {
	// Engines is routing_engine as OpenSM reads it (opensm.ParseEnginesFor parses it, once):
	// the engines tried in order; empty is OpenSM's default, minhop. NoFallback is the list's
	// no_fallback: without it OpenSM falls back to minhop when every engine fails.
	Engines    []string
	NoFallback bool
	// GUIDs holds switch node GUIDs by device index (HCA entries are not read). The engines
	// order switches by GUID, so the routes depend on them.
	GUIDs []uint64
	// Roots are the root switches (root_guid_file) by device index, in file order.
	Roots   []int32
	Samples int    // bisection patterns; 0: DefaultSamples
	Seed    uint64 // 0: DefaultSeed
}

// Effective is the effective bisection of a fabric under one routing engine.
type Effective struct {
	RoutingEngine string  // the engine whose routes were modelled
	RatioMean     float64 // mean over the patterns of delivered / offered, rounded to 1e-4
	RatioP05      float64 // 5th percentile (nearest rank), rounded to 1e-4
	Samples       int
	// Fallbacks says, for each engine of the list that OpenSM would try first and that fails
	// on this fabric, why (OpenSM then routes with the next one, or minhop).
	Fallbacks []string
}

// Modelled reports whether the routes of engine are modelled.
func Modelled(engine string) bool {
	switch engine {
	case "ftree", "updn", "minhop":
		return true
	}
	return false
}

// Routes are the forwarding tables the model computes: for every switch, the out port towards
// every endpoint's LID.
type Routes struct {
	Engine    string
	Fallbacks []string
	n         *rnet
	lft       lftTable
}

// ComputeRoutes computes the forwarding tables that OpenSM 3.3 would install with r's engine
// list: the first engine that succeeds on the fabric, then minhop (OpenSM's default) unless
// the list says no_fallback. It returns (nil, nil) when the engine that would route is not
// modelled (torus-2QoS, dfsssp, lash, dor, ...), and an error for a configuration of a modelled
// engine that is not (ftree without roots).
//
// The engines are OpenSM 3.3.23's, reproduced from its source (linux-rdma/opensm, tag 3.3.23;
// opensm(8), ROUTING): ftree (opensm/osm_ucast_ftree.c; E. Zahavi, "Fat-tree routing and node
// ordering providing contention free traffic for MPI global collectives", JPDC 72(11), 2012),
// updn (osm_ucast_updn.c) and minhop (osm_ucast_mgr.c), see effective_ftree.go and
// effective_minhop.go.
func ComputeRoutes(g *fabric.Graph, r Routing) (*Routes, error) {
	engines := append([]string(nil), r.Engines...)
	if !r.NoFallback {
		engines = append(engines, "minhop")
	}
	n, err := newRnet(g, r.GUIDs)
	if err != nil {
		return nil, err
	}
	roots := make([]int32, 0, len(r.Roots))
	for _, d := range r.Roots {
		if int(d) < len(n.local) && n.local[d] >= 0 {
			roots = append(roots, n.local[d])
		}
	}
	var fallbacks []string
	for _, e := range engines {
		if !Modelled(e) {
			return nil, nil
		}
		var lft lftTable
		var err error
		switch e {
		case "ftree":
			lft, err = ftreeLFTs(n, roots)
		case "updn":
			var c *candSets
			if c, err = updnSets(n, roots); err == nil {
				lft = buildLFTs(n, c)
			}
		case "minhop":
			var c *candSets
			if c, err = minhopSets(n); err == nil {
				lft = buildLFTs(n, c)
			}
		}
		var nm notModelled
		if errors.As(err, &nm) {
			return nil, err
		}
		if err != nil {
			fallbacks = append(fallbacks, fmt.Sprintf("%s: %v", e, err))
			continue
		}
		return &Routes{Engine: e, Fallbacks: fallbacks, n: n, lft: lft}, nil
	}
	return nil, fmt.Errorf("no routing engine can route this fabric: %s", strings.Join(fallbacks, "; "))
}

// notModelled is a configuration whose routes OpenSM computes in a way the model does not
// reproduce: ComputeRoutes reports it instead of guessing with a fallback.
type notModelled struct{ why string }

func (e notModelled) Error() string { return e.why }

// maxPathHops bounds a walk: a path longer than this loops (IB allows 64 hops).
const maxPathHops = 64

// MaxEffectiveEndpoints bounds the fabrics EffectiveBisection models: the forwarding tables
// grow with endpoints x switches, and 16,384 endpoints take about a second, on every plan.
const MaxEffectiveEndpoints = 16384

// EffectiveBisection samples bisection patterns over the routes of r and returns their mean
// and 5th-percentile ratio. It returns (nil, nil) where the routes are not modelled, and for
// fewer than two endpoints (no pattern exists). The measure and its random bisection patterns are
// T. Hoefler, T. Schneider, A. Lumsdaine, "Multistage switches are not crossbars: effects of
// static routing in high-performance networks", IEEE Cluster 2008,
// doi:10.1109/CLUSTR.2008.4663762.
func EffectiveBisection(g *fabric.Graph, r Routing) (*Effective, error) {
	if n := len(g.Endpoints()); n > MaxEffectiveEndpoints {
		return nil, fmt.Errorf("the fabric has %d endpoint HCAs; the routes are modelled up to %d", n, MaxEffectiveEndpoints)
	}
	rt, err := ComputeRoutes(g, r)
	if err != nil || rt == nil {
		return nil, err
	}
	if len(rt.n.eps) < 2 {
		return nil, nil
	}
	samples := r.Samples
	if samples <= 0 {
		samples = DefaultSamples
	}
	seed := r.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	ratios := rt.sample(samples, seed)
	sum := 0.0
	for _, x := range ratios {
		sum += x
	}
	sort.Float64s(ratios)
	p05 := ratios[int(math.Ceil(0.05*float64(len(ratios))))-1]
	return &Effective{
		RoutingEngine: rt.Engine, Samples: samples, Fallbacks: rt.Fallbacks,
		RatioMean: round4(sum / float64(len(ratios))), RatioP05: round4(p05),
	}, nil
}

// round4 rounds a ratio to four decimals: the sampled mean is an estimate, and more digits
// would be noise.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// sample runs the patterns; it returns one ratio per pattern.
func (rt *Routes) sample(samples int, seed uint64) []float64 {
	n := rt.n
	N := len(n.eps)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	perm := make([]int32, N)
	load := make([]int32, n.channels)
	capOf := make([]float64, n.channels)
	for s := range n.dev {
		for p := 1; p <= n.nports[s]; p++ {
			capOf[int(n.base[s])+p] = n.peer[s][p].gbps
		}
	}
	injBase := n.channels - N
	for e := range n.eps {
		capOf[injBase+e] = n.eps[e].gbps
	}
	// Paths of one pattern, flattened: flow f's channels are chans[start[f]:start[f+1]];
	// a flow without a complete path has start[f+1] == start[f] and broken[f].
	flows := N / 2 * 2
	start := make([]int32, flows+1)
	chans := make([]int32, 0, flows*6)
	broken := make([]bool, flows)
	out := make([]float64, 0, samples)
	for k := 0; k < samples; k++ {
		for i := range perm {
			perm[i] = int32(i)
		}
		rng.Shuffle(N, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		chans = chans[:0]
		for f := 0; f < flows; f++ {
			pair := f / 2
			src, dst := perm[2*pair], perm[2*pair+1]
			if f%2 == 1 {
				src, dst = dst, src
			}
			begin := len(chans)
			chans = append(chans, int32(injBase)+src)
			// rt.walk, inlined over the flat channel arrays: this loop is most of the time.
			ok := false
			row := rt.lft.a[int(dst)*rt.lft.nsw:]
			s := n.eps[src].sw
			for h := 0; h < maxPathHops; h++ {
				p := row[s]
				if p == noPort || int(p) > n.nports[s] {
					break
				}
				c := n.base[s] + int32(p)
				chans = append(chans, c)
				if n.chanEp[c] == dst {
					ok = true
					break
				}
				if s = n.chanSw[c]; s < 0 {
					break
				}
			}
			broken[f] = !ok
			if !ok {
				chans = chans[:begin]
			}
			start[f+1] = int32(len(chans))
		}
		for _, c := range chans {
			load[c]++
		}
		delivered, offered := 0.0, 0.0
		for f := 0; f < flows; f++ {
			cs := chans[start[f]:start[f+1]]
			if broken[f] {
				pair := f / 2
				offered += math.Min(n.eps[perm[2*pair]].gbps, n.eps[perm[2*pair+1]].gbps)
				continue
			}
			alone, got := math.Inf(1), math.Inf(1)
			for _, c := range cs {
				alone = math.Min(alone, capOf[c])
				got = math.Min(got, capOf[c]/float64(load[c]))
			}
			offered += alone
			delivered += got
		}
		for _, c := range chans {
			load[c] = 0
		}
		ratio := 0.0
		if offered > 0 {
			ratio = delivered / offered
		}
		out = append(out, ratio)
	}
	return out
}
