package analysis

import (
	"math/rand/v2"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// A chain leafA - s1 - s2 - s3 - leafB: 4 switch-to-switch links between the two endpoints'
// leaves; the witness names one endpoint at each end.
func TestHopsChain(t *testing.T) {
	b := newSpecBuilder()
	names := []string{"leafA", "s1", "s2", "s3", "leafB"}
	for _, n := range names {
		b.sw(n, "", "")
	}
	ea, eb := b.hca(), b.hca()
	b.cable(ea, "leafA")
	b.cable(eb, "leafB")
	for i := 0; i+1 < len(names); i++ {
		b.cable(names[i], names[i+1])
	}
	_, r := analyze(t, &b.spec)
	if r.MaxSwitchHops != 4 || r.HopsWitness != [2]string{ea, eb} {
		t.Errorf("hops %d witness %v, want 4 between %s and %s", r.MaxSwitchHops, r.HopsWitness, ea, eb)
	}
}

// naiveHops is the all-pairs maximum over endpoint pairs, one BFS per endpoint's switch.
func naiveHops(tp *topo) int {
	best := 0
	dist := make([]int32, tp.n())
	for _, e := range tp.eps {
		tp.bfs(e.sw, dist, nil)
		for _, f := range tp.eps {
			if d := int(dist[f.sw]); d > best {
				best = d
			}
		}
	}
	return best
}

// The twin-class shortcut gives the same diameter as the naive search, on random wirings and on
// trees whose leaves are twins.
func TestHopsMatchesNaive(t *testing.T) {
	cat := catalog.Default()
	rng := rand.New(rand.NewPCG(11, 12))
	specs := []*fabric.Spec{
		fatTree(treeParams{pods: 4, podLeaves: 4, podSpines: 4, hostsPerLeaf: 2, leafUp: 4, cores: 4, spineUp: 4}),
		dragonflyPlus(5, 3, 2),
		torus3D(3, 1),
	}
	for i := 0; i < 300; i++ {
		specs = append(specs, randomSpec(rng, 10, 12))
	}
	for i, spec := range specs {
		g, _ := fabric.Build(spec, cat)
		r := Analyze(g, nil)
		if want := naiveHops(newTopo(g)); r.MaxSwitchHops != want {
			t.Fatalf("spec %d: hops %d, naive %d", i, r.MaxSwitchHops, want)
		}
	}
}
