package topogen

import "testing"

// BenchmarkLargest generates the largest design of each kind that Generate accepts (budget.go)
// for the budget table; run it with
//
//	go test ./internal/topogen -run '^$' -bench Largest -benchmem -benchtime 1x -cpu 1
//
// and read the time and B/op of each kind.
func BenchmarkLargest(b *testing.B) {
	for _, c := range []struct {
		name string
		p    Params
	}{
		// 3 tiers of QM9700 at 1:1: r*(r/2) = 2048 leaves x 32 = 65,536 endpoints.
		{"fat-tree-8192-nodes", Params{Kind: KindFatTree, Nodes: 8192}},
		// 63:1 keeps 63 ports down: 2048 x 63 = 129,024 endpoints = 16,128 DGX.
		{"fat-tree-16128-nodes-63to1", Params{Kind: KindFatTree, Nodes: 16128, Oversubscription: 63}},
		// 3 tiers hold r*(r/2)/8 = 256 SUs of 32 DGX.
		{"rail-optimized-256-SU", Params{Kind: KindRailOptimized, ScalableUnits: 256}},
		// The object budget: 80 groups of 32 leaves, 32 spines, 128 DGX.
		{"dragonfly-plus-80-groups", Params{Kind: KindDragonflyPlus, Groups: 80}},
		// The object budget: 24^3 = 13,824 switches, one DGX each.
		{"torus-3d-24x24x24", Params{Kind: KindTorus3D, TorusDims: [3]int{24, 24, 24}}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Generate(c.p, cat); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
