package analysis

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// ring builds k switches in a cycle with one endpoint each.
func ring(k int) *fabric.Spec {
	b := newSpecBuilder()
	for i := 0; i < k; i++ {
		b.cable(b.hca(), b.sw(fmt.Sprintf("r%02d", i), "", ""))
	}
	for i := 0; i < k; i++ {
		b.cable(fmt.Sprintf("r%02d", i), fmt.Sprintf("r%02d", (i+1)%k))
	}
	return &b.spec
}

// VLB on a ring of even k: every directed link carries k/8 * B in phase 1 and as much mirrored in
// phase 2, so theta = 4/k, and theta * k/2 * B = 2B: the 2 links of any cut of a ring.
func TestVLBRing(t *testing.T) {
	for _, k := range []int{4, 8, 10, 16} {
		_, r := analyze(t, ring(k))
		if !near(r.BisectionLowerGbps, 2*B) || r.BisectionUpperGbps != 2*B {
			t.Errorf("k=%d: lower %g upper %g, want %g", k, r.BisectionLowerGbps, r.BisectionUpperGbps, 2*B)
		}
		if k > 4 && !near(r.BisectionRatio, 4/float64(k)) {
			t.Errorf("k=%d: ratio %g, want 4/k", k, r.BisectionRatio)
		}
	}
}

// Why the intermediates are the top tier: with the leaves as intermediates (uniform all-to-all
// traffic) a non-blocking two-tier tree proves only 400/750 of its bisection, because every
// uplink carries up the leaf's all-to-all traffic and down everyone else's.
func TestVLBTopTierBeatsAllToAll(t *testing.T) {
	g := mustBuild(t, fatTree(treeParams{pods: 1, podLeaves: 16, podSpines: 8, hostsPerLeaf: 32, leafUp: 32}))
	tp := newTopo(g)
	var leaves, top []int32
	for s := range tp.dev {
		if tp.level[s] == 1 {
			leaves = append(leaves, int32(s))
		} else {
			top = append(top, int32(s))
		}
	}
	single := func(M []int32) [][]int32 {
		out := make([][]int32, len(M))
		for i, m := range M {
			out[i] = []int32{m}
		}
		return out
	}
	if th, _ := tp.vlbTheta(top, single(top)); !near(th, 1) {
		t.Errorf("top tier: theta %g, want 1", th)
	}
	if th, _ := tp.vlbTheta(leaves, single(leaves)); !near(th, 400.0/750) {
		t.Errorf("leaves: theta %g, want 400/750", th)
	}
}

// Pushing the flow once per twin class gives the same theta as once per intermediate.
func TestVLBTwinClassesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	specs := []*fabric.Spec{
		fatTree(treeParams{pods: 8, podLeaves: 4, podSpines: 4, hostsPerLeaf: 4, leafUp: 4, cores: 16, spineUp: 4}),
		fatTree(treeParams{pods: 4, podLeaves: 8, podSpines: 4, hostsPerLeaf: 32, leafUp: 12, cores: 8, spineUp: 16}),
		fatTree(treeParams{pods: 4, podLeaves: 4, podSpines: 4, hostsPerLeaf: 8, leafUp: 8, cores: 8, spineUp: 8, shuffle: rng}),
		without(fatTree(treeParams{pods: 4, podLeaves: 4, podSpines: 4, hostsPerLeaf: 8, leafUp: 8, cores: 8, spineUp: 8}), "core0003"),
		dragonflyPlus(5, 3, 2),
	}
	for i, spec := range specs {
		tp := newTopo(mustBuild(t, spec))
		var M []int32
		for s := range tp.dev {
			if int(tp.level[s]) == tp.maxLevel {
				M = append(M, int32(s))
			}
		}
		var single [][]int32
		for _, m := range M {
			single = append(single, []int32{m})
		}
		classes := tp.twinClasses(M, func(s int32) bool { return tp.epN[s] == 0 })
		a, _ := tp.vlbTheta(M, classes)
		b, _ := tp.vlbTheta(M, single)
		if i == 0 && len(classes) != 4 {
			t.Errorf("spec 0: %d twin classes of cores, want 4", len(classes))
		}
		if !near(a, b) {
			t.Errorf("spec %d: theta %g with %d classes, %g with %d singletons", i, a, len(classes), b, len(single))
		}
	}
}

// A fabric in pieces proves nothing (theta 0) but stays sound.
func TestVLBDisconnected(t *testing.T) {
	b := newSpecBuilder()
	b.cable(b.hca(), b.sw("a", "", ""))
	b.cable(b.hca(), "a")
	b.cable(b.hca(), b.sw("b", "", ""))
	b.cable(b.hca(), "b")
	g, _ := fabric.Build(&b.spec, catalog.Default())
	r := Analyze(g, nil)
	checkSound(t, g, r)
	if r.BisectionLowerGbps != 0 || r.BisectionUpperGbps != 0 {
		t.Errorf("lower %g upper %g, want 0 and 0 (each piece is a side)", r.BisectionLowerGbps, r.BisectionUpperGbps)
	}
}

// With the top tier thinned (forced here by small budgets) the bound stays sound; how much it
// loses is logged.
func TestVLBThinnedStaysSound(t *testing.T) {
	defer func(v float64) { lowerTopBudget = v }(lowerTopBudget)
	for _, budget := range []float64{1, 1e5} {
		lowerTopBudget = budget
		for _, spec := range []*fabric.Spec{torus3D(6, 1), fatTree(treeParams{pods: 4, podLeaves: 4, podSpines: 4, hostsPerLeaf: 8, leafUp: 8, cores: 8, spineUp: 8})} {
			_, r := analyze(t, spec)
			t.Logf("budget %g: lower %g upper %g", budget, r.BisectionLowerGbps, r.BisectionUpperGbps)
		}
	}
}
