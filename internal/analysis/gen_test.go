package analysis

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Compact generators of fabric.Specs for the tests and benchmarks: switches, DGX H100 nodes with
// their ConnectX-7 HCAs, and cables; no racks (cable lengths stay unknown, which Build accepts).

// specBuilder hands out ports in order on every device it creates.
type specBuilder struct {
	spec  fabric.Spec
	next  map[string]int
	nodes int
	hcas  int // HCAs on the current node
}

func newSpecBuilder() *specBuilder { return &specBuilder{next: map[string]int{}} }

func (b *specBuilder) sw(name, role, group string) string {
	b.spec.Switches = append(b.spec.Switches, fabric.Switch{Name: name, Model: "QM9700", Role: role, Group: group})
	return name
}

// hca adds an HCA on the current DGX node, opening a new node every 8 HCAs.
func (b *specBuilder) hca() string {
	if b.nodes == 0 || b.hcas == 8 {
		b.nodes++
		b.hcas = 0
		b.spec.Nodes = append(b.spec.Nodes, fabric.Node{Name: fmt.Sprintf("gpu%05d", b.nodes), Model: "DGX-H100"})
	}
	node := fmt.Sprintf("gpu%05d", b.nodes)
	dev := fmt.Sprintf("mlx5_%d", b.hcas)
	b.hcas++
	name := fabric.HCAName(node, dev)
	b.spec.HCAs = append(b.spec.HCAs, fabric.HCA{Name: name, Node: node, Device: dev, Rail: -1})
	return name
}

func (b *specBuilder) port(dev string) int {
	b.next[dev]++
	return b.next[dev]
}

func (b *specBuilder) cable(x, y string) {
	b.spec.Cables = append(b.spec.Cables, fabric.Cable{A: fabric.End{Device: x, Port: b.port(x)}, B: fabric.End{Device: y, Port: b.port(y)}})
}

// treeParams describes a two- or three-tier folded Clos. Leaves are numbered pod by pod.
type treeParams struct {
	pods         int // 1 for two tiers
	podLeaves    int // leaves per pod
	podSpines    int // spines per pod (all spines for two tiers)
	hostsPerLeaf int // HCAs cabled to each leaf
	leafUp       int // uplinks per leaf, round-robin over the pod's spines
	cores        int // 0 for two tiers
	spineUp      int // uplinks per spine, round-robin over its core group
	// shuffle, when set, deals each pod's spine uplinks to the cores in a random order (every
	// core keeps its number of links to each pod), so that no two cores are twins.
	shuffle *rand.Rand
}

// fatTree builds the tree. Spine j of every pod connects to core group j (cores/podSpines cores),
// the Al-Fares wiring; parallel links appear when there are fewer switches than uplinks.
func fatTree(p treeParams) *fabric.Spec {
	b := newSpecBuilder()
	cg := 0
	if p.cores > 0 {
		cg = p.cores / p.podSpines
	}
	var cores []string
	for c := 0; c < p.cores; c++ {
		cores = append(cores, b.sw(fmt.Sprintf("core%04d", c+1), fabric.RoleCore, ""))
	}
	for pod := 0; pod < p.pods; pod++ {
		var spines []string
		for j := 0; j < p.podSpines; j++ {
			s := b.sw(fmt.Sprintf("spine%04d", pod*p.podSpines+j+1), fabric.RoleSpine, "")
			spines = append(spines, s)
		}
		for i := 0; i < p.podLeaves; i++ {
			leaf := b.sw(fmt.Sprintf("leaf%04d", pod*p.podLeaves+i+1), fabric.RoleLeaf, "")
			for h := 0; h < p.hostsPerLeaf; h++ {
				b.cable(b.hca(), leaf)
			}
			for u := 0; u < p.leafUp; u++ {
				b.cable(leaf, spines[u%p.podSpines])
			}
		}
		if p.cores > 0 {
			var slots []int
			for j := range spines {
				for u := 0; u < p.spineUp; u++ {
					slots = append(slots, j*cg+u%cg)
				}
			}
			if p.shuffle != nil {
				p.shuffle.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })
			}
			for i, c := range slots {
				b.cable(spines[i/p.spineUp], cores[c])
			}
		}
	}
	return &b.spec
}

// threeTier64 is the non-blocking three-tier fat tree of 64-port switches for the given number
// of endpoints (a multiple of 1,024): pods of 32 leaves and 32 spines, endpoints/64 cores.
func threeTier64(endpoints int) *fabric.Spec {
	pods := endpoints / 1024
	return fatTree(treeParams{pods: pods, podLeaves: 32, podSpines: 32, hostsPerLeaf: 32, leafUp: 32, cores: endpoints / 64, spineUp: 32})
}

// torus3D builds a k x k x k torus with perHost endpoints on every switch.
func torus3D(k, perHost int) *fabric.Spec { //nolint:unparam // a generator of the test fabrics; every torus here has one host per switch so far
	b := newSpecBuilder()
	name := func(x, y, z int) string { return fmt.Sprintf("t%02d-%02d-%02d", x%k, y%k, z%k) }
	for x := 0; x < k; x++ {
		for y := 0; y < k; y++ {
			for z := 0; z < k; z++ {
				b.sw(name(x, y, z), "", "")
				for h := 0; h < perHost; h++ {
					b.cable(b.hca(), name(x, y, z))
				}
			}
		}
	}
	for x := 0; x < k; x++ {
		for y := 0; y < k; y++ {
			for z := 0; z < k; z++ {
				b.cable(name(x, y, z), name(x+1, y, z))
				b.cable(name(x, y, z), name(x, y+1, z))
				b.cable(name(x, y, z), name(x, y, z+1))
			}
		}
	}
	return &b.spec
}

// dragonflyPlus builds g groups of a leaves and a spines (complete bipartite inside the group),
// p endpoints on every leaf, and one global link between every pair of groups, spread over the
// spines round-robin.
func dragonflyPlus(groups, a, p int) *fabric.Spec {
	b := newSpecBuilder()
	spine := func(g, j int) string { return fmt.Sprintf("g%02d-spine%02d", g, j) }
	for g := 0; g < groups; g++ {
		grp := fmt.Sprintf("g%02d", g)
		for j := 0; j < a; j++ {
			b.sw(spine(g, j), fabric.RoleSpine, grp)
		}
		for i := 0; i < a; i++ {
			leaf := b.sw(fmt.Sprintf("g%02d-leaf%02d", g, i), fabric.RoleLeaf, grp)
			for h := 0; h < p; h++ {
				b.cable(b.hca(), leaf)
			}
			for j := 0; j < a; j++ {
				b.cable(leaf, spine(g, j))
			}
		}
	}
	used := make([]int, groups)
	for g := 0; g < groups; g++ {
		for h := g + 1; h < groups; h++ {
			b.cable(spine(g, used[g]%a), spine(h, used[h]%a))
			used[g]++
			used[h]++
		}
	}
	return &b.spec
}

// without drops a switch and every cable that touches it (a failed or not yet installed switch).
func without(spec *fabric.Spec, name string) *fabric.Spec {
	out := *spec
	out.Switches = nil
	for _, s := range spec.Switches {
		if s.Name != name {
			out.Switches = append(out.Switches, s)
		}
	}
	out.Cables = nil
	for _, c := range spec.Cables {
		if c.A.Device != name && c.B.Device != name {
			out.Cables = append(out.Cables, c)
		}
	}
	return &out
}

// dropCables drops the cables for which drop says so.
func dropCables(spec *fabric.Spec, drop func(c fabric.Cable) bool) *fabric.Spec {
	out := *spec
	out.Cables = nil
	for _, c := range spec.Cables {
		if !drop(c) {
			out.Cables = append(out.Cables, c)
		}
	}
	return &out
}

// randomSpec is a small valid wiring: 1..maxSw switches, up to maxEp HCAs each cabled to a random
// switch (some left uncabled), and random switch-to-switch cables, parallel links and loops
// included.
func randomSpec(rng *rand.Rand, maxSw, maxEp int) *fabric.Spec {
	b := newSpecBuilder()
	nsw := 1 + rng.IntN(maxSw)
	var sws []string
	for i := 0; i < nsw; i++ {
		sws = append(sws, b.sw(fmt.Sprintf("s%d", i), "", ""))
	}
	nep := rng.IntN(maxEp + 1)
	for i := 0; i < nep; i++ {
		h := b.hca()
		if rng.IntN(8) != 0 {
			b.cable(h, sws[rng.IntN(nsw)])
		}
	}
	ncab := rng.IntN(3 * nsw)
	for i := 0; i < ncab; i++ {
		b.cable(sws[rng.IntN(nsw)], sws[rng.IntN(nsw)])
	}
	return &b.spec
}

// mustBuild builds a spec and fails the test on structural errors.
func mustBuild(tb testing.TB, spec *fabric.Spec) *fabric.Graph {
	tb.Helper()
	g, problems := fabric.Build(spec, catalog.Default())
	for _, p := range problems {
		if p.Severity == fabric.Error {
			tb.Fatalf("fabric.Build: %s", p)
		}
	}
	return g
}
