package asbuilt

import (
	"math/rand"
	"testing"
)

// hopcroftKarp against brute force: every matching of up to 7 left vertices into up to 6 right
// ones on random sparse graphs; the result is a matching (each vertex once, on an edge) of the
// largest size.
func TestHopcroftKarpBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 2000; trial++ {
		nl, nr := 1+rng.Intn(7), 1+rng.Intn(6)
		adjs := make([][]int32, nl)
		for u := range adjs {
			for v := 0; v < nr; v++ {
				if rng.Intn(3) == 0 {
					adjs[u] = append(adjs[u], int32(v))
				}
			}
			rng.Shuffle(len(adjs[u]), func(a, b int) { adjs[u][a], adjs[u][b] = adjs[u][b], adjs[u][a] })
		}
		adj := func(u int32, k int) (int32, bool) {
			if k < len(adjs[u]) {
				return adjs[u][k], true
			}
			return -1, false
		}
		ml, mr := hopcroftKarp(nl, nr, adj)
		size := 0
		for u, v := range ml {
			if v < 0 {
				continue
			}
			size++
			edge := false
			for _, w := range adjs[u] {
				edge = edge || w == v
			}
			if !edge || mr[v] != int32(u) {
				t.Fatalf("trial %d: %d -> %d is not a matched edge", trial, u, v)
			}
		}
		used := make([]bool, nr)
		best := 0
		var rec func(u, got int)
		rec = func(u, got int) {
			if u == nl {
				best = max(best, got)
				return
			}
			rec(u+1, got)
			for _, v := range adjs[u] {
				if !used[v] {
					used[v] = true
					rec(u+1, got+1)
					used[v] = false
				}
			}
		}
		rec(0, 0)
		if size != best {
			t.Fatalf("trial %d: matching of %d, the largest has %d (%v)", trial, size, best, adjs)
		}
	}
}
