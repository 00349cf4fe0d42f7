package analysis

import (
	"math"
	"strconv"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

const B = 400.0 // NDR port rate, Gb/s per direction

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// checkSound asserts the invariants every result must satisfy: lower <= upper, the witness cut is
// balanced and its capacity recomputed from its names equals the reported upper bound.
func checkSound(t *testing.T, g *fabric.Graph, r Result) {
	t.Helper()
	if r.BisectionLowerGbps > r.BisectionUpperGbps*(1+1e-9)+1e-9 {
		t.Errorf("lower %g > upper %g", r.BisectionLowerGbps, r.BisectionUpperGbps)
	}
	if r.BisectionRatio < 0 || r.BisectionRatio > 1+1e-9 {
		t.Errorf("ratio %g outside [0,1]", r.BisectionRatio)
	}
	if r.Endpoints < 2 {
		return
	}
	gbps, links, nA := recomputeCut(g, r.Cut)
	if !near(gbps, r.Cut.CapacityGbps) || links != r.Cut.CrossingLinks {
		t.Errorf("witness %q: recomputed %g Gb/s over %d links, reported %g over %d", r.Cut.Method, gbps, links, r.Cut.CapacityGbps, r.Cut.CrossingLinks)
	}
	if nA != r.Endpoints/2 || r.Cut.EndpointsA != nA || r.Cut.EndpointsB != r.Endpoints-nA {
		t.Errorf("witness not balanced: %d endpoints on A (reported %d/%d), want %d", nA, r.Cut.EndpointsA, r.Cut.EndpointsB, r.Endpoints/2)
	}
	if !near(r.Cut.CapacityGbps, r.BisectionUpperGbps) {
		t.Errorf("upper %g != witness %g", r.BisectionUpperGbps, r.Cut.CapacityGbps)
	}
}

// recomputeCut evaluates a Cut from its names alone: switches on A, endpoints with their switch
// unless listed as moved. It returns the A->B capacity, crossing links and endpoints on A.
func recomputeCut(g *fabric.Graph, c Cut) (gbps float64, links, nA int) {
	onA := map[int32]bool{}
	for _, n := range c.SwitchesA {
		d, _ := g.Lookup(n)
		onA[d] = true
	}
	moved := map[string]bool{}
	for _, n := range c.MovedEndpoints {
		moved[n] = true
	}
	// Endpoint side: an HCA port is named by the HCA, with ":port" on multi-port HCAs.
	side := func(d, other int32, port int) bool {
		if g.Devices[d].Kind == fabric.KindSwitch {
			return onA[d]
		}
		a := onA[other]
		name := g.Devices[d].Name
		if g.Devices[d].Ports > 1 {
			name += ":" + strconv.Itoa(port)
		}
		if moved[name] {
			a = !a
		}
		return a
	}
	for _, l := range g.Links {
		if l.A == l.B {
			continue
		}
		sa, sb := side(l.A, l.B, l.PortA), side(l.B, l.A, l.PortB)
		if g.Devices[l.A].Kind == fabric.KindHCA && sa {
			nA++
		}
		if g.Devices[l.B].Kind == fabric.KindHCA && sb {
			nA++
		}
		if sa != sb {
			gbps += l.RateGbps
			links++
		}
	}
	return gbps, links, nA
}

func analyze(t *testing.T, spec *fabric.Spec) (*fabric.Graph, Result) { //nolint:unparam // the graph is for tests that check it against the result
	t.Helper()
	g := mustBuild(t, spec)
	r := Analyze(g, nil)
	checkSound(t, g, r)
	return g, r
}

// The 512-GPU two-tier fabric of the DGX B200 SuperPOD RA's 2-SU row: 64 DGX H100, 16
// leaves with 32 links down and 32 up, 8 spines, 4 links between every leaf and spine.
func TestTwoTier512NonBlocking(t *testing.T) {
	_, r := analyze(t, fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 32}))
	if r.Endpoints != 512 || r.Switches != 24 || r.Links != 1024 || r.Tiers != 2 {
		t.Errorf("counts: %d endpoints, %d switches, %d links, %d tiers", r.Endpoints, r.Switches, r.Links, r.Tiers)
	}
	if r.FullBisectionGbps != 102400 || r.BisectionLowerGbps != 102400 || r.BisectionUpperGbps != 102400 || r.BisectionRatio != 1 {
		t.Errorf("bisection full %g lower %g upper %g ratio %g, want 102400 x3 and 1", r.FullBisectionGbps, r.BisectionLowerGbps, r.BisectionUpperGbps, r.BisectionRatio)
	}
	if r.Oversubscription["leaf"] != 1 || r.MaxOversubscription != 1 || len(r.Oversubscription) != 1 {
		t.Errorf("oversubscription %v max %g, want leaf 1 only (spines have no links up)", r.Oversubscription, r.MaxOversubscription)
	}
	if r.MaxSwitchHops != 2 {
		t.Errorf("hops %d, want 2 (leaf-spine-leaf), witness %v", r.MaxSwitchHops, r.HopsWitness)
	}
	if r.PortRateGbps != B || r.BottleneckLink != [2]string{} {
		t.Errorf("port rate %g, bottleneck %v", r.PortRateGbps, r.BottleneckLink)
	}
	for _, s := range r.PerSwitch {
		if s.Role == "spine" && (s.UsedPorts != 64 || s.FreePorts != 0 || s.DownGbps != 64*B) {
			t.Errorf("spine %+v", s)
		}
		if s.Role == "leaf" && (s.UsedPorts != 64 || s.DownGbps != 32*B || s.UpGbps != 32*B || s.Oversubscription != 1) {
			t.Errorf("leaf %+v", s)
		}
	}
	t.Logf("cut: %s, %d links", r.Cut.Method, r.Cut.CrossingLinks)
}

// A quarter of every leaf's uplinks removed: 32 down, 24 up (3 to each spine).
func TestTwoTier512QuarterUplinksRemoved(t *testing.T) {
	_, r := analyze(t, fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 24}))
	if r.BisectionLowerGbps != 76800 || r.BisectionUpperGbps != 76800 || r.BisectionRatio != 0.75 {
		t.Errorf("lower %g upper %g ratio %g, want 76800, 76800, 0.75", r.BisectionLowerGbps, r.BisectionUpperGbps, r.BisectionRatio)
	}
	if want := 1.3334; r.Oversubscription["leaf"] != want || r.MaxOversubscription != want { // 32/24 rounded up (exact.go)
		t.Errorf("leaf oversubscription %g, want 32/24", r.Oversubscription["leaf"])
	}
	if w := r.Worst["leaf"]; w.Name != "leaf0001" {
		t.Errorf("witness %q, want the first leaf on a tie", w.Name)
	}
}

// 2:1 at the leaf: 32 down, 16 up over 4 spines.
func TestTwoTierOversubscribed2to1(t *testing.T) {
	_, r := analyze(t, fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 4, hostsPerLeaf: 32, leafUp: 16}))
	if r.Oversubscription["leaf"] != 2 || r.BisectionLowerGbps != 51200 || r.BisectionUpperGbps != 51200 || r.BisectionRatio != 0.5 {
		t.Errorf("oversubscription %v lower %g upper %g ratio %g, want 2, 51200, 51200, 0.5", r.Oversubscription, r.BisectionLowerGbps, r.BisectionUpperGbps, r.BisectionRatio)
	}
}

// A failed spine: 7 spines left, every leaf 28 up. Both bounds stay sound; here they meet at
// 28/32 of full bisection.
func TestTwoTierFailedSpine(t *testing.T) {
	spec := without(fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 32}), "spine0008")
	_, r := analyze(t, spec)
	t.Logf("failed spine: lower %g upper %g (gap %g), cut %s", r.BisectionLowerGbps, r.BisectionUpperGbps, r.BisectionUpperGbps-r.BisectionLowerGbps, r.Cut.Method)
	if r.BisectionUpperGbps > 89600 {
		t.Errorf("upper %g, a cut of 8 leaves crosses 8*28 links = 89600", r.BisectionUpperGbps)
	}
	if r.BisectionLowerGbps < 89600 {
		t.Errorf("lower %g, VLB over 7 spines gives theta = 28/32 (89600)", r.BisectionLowerGbps)
	}
	if r.Oversubscription["leaf"] != 1.1429 { // 32/28 rounded up to 4 places (exact.go)
		t.Errorf("leaf oversubscription %g, want 32/28", r.Oversubscription["leaf"])
	}
}

// Half-cabled expansion: a second SU of 8 leaves whose nodes are cabled but whose leaves have
// only half their uplinks (2 to each spine) so far. Its leaves are the bottleneck: 2:1.
func TestHalfCabledExpansion(t *testing.T) {
	full := fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 32})
	seen := map[string]int{}
	spec := dropCables(full, func(c fabric.Cable) bool {
		// New leaves are leaf0009..leaf0016; their uplinks go round-robin over the 8 spines, so
		// dropping the 2nd and 4th round leaves 2 links to every spine.
		if c.A.Device >= "leaf0009" && c.A.Device <= "leaf0016" && c.B.Device[:5] == "spine" {
			seen[c.A.Device]++
			return (seen[c.A.Device]-1)/8%2 == 1
		}
		return false
	})
	_, r := analyze(t, spec)
	t.Logf("half-cabled: lower %g upper %g, cut %s", r.BisectionLowerGbps, r.BisectionUpperGbps, r.Cut.Method)
	if r.BisectionLowerGbps != 51200 || r.BisectionUpperGbps != 51200 {
		t.Errorf("lower %g upper %g, want 51200 both (8 new leaves x 16 uplinks)", r.BisectionLowerGbps, r.BisectionUpperGbps)
	}
	if r.BottleneckLink[0] < "leaf0009" || r.BottleneckLink[1][:5] != "spine" {
		t.Errorf("bottleneck %v, want an uplink of a new leaf", r.BottleneckLink)
	}
	if r.Oversubscription["leaf"] != 2 || r.Worst["leaf"].Name != "leaf0009" {
		t.Errorf("leaf oversubscription %g at %q, want 2 at leaf0009", r.Oversubscription["leaf"], r.Worst["leaf"].Name)
	}
}

// Half-cabled and lopsided: the new SU's leaves have 16 uplinks, all to the odd spines (4 links
// each), so their traffic to the even spines must come down through an old leaf. Sound, and
// the lower bound comes from the routing's load on the old leaves' uplinks.
func TestHalfCabledLopsided(t *testing.T) {
	full := fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 32})
	seen := map[string]int{}
	spec := dropCables(full, func(c fabric.Cable) bool {
		if c.A.Device >= "leaf0009" && c.A.Device <= "leaf0016" && c.B.Device[:5] == "spine" {
			seen[c.A.Device]++
			return seen[c.A.Device]%2 == 0
		}
		return false
	})
	_, r := analyze(t, spec)
	t.Logf("lopsided: lower %g upper %g, bottleneck %v, cut %s", r.BisectionLowerGbps, r.BisectionUpperGbps, r.BottleneckLink, r.Cut.Method)
	if r.BisectionUpperGbps > 51200 {
		t.Errorf("upper %g, the 8 new leaves alone cross 128 links", r.BisectionUpperGbps)
	}
}

// Half-cabled the other way: the new SU's leaves are fully cabled up but only half of its
// nodes are in (16 endpoints on each new leaf).
func TestHalfCabledNodes(t *testing.T) {
	full := fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 32})
	spec := dropCables(full, func(c fabric.Cable) bool {
		return c.B.Device >= "leaf0009" && c.B.Device <= "leaf0016" && c.B.Port > 16 && c.B.Port <= 32
	})
	_, r := analyze(t, spec)
	if r.Endpoints != 384 || r.BisectionLowerGbps != 76800 || r.BisectionUpperGbps != 76800 {
		t.Errorf("endpoints %d lower %g upper %g, want 384, 76800, 76800", r.Endpoints, r.BisectionLowerGbps, r.BisectionUpperGbps)
	}
	if r.Oversubscription["leaf"] != 1 {
		t.Errorf("leaf oversubscription %g, want 1 (the new leaves are 16:32)", r.Oversubscription["leaf"])
	}
}

// Three-tier non-blocking fat tree of 64-port switches, 2,048 endpoints: 2 pods of 32 leaves and
// 32 spines, 32 cores. Al-Fares et al. (SIGCOMM 2008): bisection N*B/2.
func TestThreeTierNonBlocking(t *testing.T) {
	_, r := analyze(t, threeTier64(2048))
	if r.Switches != 64+64+32 || r.Tiers != 3 {
		t.Errorf("%d switches, %d tiers", r.Switches, r.Tiers)
	}
	if r.BisectionLowerGbps != 1024*B || r.BisectionUpperGbps != 1024*B {
		t.Errorf("lower %g upper %g, want %g", r.BisectionLowerGbps, r.BisectionUpperGbps, 1024*B)
	}
	if r.Oversubscription["leaf"] != 1 || r.Oversubscription["spine"] != 1 || len(r.Oversubscription) != 2 {
		t.Errorf("oversubscription %v", r.Oversubscription)
	}
	if r.MaxSwitchHops != 4 {
		t.Errorf("hops %d, want 4 (leaf-spine-core-spine-leaf)", r.MaxSwitchHops)
	}
}

// Al-Fares k-ary fat tree with k = 8 on 64-port switches using 8 ports each: 128 hosts,
// k^3/8 * B bisection.
func TestThreeTierAlFaresK8(t *testing.T) {
	k := 8
	_, r := analyze(t, fatTree(treeParams{pods: k, podLeaves: k / 2, podSpines: k / 2, hostsPerLeaf: k / 2, leafUp: k / 2, cores: k * k / 4, spineUp: k / 2}))
	want := float64(k*k*k/8) * B
	if r.BisectionLowerGbps != want || r.BisectionUpperGbps != want {
		t.Errorf("lower %g upper %g, want %g", r.BisectionLowerGbps, r.BisectionUpperGbps, want)
	}
	if r.MaxSwitchHops != 4 {
		t.Errorf("hops %d", r.MaxSwitchHops)
	}
}

// Three tiers oversubscribed 2:1 at the leaf (32 down, 16 up), non-blocking above.
func TestThreeTierOversubscribedLeaf(t *testing.T) {
	_, r := analyze(t, fatTree(treeParams{pods: 4, podLeaves: 8, podSpines: 4, hostsPerLeaf: 32, leafUp: 16, cores: 8, spineUp: 32}))
	if r.Oversubscription["leaf"] != 2 || r.Oversubscription["spine"] != 1 {
		t.Errorf("oversubscription %v", r.Oversubscription)
	}
	want := 0.5 * 512 * B
	if r.BisectionLowerGbps != want || r.BisectionUpperGbps != want {
		t.Errorf("lower %g upper %g, want %g", r.BisectionLowerGbps, r.BisectionUpperGbps, want)
	}
}

// 3D torus, k = 4, one endpoint per switch: bisection 2k^2 links (Dally & Towles, k-ary n-cube), and the
// VLB bound meets it (theta = 4/k = 1).
func TestTorus4(t *testing.T) {
	_, r := analyze(t, torus3D(4, 1))
	want := 2 * 16 * B
	if r.Tiers != 1 || r.Switches != 64 || r.Endpoints != 64 {
		t.Errorf("tiers %d switches %d endpoints %d", r.Tiers, r.Switches, r.Endpoints)
	}
	if r.BisectionLowerGbps != want || r.BisectionUpperGbps != want {
		t.Errorf("lower %g upper %g, want %g; cut %s", r.BisectionLowerGbps, r.BisectionUpperGbps, want, r.Cut.Method)
	}
	if r.MaxSwitchHops != 6 {
		t.Errorf("hops %d, want the diameter 3*floor(k/2) = 6", r.MaxSwitchHops)
	}
	if len(r.Oversubscription) != 0 || r.MaxOversubscription != 0 {
		t.Errorf("a torus has no down:up tier: %v", r.Oversubscription)
	}
}

// k = 6: theta = 4/k < 1, still tight: 2k^2 = 72 links.
func TestTorus6(t *testing.T) {
	_, r := analyze(t, torus3D(6, 1))
	want := 2 * 36 * B
	if !near(r.BisectionLowerGbps, want) || r.BisectionUpperGbps != want {
		t.Errorf("lower %g upper %g, want %g; cut %s", r.BisectionLowerGbps, r.BisectionUpperGbps, want, r.Cut.Method)
	}
	if r.BisectionRatio != 0.6666 { // 4/6 rounded down to 4 places (exact.go)
		t.Errorf("ratio %g, want 4/k", r.BisectionRatio)
	}
}

// Dragonfly+: 4 groups of 4 leaves and 4 spines, 4 endpoints per leaf, one global link per pair
// of groups. Minimal paths are leaf-spine-spine-leaf; the group ratio is endpoints over global
// links.
func TestDragonflyPlus(t *testing.T) {
	_, r := analyze(t, dragonflyPlus(4, 4, 4))
	if r.MaxSwitchHops != 3 {
		t.Errorf("hops %d, want 3", r.MaxSwitchHops)
	}
	if got := r.Oversubscription[TierGroup]; got != 5.3334 { // 16/3 rounded up (exact.go)
		t.Errorf("group oversubscription %g, want 16 endpoints / 3 global links", got)
	}
	if w := r.Worst[TierGroup]; w.Name != "g00" || w.DownGbps != 16*B || w.UpGbps != 3*B {
		t.Errorf("group witness %+v", w)
	}
	// g^2/4 = 4 global links cross the group bisection.
	if r.BisectionUpperGbps != 4*B {
		t.Errorf("upper %g, want 4 global links; cut %s", r.BisectionUpperGbps, r.Cut.Method)
	}
	t.Logf("dragonfly+: lower %g upper %g", r.BisectionLowerGbps, r.BisectionUpperGbps)
}

func TestSingleSwitch(t *testing.T) {
	b := newSpecBuilder()
	sw := b.sw("s1", "", "")
	for i := 0; i < 3; i++ {
		b.cable(b.hca(), sw)
	}
	_, r := analyze(t, &b.spec)
	// Odd N: the balanced cut has 1 endpoint on A, so no cut exceeds 1 port, and that is the
	// full bisection: one crossbar is non-blocking (ratio 1).
	if r.BisectionLowerGbps != B || r.BisectionUpperGbps != B || r.FullBisectionGbps != B || r.BisectionRatio != 1 {
		t.Errorf("lower %g upper %g full %g", r.BisectionLowerGbps, r.BisectionUpperGbps, r.FullBisectionGbps)
	}
	if r.MaxSwitchHops != 0 || r.HopsWitness[0] == "" || r.HopsWitness[0] == r.HopsWitness[1] {
		t.Errorf("hops %d witness %v", r.MaxSwitchHops, r.HopsWitness)
	}
	if r.Tiers != 1 {
		t.Errorf("tiers %d", r.Tiers)
	}
}

func TestEmptyAndNil(t *testing.T) {
	r := Analyze(nil, &Workload{Parameters: 1e9})
	if r.Endpoints != 0 || r.Oversubscription == nil {
		t.Errorf("%+v", r)
	}
	g := mustBuild(t, &fabric.Spec{})
	r = Analyze(g, &Workload{Parameters: 1e9})
	if r.Endpoints != 0 || r.BisectionRatio != 1 || r.AllReduce == nil || r.AllReduce.RingSeconds != 0 {
		t.Errorf("%+v", r)
	}
}

func TestDeterministic(t *testing.T) {
	spec := without(fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 32}), "spine0003")
	g := mustBuild(t, spec)
	a, b := Analyze(g, nil), Analyze(g, nil)
	if a.Cut.Method != b.Cut.Method || len(a.Cut.SwitchesA) != len(b.Cut.SwitchesA) || a.HopsWitness != b.HopsWitness || a.BisectionLowerGbps != b.BisectionLowerGbps {
		t.Errorf("two runs differ")
	}
	for i := range a.Cut.SwitchesA {
		if a.Cut.SwitchesA[i] != b.Cut.SwitchesA[i] {
			t.Fatalf("cut differs")
		}
	}
}
