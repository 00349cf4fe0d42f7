package analysis

import "sort"

// Sides of a cut. Side A holds floor(N/2) endpoints.
const (
	sideA uint8 = 0
	sideB uint8 = 1
)

// cutValue is the exact capacity of the best balanced cut that places the switches as given.
type cutValue struct {
	gbps  float64 // one direction, A to B
	links int     // crossing links, access links of moved endpoints included
	moved []int   // endpoints placed on the other side from their switch
}

// evaluate places the endpoints for a given placement of the switches and returns the cut's
// capacity. Every endpoint goes with its switch, except that side A must hold exactly
// floor(N/2) of them: when the A switches hold nA endpoints, |nA - h| endpoints move across and
// each move cuts that endpoint's access link. Moving the lowest-rate endpoints of the over-full
// side is optimal, since any such set costs the sum of its rates and nothing else changes.
// Capacity is counted in one direction: a link joins two ports of the same rate and its A -> B
// direction has that rate.
func (t *topo) evaluate(side []uint8) cutValue {
	var v cutValue
	for s := range t.dev {
		for k := t.start[s]; k < t.start[s+1]; k++ {
			if y := t.nbr[k]; int32(s) < y && side[s] != side[y] {
				v.gbps += t.cap[k]
				v.links++
			}
		}
	}
	nA := 0
	for s := range t.dev {
		if side[s] == sideA {
			nA += int(t.epN[s])
		}
	}
	over, excess := sideA, nA-t.half
	if excess < 0 {
		over, excess = sideB, -excess
	}
	if excess == 0 {
		return v
	}
	var cand []int
	for i, e := range t.eps {
		if side[e.sw] == over {
			cand = append(cand, i)
		}
	}
	sort.SliceStable(cand, func(i, j int) bool { return t.eps[cand[i]].gbps < t.eps[cand[j]].gbps })
	v.moved = cand[:excess]
	sort.Ints(v.moved)
	for _, i := range v.moved {
		v.gbps += t.eps[i].gbps
	}
	v.links += excess
	return v
}

// switchCut is the capacity of the switch-to-switch links that cross, and the endpoints on the
// A switches: the two terms of the approximate objective used while searching.
func (t *topo) switchCut(side []uint8) (gbps float64, nA int) {
	for s := range t.dev {
		if side[s] == sideA {
			nA += int(t.epN[s])
		}
		for k := t.start[s]; k < t.start[s+1]; k++ {
			if y := t.nbr[k]; int32(s) < y && side[s] != side[y] {
				gbps += t.cap[k]
			}
		}
	}
	return gbps, nA
}

// approx is the search objective: the switch cut plus the imbalance paid at the common port
// rate. It equals the exact capacity when every port runs at the common rate.
func (t *topo) approx(cut float64, nA int) float64 {
	d := nA - t.half
	if d < 0 {
		d = -d
	}
	return cut + float64(d)*t.rate
}
