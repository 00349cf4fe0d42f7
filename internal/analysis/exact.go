package analysis

import (
	"math"
	"math/big"
)

// Exact numbers: what the analysis reports carries no float noise, and rounding never breaks a
// proof.
//
// The lattice. The capacity of a cut is a sum of link rates, so every cut, the bisection among
// them, is a multiple of g, the greatest common divisor of the link rates (rates are read as the
// exact binary fractions float64 holds, so g is exact: 400 when every link runs at 400 Gb/s, 200
// with a mix of 400 and 200). Then:
//
//   - a proved lower bound x (no balanced cut is below x) proves the least multiple of g that is
//     at least x: the bisection is a multiple of g and at least x. Before that, x is lowered by
//     a relative 1e-9, the error forgiven for the floating-point sums behind it (the Valiant
//     loads add up to a million shares; their rounding error is below 1e-10 relative), so that
//     noise above a lattice point never lifts the bound to the next one. 28799.999971200003
//     becomes 28800, and 28800.0000001 stays 28800, never 29200. This rounds the proof's real
//     number down to what it proves, never up past it.
//   - an upper bound is a real cut, whose capacity is a lattice point: it is rounded to the
//     nearest multiple of g, which removes summation noise only.
//
// Ratios. bisection_ratio is lower / full taken as exact rationals of the rounded values, then
// converted once. A ratio a user reads is shown exactly when its decimal expansion ends within
// exactPlaces digits (31/32 = 0.96875, 63/64 = 0.984375: exact binary fractions, no noise) and
// otherwise to ratioPlaces decimals, rounded in the direction that keeps its meaning: DOWN for a
// proved lower bound (bisection_ratio: the gate min_bisection_ratio may fail a fabric by less
// than 1e-4, never pass one that does not meet it), UP for a ratio that must not be understated
// (oversubscription: 64/63 reads 1.0159, 4/3 reads 1.3334). The all-reduce estimate (not a bound)
// is rounded to nearest at timeSignificant significant digits: far below the model's own
// accuracy, so exact values (5.5890625 s) stay, and float noise (0.4959677410000001) goes.

const (
	ratioPlaces     = 4
	exactPlaces     = 6
	timeSignificant = 9
	latticeSlack    = 1e-9 // relative float error forgiven before snapping a proved bound
)

// latticeStep is g, the gcd of every link rate (switch links and access links) of t; 0 when
// there is no link or a rate is not a positive finite number.
func latticeStep(t *topo) float64 {
	num := new(big.Int) // gcd of the numerators over a common denominator 2^minExp
	distinct := map[float64]bool{}
	var rates []float64
	add := func(r float64) {
		if !distinct[r] {
			distinct[r] = true
			rates = append(rates, r)
		}
	}
	for _, c := range t.cap {
		add(c)
	}
	for _, e := range t.eps {
		add(e.gbps)
	}
	if len(rates) == 0 {
		return 0
	}
	// Every float64 is m * 2^exp with integer m; over the smallest exponent all are integers.
	minExp := math.MaxInt
	for _, r := range rates {
		if !(r > 0) || math.IsInf(r, 0) {
			return 0
		}
		_, e := math.Frexp(r)
		if e-53 < minExp {
			minExp = e - 53
		}
	}
	for _, r := range rates {
		m := new(big.Float).SetFloat64(r)
		m.SetMantExp(m, -minExp)
		i, _ := m.Int(nil)
		num.GCD(nil, nil, num, i)
	}
	g, _ := new(big.Float).SetMantExp(new(big.Float).SetInt(num), minExp).Float64()
	return g
}

// snapLower is the least multiple of g at or above a proved lower bound x, x first lowered by the
// forgiven float error.
func snapLower(x, g float64) float64 {
	if x <= 0 {
		return 0
	}
	if g <= 0 {
		return x * (1 - latticeSlack)
	}
	return math.Ceil(x*(1-latticeSlack)/g) * g
}

// snapCut is the multiple of g nearest to the capacity of a real cut.
func snapCut(x, g float64) float64 {
	if g <= 0 || x <= 0 {
		return x
	}
	return math.Round(x/g) * g
}

// ratioDown is p/q as exact rationals, rounded down to ratioPlaces decimals.
func ratioDown(p, q float64) float64 { return ratioPlacesOf(p, q, false) }

// RatioDown is p/q by the rule of bisection_ratio (a proved minimum): exact when its decimal
// expansion ends within 6 places (12400/12800 = 0.96875), otherwise rounded down to 4; for
// callers that report a ratio of the analysis' numbers (the degraded fabric's, policy.DegradedRatio).
func RatioDown(p, q float64) float64 { return ratioDown(p, q) }

// ratioUp is p/q as exact rationals, rounded up to ratioPlaces decimals.
func ratioUp(p, q float64) float64 { return ratioPlacesOf(p, q, true) }

// ratioPlacesOf is k / 10^ratioPlaces for k the floor (or ceiling) of p/q * 10^ratioPlaces,
// computed exactly: in integers when p and q are whole numbers of Gb/s (the usual case), with
// big.Rat from the exact binary values otherwise.
func ratioPlacesOf(p, q float64, up bool) float64 {
	if !(q > 0) || !(p >= 0) || math.IsInf(p, 0) || math.IsInf(q, 0) {
		return 0
	}
	const scale = 10000   // 10^ratioPlaces
	const exact = 1000000 // 10^exactPlaces
	if p == math.Trunc(p) && q == math.Trunc(q) && p < 1e12 && q < 1e12 {
		if n, d := int64(p)*exact, int64(q); n%d == 0 {
			return float64(n/d) / exact
		}
		n, d := int64(p)*scale, int64(q)
		k := n / d
		if up && n%d != 0 {
			k++
		}
		return float64(k) / scale
	}
	r := new(big.Rat).SetFloat64(p)
	r.Quo(r, new(big.Rat).SetFloat64(q))
	if e := new(big.Rat).Mul(r, new(big.Rat).SetInt64(exact)); e.IsInt() {
		f, _ := new(big.Rat).SetFrac(e.Num(), big.NewInt(exact)).Float64()
		return f
	}
	r.Mul(r, new(big.Rat).SetInt64(scale))
	k, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if up && m.Sign() > 0 {
		k.Add(k, big.NewInt(1))
	}
	f, _ := new(big.Rat).SetFrac(k, big.NewInt(scale)).Float64()
	return f
}

// roundUpPlaces applies the same rule to an already computed ratio, where only the float is at
// hand, forgiving a relative error of 1e-12 (one correctly rounded division is off by at most
// 1.1e-16): exact when it is within that of exactPlaces decimals, else up to ratioPlaces.
func roundUpPlaces(x float64) float64 {
	if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	e := math.Pow10(exactPlaces)
	if k := math.Round(x * e); math.Abs(x*e-k) <= 1e-12*x*e {
		return k / e
	}
	s := math.Pow10(ratioPlaces)
	return math.Ceil(x*s*(1-1e-12)) / s
}

// roundSignificant rounds x to timeSignificant significant decimal digits, to nearest; the result
// is the float nearest to that decimal, so it prints without noise.
func roundSignificant(x float64) float64 {
	const n = timeSignificant
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	e := int(math.Floor(math.Log10(math.Abs(x)))) - n + 1
	if e >= 0 {
		p := math.Pow10(e)
		return math.Round(x/p) * p
	}
	p := math.Pow10(-e)
	return math.Round(x*p) / p
}

// present applies the rules above to the result before the all-reduce estimate (which reads the
// ratio): bisection numbers on the lattice, the ratio from them, oversubscriptions up.
func present(t *topo, r *Result, g float64) {
	r.BisectionLowerGbps = snapLower(r.BisectionLowerGbps, g)
	r.BisectionUpperGbps = snapCut(r.BisectionUpperGbps, g)
	r.Cut.CapacityGbps = snapCut(r.Cut.CapacityGbps, g)
	switch {
	case len(t.eps) < 2:
		r.BisectionRatio = 1 // nothing to bisect
	case r.FullBisectionGbps > 0:
		r.BisectionRatio = ratioDown(r.BisectionLowerGbps, r.FullBisectionGbps)
	}
	// A switch's ratio is down / up (oversub.go); taken from the exact capacities when it is that,
	// from the float otherwise.
	load := func(s *SwitchLoad) {
		switch {
		case s.UpGbps > 0 && s.Oversubscription == s.DownGbps/s.UpGbps:
			s.Oversubscription = ratioUp(s.DownGbps, s.UpGbps)
		default:
			s.Oversubscription = roundUpPlaces(s.Oversubscription)
		}
	}
	for i := range r.PerSwitch {
		load(&r.PerSwitch[i])
	}
	for k, s := range r.Worst {
		load(&s)
		r.Worst[k] = s
	}
	for k, v := range r.Oversubscription {
		r.Oversubscription[k] = roundUpPlaces(v)
	}
	r.MaxOversubscription = roundUpPlaces(r.MaxOversubscription)
}

// presentAllReduce rounds the estimate (not a bound: to nearest).
func presentAllReduce(a *AllReduce) {
	if a == nil {
		return
	}
	a.RingSeconds = roundSignificant(a.RingSeconds)
	a.HierarchicalSeconds = roundSignificant(a.HierarchicalSeconds)
	a.BottleneckGbps = roundSignificant(a.BottleneckGbps)
}
