package waves

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

func design(t *testing.T, p topogen.Params) *fabric.Spec {
	t.Helper()
	d, err := topogen.Generate(p, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	return d.FabricSpec()
}

func role(spec *fabric.Spec, r string) []string {
	var out []string
	for _, s := range spec.Switches {
		if s.Role == r {
			out = append(out, s.Name)
		}
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// The case: the spines of a 2-SU SuperPOD with a degraded floor of 0.75. Taking k of S
// spines down leaves (S-k)/S of every leaf's uplinks, so the largest wave is the largest k with
// (S-k)/S >= 0.75 and the fewest waves are ceil(S/k): 4 waves of 2 for 8 spines.
func TestSuperPODSpinesGoInWavesOfTheClosedForm(t *testing.T) {
	spec := design(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2})
	spines := role(spec, fabric.RoleSpine)
	s := len(spines)
	if s == 0 {
		t.Fatal("no spines in the design")
	}
	k := 0
	for k+1 <= s && 4*(s-(k+1)) >= 3*s {
		k++
	}
	want := (s + k - 1) / k
	p, err := Split(spec, catalog.Default(), spines, Limits{MinBisectionRatio: ptr(0.75)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Waves) != want || !p.Fewest {
		t.Fatalf("%d spines: %d waves (fewest %v), want %d of at most %d", s, len(p.Waves), p.Fewest, want, k)
	}
	if s == 8 && want != 4 {
		t.Fatalf("8 spines at 0.75 should be 4 waves, the closed form says %d", want)
	}
	seen := map[string]int{}
	for _, w := range p.Waves {
		if !w.Holds() || len(w.Devices) > k || w.Analysis.BisectionRatio < 0.75 || len(w.DrainedNodes) != 0 {
			t.Errorf("wave %v: holds %v, ratio %v, drained %v", w.Devices, w.Holds(), w.Analysis.BisectionRatio, w.DrainedNodes)
		}
		for _, d := range w.Devices {
			seen[d]++
		}
	}
	for _, sp := range spines {
		if seen[sp] != 1 {
			t.Errorf("%s is in %d waves", sp, seen[sp])
		}
	}
}

// A leaf of a rail-optimized design is the only path of its rail's HCAs: taking it down drains
// its nodes, and with max_unreachable_endpoints = 0 no wave can hold it; the refusal names it.
func TestALeafThatCutsOffNodesIsRefusedByName(t *testing.T) {
	spec := design(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 1})
	leaves := role(spec, fabric.RoleLeaf)
	p, err := Split(spec, catalog.Default(), leaves[:1], Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if w := p.Waves[0]; len(w.DrainedNodes) == 0 || w.Unreachable != len(w.DrainedNodes) {
		t.Fatalf("leaf %s down drains %v (%d HCAs cut off)", leaves[0], w.DrainedNodes, w.Unreachable)
	}
	_, err = Split(spec, catalog.Default(), leaves[:2], Limits{MaxUnreachableEndpoints: ptr(0)})
	var r *RefusedError
	if !errors.As(err, &r) || len(r.Refused) != 2 || !strings.Contains(err.Error(), leaves[0]+" cannot go down even alone") ||
		!strings.Contains(err.Error(), "max_unreachable_endpoints allows 0") {
		t.Fatalf("err = %v", err)
	}
}

// On small fabrics the search's wave count equals the minimum over every partition of the
// devices into waves, found by enumerating the partitions (restricted growth strings, Knuth,
// TAOCP 4A, 7.2.1.5, Algorithm H's order) and judging each block.
func TestFewestMatchesEveryPartition(t *testing.T) {
	for _, tc := range []struct {
		sus     int
		spines  int // the first spines to take down
		leaves  int // and the first leaves
		ratio   float64
		unreach *int
	}{{1, 4, 2, 0.5, nil}, {1, 4, 3, 0.75, nil}, {2, 6, 1, 0.7, nil}, {2, 5, 2, 0.6, ptr(64)}, {1, 4, 0, 0.5, nil}} {
		t.Run(fmt.Sprintf("%d SU, %d spines and %d leaves at %v", tc.sus, tc.spines, tc.leaves, tc.ratio), func(t *testing.T) {
			spec := design(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: tc.sus})
			devices := append(role(spec, fabric.RoleSpine)[:tc.spines], role(spec, fabric.RoleLeaf)[:tc.leaves]...)
			lim := Limits{MinBisectionRatio: ptr(tc.ratio), MaxUnreachableEndpoints: tc.unreach}
			p, err := Split(spec, catalog.Default(), devices, lim)
			if err != nil {
				t.Fatal(err)
			}
			j := &judge{spec: spec, cat: catalog.Default(), lim: lim, minRatio: tc.ratio}
			j.graph, _ = fabric.Build(spec, j.cat)
			best := len(devices) + 1
			memo := map[string]bool{}
			holds := func(ws []string) bool {
				key := strings.Join(ws, ",")
				if v, ok := memo[key]; ok {
					return v
				}
				memo[key] = j.wave(ws).Holds()
				return memo[key]
			}
			a := make([]int, len(devices))
			var rec func(i, blocks int)
			rec = func(i, blocks int) {
				if blocks >= best {
					return
				}
				if i == len(devices) {
					groups := make([][]string, blocks)
					for d, b := range a {
						groups[b] = append(groups[b], devices[d])
					}
					for _, g := range groups {
						if !holds(g) {
							return
						}
					}
					best = blocks
					return
				}
				for b := 0; b <= blocks; b++ {
					a[i] = b
					nb := blocks
					if b == blocks {
						nb++
					}
					rec(i+1, nb)
				}
			}
			rec(0, 0)
			t.Logf("%v: %d waves", devices, best)
			if len(p.Waves) != best {
				t.Fatalf("%v: %d waves, the fewest over every partition is %d", devices, len(p.Waves), best)
			}
		})
	}
}

// Nodes of a rollout are split by max_unreachable_endpoints: a node in a wave is down with its H
// HCAs, so a wave holds at most ⌊L/H⌋ nodes and n nodes take ⌈n/⌊L/H⌋⌉ waves (closed form; the
// HCA count per node is read from the spec, not from the code under test). A limit below H
// refuses each node by name.
func TestNodesGoInWavesOfTheirEndpoints(t *testing.T) {
	spec := design(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 6})
	var nodes []string
	for _, n := range spec.Nodes {
		nodes = append(nodes, n.Name)
	}
	hcas := map[string]int{}
	for _, h := range spec.HCAs {
		hcas[h.Node]++
	}
	per := hcas[nodes[0]]
	if per == 0 || len(nodes) != 6 {
		t.Fatalf("%d nodes, %d HCAs on %s", len(nodes), per, nodes[0])
	}
	for _, limit := range []int{per, 2 * per, 2*per + 1, 3 * per, 6 * per} {
		k := limit / per
		want := (len(nodes) + k - 1) / k
		p, err := Split(spec, catalog.Default(), nodes, Limits{MaxUnreachableEndpoints: ptr(limit)})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Waves) != want || !p.Fewest {
			t.Fatalf("limit %d: %d waves (fewest %v), want %d", limit, len(p.Waves), p.Fewest, want)
		}
		for _, w := range p.Waves {
			if w.Unreachable != per*len(w.Devices) || len(w.DrainedNodes) != len(w.Devices) {
				t.Fatalf("limit %d: wave %v counts %d endpoints, drains %v", limit, w.Devices, w.Unreachable, w.DrainedNodes)
			}
		}
	}
	_, err := Split(spec, catalog.Default(), nodes[:1], Limits{MaxUnreachableEndpoints: ptr(per - 1)})
	if err == nil || !strings.Contains(err.Error(), nodes[0]+" cannot go down even alone: it takes "+fmt.Sprint(per)+" endpoints out of service") {
		t.Fatalf("err = %v", err)
	}
}
