package waves

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// Limits are policy.degraded's thresholds, as a wave is judged against them.
type Limits struct {
	MinBisectionRatio       *float64 // nil: policy.DefaultDegradedShare of the designed ratio
	MaxOversubscription     *float64 // nil: no limit
	MaxUnreachableEndpoints *int     // nil: no limit
}

// Judgement is the fabric while one wave is down, and whether it holds.
type Judgement struct {
	Devices      []string // the wave, in the order given
	DrainedNodes []string // nodes with an HCA cut off while the wave is down, sorted
	Unreachable  int      // HCAs cut off, and HCAs of the wave's own nodes (down with them)
	Isolated     []string // switches outside the wave cut off from the fabric (the wave cannot hold)
	Analysis     analysis.Result
	MinRatio     float64  // the bisection ratio the wave must keep
	Breaks       []string // the limits it breaks, in words; empty when it holds
}

// Holds says whether the fabric keeps policy.degraded while the wave is down.
func (j Judgement) Holds() bool { return len(j.Breaks) == 0 }

// Plan is the waves, each with its proof.
type Plan struct {
	Waves []Judgement
	// Fewest is true when no partition into fewer waves holds: proved by exhaustive search over
	// the waves that hold (exactLimit devices or fewer). Past that, the waves are first-fit and
	// Fewest is false.
	Fewest bool
	// Designed is the analysis of the whole fabric, for the default bisection threshold.
	Designed analysis.Result
}

// RefusedError names the devices that cannot go down even alone, and why.
type RefusedError struct {
	Refused []Judgement
}

func (e *RefusedError) Error() string {
	var parts []string
	for _, j := range e.Refused {
		parts = append(parts, fmt.Sprintf("%s cannot go down even alone: %s", j.Devices[0], strings.Join(j.Breaks, "; ")))
	}
	return strings.Join(parts, ". ")
}

// exactLimit is the most devices whose wave count is proved fewest by exhaustive search. The
// search judges only waves that hold and their one-device extensions (feasible sets are downward
// closed, below), so its cost follows the number of waves that hold, not 2^n; the limit bounds
// the 2^n-state cover that follows.
const exactLimit = 16

// Split plans the waves for taking the named devices (switches or nodes of spec) down.
func Split(spec *fabric.Spec, cat *catalog.Catalog, devices []string, lim Limits) (*Plan, error) {
	if len(devices) == 0 {
		return nil, fmt.Errorf("no devices to take down: name at least one switch or node")
	}
	seen := map[string]bool{}
	for _, d := range devices {
		if seen[d] {
			return nil, fmt.Errorf("%s is named twice: each device goes down in one wave", d)
		}
		seen[d] = true
		if spec.SwitchNamed(d) == nil && spec.NodeNamed(d) == nil {
			return nil, fmt.Errorf("%s is neither a switch nor a node of the fabric", d)
		}
	}
	g, problems := fabric.Build(spec, cat)
	for _, p := range problems {
		if p.Severity == fabric.Error {
			return nil, fmt.Errorf("the fabric does not build: %s", p.Message)
		}
	}
	j := &judge{spec: spec, cat: cat, lim: lim, designed: analysis.Analyze(g, nil), graph: g}
	j.minRatio = policy.DefaultDegradedShare * j.designed.BisectionRatio
	j.minSource = fmt.Sprintf("default: %v x the designed ratio %v", policy.DefaultDegradedShare, j.designed.BisectionRatio)
	if lim.MinBisectionRatio != nil {
		j.minRatio, j.minSource = *lim.MinBisectionRatio, "policy.degraded.min_bisection_ratio"
	}

	var refused []Judgement
	for _, d := range devices {
		if w := j.wave([]string{d}); !w.Holds() {
			refused = append(refused, w)
		}
	}
	if len(refused) > 0 {
		return nil, &RefusedError{Refused: refused}
	}
	plan := &Plan{Designed: j.designed}
	var groups [][]string
	if len(devices) <= exactLimit {
		groups, plan.Fewest = j.fewest(devices), true
	} else {
		groups = j.firstFit(devices)
	}
	for _, grp := range groups {
		plan.Waves = append(plan.Waves, j.wave(grp))
	}
	return plan, nil
}

type judge struct {
	spec      *fabric.Spec
	cat       *catalog.Catalog
	lim       Limits
	graph     *fabric.Graph
	designed  analysis.Result
	minRatio  float64
	minSource string // where minRatio comes from, for messages
}

// fewest is the minimum partition of devices into waves that hold, by exhaustive search. Taking
// fewer devices down never removes a link that a larger wave keeps, so every cut of the fabric
// is at least as large and no switch loses a path: the waves that hold are closed under subsets.
// Then a partition into k waves exists exactly when k holding sets cover the devices, and the
// holding sets are found by growing each holding set by one device at a time (Apriori's level-wise
// search: Agrawal and Srikant, "Fast Algorithms for Mining Association Rules", VLDB 1994). The
// minimum cover is a dynamic program over subsets: cover(S) = 1 + min over holding W that
// contain S's lowest device of cover(S \ W) (the exact set-partition recurrence, e.g. Björklund,
// Husfeldt and Koivisto, "Set Partitioning via Inclusion-Exclusion", SIAM J. Comput. 39(2), 2009,
// whose simple O(3^n) form this is).
func (j *judge) fewest(devices []string) [][]string {
	n := len(devices)
	holds := map[uint32]bool{}
	level := []uint32{}
	for i := 0; i < n; i++ {
		level = append(level, 1<<i)
		holds[1<<i] = true // checked by Split
	}
	all := append([]uint32(nil), level...)
	for len(level) > 0 {
		var next []uint32
		tried := map[uint32]bool{}
		for _, s := range level {
			top := 31 - bits.LeadingZeros32(s)
			for i := top + 1; i < n; i++ {
				t := s | 1<<i
				if tried[t] {
					continue
				}
				tried[t] = true
				if !j.subsetsHold(t, holds) {
					continue
				}
				if j.wave(pick(devices, t)).Holds() {
					holds[t] = true
					next = append(next, t)
				}
			}
		}
		all = append(all, next...)
		level = next
	}
	full := uint32(1)<<n - 1
	cost := make([]int, full+1)
	choice := make([]uint32, full+1)
	for s := uint32(1); s <= full; s++ {
		cost[s] = n + 1
		low := s & -s
		for _, w := range all {
			if w&low == 0 || w&^s != 0 {
				continue
			}
			if c := 1 + cost[s&^w]; c < cost[s] {
				cost[s], choice[s] = c, w
			}
		}
	}
	var out [][]string
	for s := full; s != 0; s &^= choice[s] {
		out = append(out, pick(devices, choice[s]))
	}
	return out
}

// subsetsHold says whether every subset of t with one device fewer holds (else t cannot).
func (j *judge) subsetsHold(t uint32, holds map[uint32]bool) bool {
	for r := t; r != 0; r &= r - 1 {
		if !holds[t&^(r&-r)] {
			return false
		}
	}
	return true
}

// firstFit puts each device, in the order given, into the first wave that still holds with it,
// or a new one.
func (j *judge) firstFit(devices []string) [][]string {
	var out [][]string
	for _, d := range devices {
		placed := false
		for i := range out {
			if j.wave(append(append([]string(nil), out[i]...), d)).Holds() {
				out[i] = append(out[i], d)
				placed = true
				break
			}
		}
		if !placed {
			out = append(out, []string{d})
		}
	}
	return out
}

// firstFew names at most eight nodes, then counts the rest, so a message stays readable.
func firstFew(names []string) string {
	return listed.First(names, 8, ", ")
}

func pick(devices []string, s uint32) []string {
	var out []string
	for i, d := range devices {
		if s&(1<<i) != 0 {
			out = append(out, d)
		}
	}
	return out
}

// wave judges the fabric while devices are down.
func (j *judge) wave(devices []string) Judgement {
	out := Judgement{Devices: devices, MinRatio: j.minRatio}
	running := Down(j.spec, devices)
	g, _ := fabric.Build(running, j.cat)
	cut := policy.CutOff(j.graph, g)
	isolated, unreachable := cut.IsolatedSwitches(), cut.UnreachableEndpoints()
	out.Isolated = isolated
	out.Unreachable = len(unreachable)
	drained := map[string]bool{}
	for _, h := range unreachable {
		if i, ok := g.Lookup(h); ok {
			drained[g.Devices[i].Node] = true
		}
	}
	waveNodes := map[string]bool{}
	for _, d := range devices {
		if j.spec.NodeNamed(d) != nil {
			drained[d], waveNodes[d] = true, true
		}
	}
	// A node of the wave is down with its HCAs: they are out of service as surely as the HCAs
	// a switch of the wave cuts off, and count against the same limit (else the nodes of a
	// rollout would all fit in one wave).
	cutOff := map[string]bool{}
	for _, h := range unreachable {
		cutOff[h] = true
	}
	for _, dv := range j.graph.Devices {
		if dv.Kind == fabric.KindHCA && waveNodes[dv.Node] && !cutOff[dv.Name] {
			out.Unreachable++
		}
	}
	for n := range drained {
		out.DrainedNodes = append(out.DrainedNodes, n)
	}
	sort.Strings(out.DrainedNodes)
	if len(isolated) > 0 {
		out.Breaks = append(out.Breaks, fmt.Sprintf("it cuts %s off from the fabric", firstFew(isolated)))
		return out
	}
	if m := j.lim.MaxUnreachableEndpoints; m != nil && out.Unreachable > *m {
		what := fmt.Sprintf("cuts off %d endpoints", out.Unreachable)
		if len(waveNodes) > 0 {
			what = fmt.Sprintf("takes %d endpoints out of service", out.Unreachable)
		}
		out.Breaks = append(out.Breaks, fmt.Sprintf("it %s (of %s); policy.degraded.max_unreachable_endpoints allows %d",
			what, firstFew(out.DrainedNodes), *m))
	}
	// The nodes cut off are drained: the running fabric is judged on the endpoints that remain.
	if len(unreachable) > 0 {
		running = without(running, unreachable)
		g, _ = fabric.Build(running, j.cat)
	}
	out.Analysis = analysis.Analyze(g, nil)
	a := &out.Analysis
	if a.FullBisectionGbps > 0 && a.BisectionRatio < j.minRatio {
		out.Breaks = append(out.Breaks, fmt.Sprintf("the fabric left proves %v of %v Gb/s full bisection (ratio %v), below the %v required (%s)",
			a.BisectionLowerGbps, a.FullBisectionGbps, a.BisectionRatio, j.minRatio, j.minSource))
	}
	if m := j.lim.MaxOversubscription; m != nil && a.MaxOversubscription > *m {
		out.Breaks = append(out.Breaks, fmt.Sprintf("the worst switch left is %v:1, above policy.degraded.max_oversubscription %v:1", a.MaxOversubscription, *m))
	}
	return out
}

// Down is spec less the named switches and nodes (a node with its HCAs) and every cable they
// hold: the fabric while they are down. spec is not changed.
func Down(spec *fabric.Spec, devices []string) *fabric.Spec {
	gone := map[string]bool{}
	for _, d := range devices {
		gone[d] = true
	}
	out := *spec
	out.Switches, out.Nodes, out.HCAs, out.Cables = nil, nil, nil, nil
	for _, s := range spec.Switches {
		if !gone[s.Name] {
			out.Switches = append(out.Switches, s)
		}
	}
	for _, n := range spec.Nodes {
		if !gone[n.Name] {
			out.Nodes = append(out.Nodes, n)
		}
	}
	for _, h := range spec.HCAs {
		if gone[h.Node] {
			gone[hcaName(h)] = true
			continue
		}
		out.HCAs = append(out.HCAs, h)
	}
	for _, c := range spec.Cables {
		if !gone[c.A.Device] && !gone[c.B.Device] {
			out.Cables = append(out.Cables, c)
		}
	}
	out.Partitions = nil // partitions name HCAs that may be gone; the analysis does not read them
	return &out
}

// without is spec less the named HCAs and their cables.
func without(spec *fabric.Spec, hcas []string) *fabric.Spec {
	gone := map[string]bool{}
	for _, h := range hcas {
		gone[h] = true
	}
	out := *spec
	out.HCAs, out.Cables = nil, nil
	for _, h := range spec.HCAs {
		if !gone[hcaName(h)] {
			out.HCAs = append(out.HCAs, h)
		}
	}
	for _, c := range spec.Cables {
		if !gone[c.A.Device] && !gone[c.B.Device] {
			out.Cables = append(out.Cables, c)
		}
	}
	return &out
}

func hcaName(h fabric.HCA) string {
	if h.Name != "" {
		return h.Name
	}
	return fabric.HCAName(h.Node, h.Device)
}

// Line is the wave as one line of a plan: "wave 2: spine03, spine04 down; drain none; proves
// 38400 of 51200 Gb/s (0.75, at least 0.75 required)".
func (j Judgement) Line(n int) string {
	drain := "none"
	if len(j.DrainedNodes) > 0 {
		drain = strings.Join(j.DrainedNodes, ", ")
	}
	return fmt.Sprintf("wave %d: %s down; drain %s; proves %v of %v Gb/s (%v, at least %v required)", n,
		strings.Join(j.Devices, ", "), drain, j.Analysis.BisectionLowerGbps, j.Analysis.FullBisectionGbps,
		j.Analysis.BisectionRatio, j.MinRatio)
}
