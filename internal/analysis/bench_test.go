package analysis

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Speed targets: the whole Analyze on a non-blocking three-tier fat tree of 64-port switches,
// 16,384 endpoints in under 1 s and 1 GiB, 65,536 in under 10 s, one core. Run with
//
//	go test ./internal/analysis -run XXX -bench . -benchmem -benchtime 1x -cpu 1
//
// The graph is built before the timer starts; BenchmarkBuild times fabric.Build alone.

var benchSizes = []int{2048, 16384, 65536}

var benchGraphs = map[int]*fabric.Graph{}

func benchGraph(b *testing.B, endpoints int) *fabric.Graph {
	if g, ok := benchGraphs[endpoints]; ok {
		return g
	}
	g := mustBuild(b, threeTier64(endpoints))
	benchGraphs[endpoints] = g
	return g
}

func BenchmarkAnalyze(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("fattree3-%d", n), func(b *testing.B) {
			g := benchGraph(b, n)
			w := &Workload{Parameters: 70e9, GradientBytesPerParam: 2}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := Analyze(g, w)
				if r.BisectionLowerGbps != float64(n)/2*400 || r.BisectionUpperGbps != r.BisectionLowerGbps {
					b.Fatalf("lower %g upper %g", r.BisectionLowerGbps, r.BisectionUpperGbps)
				}
			}
		})
	}
}

// BenchmarkAnalyzeNoTwins is the worst case for the searches: the 65,536-endpoint tree with its
// core wiring shuffled per pod and one random uplink of every leaf missing, so that neither
// cores nor leaves are twins and every search runs once per switch.
func BenchmarkAnalyzeNoTwins(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	spec := fatTree(treeParams{pods: 64, podLeaves: 32, podSpines: 32, hostsPerLeaf: 32, leafUp: 32, cores: 1024, spineUp: 32, shuffle: rng})
	drop := map[string]int{}
	for l := 1; l <= 2048; l++ {
		drop[fmt.Sprintf("leaf%04d", l)] = 33 + rng.IntN(32)
	}
	spec = dropCables(spec, func(c fabric.Cable) bool { return drop[c.A.Device] == c.A.Port })
	g := mustBuild(b, spec)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := Analyze(g, nil)
		if r.BisectionLowerGbps > r.BisectionUpperGbps {
			b.Fatalf("lower %g > upper %g", r.BisectionLowerGbps, r.BisectionUpperGbps)
		}
		b.ReportMetric(r.BisectionLowerGbps/r.FullBisectionGbps, "lower/full")
		b.ReportMetric(r.BisectionUpperGbps/r.FullBisectionGbps, "upper/full")
	}
}

// BenchmarkPhases times the parts of Analyze on the largest fabric.
func BenchmarkPhases(b *testing.B) {
	g := benchGraph(b, 65536)
	t := newTopo(g)
	phases := []struct {
		name string
		run  func()
	}{
		{"topo", func() { newTopo(g) }},
		{"oversubscription", func() { oversubscription(t, &Result{}) }},
		{"hops", func() { hops(t, &Result{}) }},
		{"lower", func() { lowerBound(t) }},
		{"upper", func() { upperBound(t) }},
	}
	for _, p := range phases {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				p.run()
			}
		})
	}
}

// BenchmarkBuild times fabric.Build (not this package's code) on the same specs, to tell the two
// costs apart.
func BenchmarkBuild(b *testing.B) {
	cat := catalog.Default()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("fattree3-%d", n), func(b *testing.B) {
			spec := threeTier64(n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				fabric.Build(spec, cat)
			}
		})
	}
}

// BenchmarkTorus is a 16 x 16 x 16 torus with one endpoint a switch: every switch is a leaf and
// an intermediate, no twins, and the upper bound comes from the sweeps.
func BenchmarkTorus(b *testing.B) {
	const k = 16
	g := mustBuild(b, torus3D(k, 1))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := Analyze(g, nil)
		if want := 2 * k * k * 400.0; !near(r.BisectionLowerGbps, want) || r.BisectionUpperGbps != want {
			b.Fatalf("lower %g upper %g, want %g (cut %s)", r.BisectionLowerGbps, r.BisectionUpperGbps, want, r.Cut.Method)
		}
	}
}
