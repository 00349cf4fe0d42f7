package bom

import (
	"fmt"
	"math/rand"
	"testing"
)

// The moves of a work order are a maximum matching of the removed and the added cables over a
// shared end (CablingChangesRenamed): checked against every matching, enumerated, on small
// random cablings where greedy pairing can go wrong (a cable whose both ends are wanted by two
// different new cables).
func TestCablingChangesFewestRowsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(27))
	end := func(dev string, port int) CableEnd { return CableEnd{Device: dev, Port: port} }
	// A cabling: n cables between lower ports lo0..lo1:1..4 and upper ports hi0..hi1:1..4, no port twice.
	cabling := func(n int) []CableRow {
		var rows []CableRow
		usedA, usedB := map[string]bool{}, map[string]bool{}
		for len(rows) < n {
			a := end(fmt.Sprintf("lo%d", rng.Intn(2)), 1+rng.Intn(4))
			b := end(fmt.Sprintf("hi%d", rng.Intn(2)), 1+rng.Intn(4))
			if usedA[a.Endpoint()] || usedB[b.Endpoint()] {
				continue
			}
			usedA[a.Endpoint()], usedB[b.Endpoint()] = true, true
			rows = append(rows, CableRow{Label: a.Endpoint(), A: a, B: b})
		}
		return rows
	}
	key := func(r CableRow) string { return r.A.Endpoint() + "|" + r.B.Endpoint() }
	for trial := 0; trial < 400; trial++ {
		prior, next := cabling(1+rng.Intn(6)), cabling(1+rng.Intn(6))
		inNext, inPrior := map[string]bool{}, map[string]bool{}
		for _, r := range next {
			inNext[key(r)] = true
		}
		for _, r := range prior {
			inPrior[key(r)] = true
		}
		var gone, added []CableRow
		for _, r := range prior {
			if !inNext[key(r)] {
				gone = append(gone, r)
			}
		}
		for _, r := range next {
			if !inPrior[key(r)] {
				added = append(added, r)
			}
		}
		// Every matching, enumerated: the most pairs sharing the A end or the B end.
		var best func(i int, used map[int]bool) int
		best = func(i int, used map[int]bool) int {
			if i == len(gone) {
				return 0
			}
			m := best(i+1, used)
			for j, a := range added {
				if used[j] || (a.A.Endpoint() != gone[i].A.Endpoint() && a.B.Endpoint() != gone[i].B.Endpoint()) {
					continue
				}
				used[j] = true
				m = max(m, 1+best(i+1, used))
				delete(used, j)
			}
			return m
		}
		want := best(0, map[int]bool{})
		ch := CablingChanges(prior, next)
		moves, rows := 0, len(ch)
		for _, c := range ch {
			if c.Action == ChangeMove {
				moves++
			}
		}
		if moves != want || rows != len(gone)+len(added)-want {
			t.Fatalf("trial %d: %d moves in %d rows; the most is %d moves in %d rows\nprior %v\nnext %v", trial, moves, rows, want,
				len(gone)+len(added)-want, prior, next)
		}
	}
}
