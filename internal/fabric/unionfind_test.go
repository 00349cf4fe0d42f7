package fabric

import (
	"math/rand"
	"testing"
)

// TestUnionFind against brute force: after random unions, two elements share a root exactly when
// a search over the union edges joins them, and every root is its set's least member.
func TestUnionFind(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.Intn(40)
		u := NewUnionFind(n)
		adj := make([][]int, n)
		for k := rng.Intn(2 * n); k > 0; k-- {
			a, b := rng.Intn(n), rng.Intn(n)
			apart := u.Find(int32(a)) != u.Find(int32(b))
			if got := u.Union(int32(a), int32(b)); got != apart {
				t.Fatalf("Union(%d, %d) = %v, but they were apart: %v", a, b, got, apart)
			}
			adj[a], adj[b] = append(adj[a], b), append(adj[b], a)
		}
		comp := make([]int, n) // least member reachable, by search
		for i := range comp {
			comp[i] = -1
		}
		for s := 0; s < n; s++ {
			if comp[s] >= 0 {
				continue
			}
			stack := []int{s}
			comp[s] = s
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, y := range adj[x] {
					if comp[y] < 0 {
						comp[y] = s
						stack = append(stack, y)
					}
				}
			}
		}
		for i := 0; i < n; i++ {
			if r := u.Find(int32(i)); int(r) != comp[i] {
				t.Fatalf("trial %d: Find(%d) = %d, want %d (the least member of its component)", trial, i, r, comp[i])
			}
		}
	}
}
