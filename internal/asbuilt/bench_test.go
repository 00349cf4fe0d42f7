package asbuilt

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// BenchmarkReadFit adopts a hand-built floor of 8 SU (2,048 HCAs, 64 leaves, 32 spines) from
// its ibnetdiscover text and fits it, grown to 16 SU (3 tiers), as a plan with as_built does.
func BenchmarkReadFit(b *testing.B) {
	h := handFloor{sus: 8}
	net := h.net()
	nm, err := opensm.ParseNodeNameMap(h.nodeNameMap())
	if err != nil {
		b.Fatal(err)
	}
	des := generate(b, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 16}, nil)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuMetric(b)()
	for i := 0; i < b.N; i++ {
		d, err := opensm.ParseTopology(net)
		if err != nil {
			b.Fatal(err)
		}
		floor, err := Read(d, ReadOptions{NodeNameMap: nm, Simulated: true})
		if err != nil {
			b.Fatal(err)
		}
		f, err := Fit(des, floor.Spec, nil)
		if err != nil {
			b.Fatal(err)
		}
		if r := f.Report; r.LinksKept != r.LinksKeptMax || r.LinksKept != 2048+1024 {
			b.Fatalf("kept %d, max %d", r.LinksKept, r.LinksKeptMax)
		}
	}
}

// BenchmarkFit fits a design onto a floor that is the same fabric relabeled (every cable kept)
// and onto one of half its size built for half (grown past its plan), at 16,384 and 65,536
// endpoints of a rail-optimized fabric (64 and 256 SU, 3 tiers).
func BenchmarkFit(b *testing.B) {
	for _, sus := range []int{64, 256} {
		des := generate(b, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: sus}, nil)
		for _, c := range []struct {
			name string
			sus  int
		}{{"same", sus}, {"half", sus / 2}} {
			floor := relabel(generate(b, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: c.sus}, nil).FabricSpec(), catalog.Default(), 1)
			b.Run(fmt.Sprintf("endpoints=%d/floor=%s", sus*256, c.name), func(b *testing.B) {
				b.ReportAllocs()
				defer cpuMetric(b)()
				for i := 0; i < b.N; i++ {
					f, err := Fit(des, floor, nil)
					if err != nil {
						b.Fatal(err)
					}
					if r := f.Report; r.LinksKept != r.LinksKeptMax {
						b.Fatalf("kept %d, max %d", r.LinksKept, r.LinksKeptMax)
					}
				}
			})
		}
	}
}

// cpuMetric reports the process's CPU time (user + system, GC included) per operation next to
// the wall time: on a shared machine the wall time measures the neighbours as much as the code.
func cpuMetric(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
