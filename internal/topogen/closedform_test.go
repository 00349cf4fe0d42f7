package topogen

import (
	"math"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// TestClosedForms checks generated fabrics against the closed forms of Leiserson (2-tier), Al-Fares
// et al. (3-tier k-ary fat tree) and Dally & Towles (k-ary n-cube)
// through the fabric analysis: the proved lower bound and the witnessed cut must both equal the
// formula (B = 400 Gb/s per direction).
func TestClosedForms(t *testing.T) {
	const B = 400.0
	cases := []struct {
		name   string
		p      Params
		want   func(d *Design) float64
		reason string
	}{
		{"2-tier non-blocking, 512 endpoints", Params{Kind: KindFatTree, Nodes: 64},
			func(d *Design) float64 { return 512 * B / 2 }, "N*B/2 (Leiserson)"},
		{"2-tier 3:1, 384 endpoints", Params{Kind: KindFatTree, Nodes: 48, Oversubscription: 3},
			func(d *Design) float64 { return 8 * 16 * B / 2 }, "min(N*B/2, L*u*B/2) with L = 8 leaves, u = 16 up"},
		{"3-tier non-blocking, 4096 endpoints", Params{Kind: KindFatTree, Nodes: 512, Tiers: 3},
			func(d *Design) float64 { return 4096 * B / 2 }, "N*B/2 (Al-Fares, full bisection)"},
		{"rail-optimized 2 SU", Params{Kind: KindRailOptimized, ScalableUnits: 2},
			func(d *Design) float64 { return 512 * B / 2 }, "full fat tree: N*B/2"},
		{"torus 4x4x4", Params{Kind: KindTorus3D, TorusDims: [3]int{4, 4, 4}, EndpointsPerSwitch: 8},
			func(d *Design) float64 { return 2 * 4 * 4 * B }, "2k^2 links (Dally & Towles)"},
		{"torus 6x6x6", Params{Kind: KindTorus3D, TorusDims: [3]int{6, 6, 6}, EndpointsPerSwitch: 8},
			func(d *Design) float64 { return 2 * 6 * 6 * B }, "2k^2 links (Dally & Towles)"},
		// 6 leaves of 32 endpoint ports: 192 global links a group at 1:1, 64 to each of 3 peers,
		// 24 on each of the 8 spines.
		{"dragonfly+ 4 groups", Params{Kind: KindDragonflyPlus, Groups: 4, LeavesPerGroup: 6, SpinesPerGroup: 8},
			func(d *Design) float64 {
				// g^2/4 group pairs cross a cut that splits the groups in halves (Shpiner et al.),
				// each joined by m global links.
				m := 0
				g0, g1 := d.Groups[0].Name, d.Groups[1].Name
				for _, c := range d.CableList {
					ga, gb := d.Switches[c.A.Device].Group, d.Switches[c.B.Device].Group
					if d.CableTiers[EndKey(c.A)] == TierGlobal && ((ga == g0 && gb == g1) || (ga == g1 && gb == g0)) {
						m++
					}
				}
				return math.Min(float64(d.Summary.Endpoints)*B/2, 4*4/4*float64(m)*B)
			}, "min(N*B/2, (g^2/4) x m global links)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Generate(tc.p, catalog.Default())
			if err != nil {
				t.Fatal(err)
			}
			g, problems := fabric.Build(d.Spec(), catalog.Default())
			if fabric.HasErrors(problems) {
				t.Fatalf("generated fabric does not build: %v", problems)
			}
			r := analysis.Analyze(g, nil)
			want := tc.want(d)
			if want == 0 {
				t.Fatalf("closed form is 0: the test's own count is wrong")
			}
			// The lower bound is a float computation (rounded down on a 1e-9 grid): compare to a
			// part in a million, far below one link.
			near := func(x float64) bool { return math.Abs(x-want) <= want*1e-6 }
			if !near(r.BisectionLowerGbps) || !near(r.BisectionUpperGbps) {
				t.Errorf("bisection lower %.0f, upper %.0f Gb/s; closed form %s = %.0f", r.BisectionLowerGbps, r.BisectionUpperGbps, tc.reason, want)
			}
		})
	}
}
