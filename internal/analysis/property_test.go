package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// messySpec is a random small declaration with everything a user can get wrong: unknown models
// and devices, ports out of range or taken twice, loops, HCA-to-HCA cables, duplicate names,
// dual-port HCAs, odd roles and groups. Build keeps what it can; Analyze must cope with the rest.
func messySpec(rng *rand.Rand) *fabric.Spec {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	spec := &fabric.Spec{}
	var names []string
	for i, n := 0, rng.IntN(7); i < n; i++ {
		name := fmt.Sprintf("s%d", rng.IntN(n+1))
		spec.Switches = append(spec.Switches, fabric.Switch{
			Name: name, Model: pick("QM9700", "QM9700", "QM9790", "QM0000"),
			Role: pick("", "", "leaf", "spine", "core", "tor"), Group: pick("", "", "g1", "g2"),
		})
		names = append(names, name)
	}
	for i, n := 0, rng.IntN(3); i < n; i++ {
		node := fmt.Sprintf("n%d", i)
		spec.Nodes = append(spec.Nodes, fabric.Node{Name: node, Model: pick("DGX-H100", "HGX-H100", "NOPE")})
		for j, m := 0, rng.IntN(10); j < m; j++ {
			name := fabric.HCAName(node, fmt.Sprintf("mlx5_%d", j))
			spec.HCAs = append(spec.HCAs, fabric.HCA{Name: name, Node: node, Device: fmt.Sprintf("mlx5_%d", j),
				Model: pick("", "", "ConnectX-7-QSFP112"), Rail: -1})
			names = append(names, name)
		}
	}
	names = append(names, "ghost")
	for i, n := 0, rng.IntN(30); i < n; i++ {
		spec.Cables = append(spec.Cables, fabric.Cable{
			A: fabric.End{Device: names[rng.IntN(len(names))], Port: rng.IntN(5)},
			B: fabric.End{Device: names[rng.IntN(len(names))], Port: rng.IntN(5)},
		})
	}
	return spec
}

// Analyze never panics on random wirings built by fabric.Build, valid or not, and its results
// keep their invariants.
func TestPropertyNeverPanics(t *testing.T) {
	cat := catalog.Default()
	rng := rand.New(rand.NewPCG(5, 6))
	withCut, messyLinks := 0, 0
	for i := 0; i < 3000; i++ {
		var spec *fabric.Spec
		if i%2 == 0 {
			spec = messySpec(rng)
		} else {
			spec = randomSpec(rng, 8, 16)
		}
		g, _ := fabric.Build(spec, cat)
		w := &Workload{Parameters: rng.Float64() * 1e11, GradientBytesPerParam: float64(rng.IntN(3)), GPUs: rng.IntN(20), GPUsPerNode: rng.IntN(10)}
		var r Result
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("case %d panicked: %v\nspec: %+v", i, p, spec)
				}
			}()
			r = Analyze(g, w)
		}()
		checkSound(t, g, r)
		if r.Endpoints >= 2 {
			withCut++
		}
		if i%2 == 0 && r.Links > 0 {
			messyLinks++
		}
		if r.Endpoints != countEndpoints(g) || r.Links != len(g.Links) {
			t.Fatalf("case %d: counts %d endpoints, %d links", i, r.Endpoints, r.Links)
		}
		if r.MaxSwitchHops < 0 || (r.MaxSwitchHops > 0 && r.MaxSwitchHops > r.Switches) {
			t.Fatalf("case %d: hops %d with %d switches", i, r.MaxSwitchHops, r.Switches)
		}
		if len(r.PerSwitch) != g.NumSwitches() {
			t.Fatalf("case %d: %d per-switch entries for %d switches", i, len(r.PerSwitch), g.NumSwitches())
		}
		for tier, v := range r.Oversubscription {
			if math.IsNaN(v) || v < 0 || r.Worst[tier].Tier != tier {
				t.Fatalf("case %d: tier %q ratio %g witness %+v", i, tier, v, r.Worst[tier])
			}
		}
		if a := r.AllReduce; a == nil || math.IsNaN(a.RingSeconds) || math.IsNaN(a.HierarchicalSeconds) || a.RingSeconds < 0 {
			t.Fatalf("case %d: all-reduce %+v", i, a)
		}
	}
	t.Logf("%d of 3000 graphs had a cut to find; %d of 1500 messy ones kept some link", withCut, messyLinks)
}

func countEndpoints(g *fabric.Graph) int {
	n := 0
	for _, l := range g.Links {
		if (g.Devices[l.A].Kind == fabric.KindHCA) != (g.Devices[l.B].Kind == fabric.KindHCA) {
			n++
		}
	}
	return n
}
