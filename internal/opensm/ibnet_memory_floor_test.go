package opensm

import (
	"runtime"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A floor's text is parsed into nodes and links by a scanner that makes no copy of a line and
// slices sized once: a 16-SU floor (4,096 HCAs) allocates under 4 bytes per byte of its text and
// keeps under 1.5 (issue 32 point 5: 29.6 allocated when its port lines and links were grown by
// append, 16.1 with a regexp per line; 2.96 and 1.11 with the scanner).
func TestParseTopologyMemoryFloor(t *testing.T) {
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 16}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	g, probs := fabric.Build(d.Spec(), catalog.Default())
	if fabric.HasErrors(probs) {
		t.Fatal(probs)
	}
	text := ExpectedTopology(g)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	disc, err := ParseTopology(text)
	runtime.ReadMemStats(&after)
	var held runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&held)
	kept := float64(held.HeapAlloc-before.HeapAlloc) / float64(len(text))
	t.Logf("kept %.2f bytes per byte", kept)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(g.Links); len(disc.Links) != want {
		t.Fatalf("%d links read, the floor has %d", len(disc.Links), want)
	}
	per := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(text))
	t.Logf("%d bytes, %d links: %.2f bytes allocated per byte", len(text), len(disc.Links), per)
	runtime.KeepAlive(disc)
	if per > 4 || kept > 1.5 {
		t.Errorf("%.1f bytes allocated and %.1f kept per byte read", per, kept)
	}
}
