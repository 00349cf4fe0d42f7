// Package analysis answers, from a fabric graph alone, the questions asked at plan time: how
// oversubscribed each tier is, how many switch hops the worst path takes, how much bandwidth
// crosses the worst balanced cut, and how long an all-reduce would take. It is pure (no I/O) and
// fast enough to run on every plan of a 65,536-endpoint fabric.
//
// Invariants:
//   - BisectionLowerGbps <= true bisection <= BisectionUpperGbps, always; the lower bound is the
//     best of sound bounds, each with its argument (lower.go, lower_enum.go, lower_degrade.go),
//     and the upper bound comes with a concrete Cut.
//   - No number carries float noise: bisection bandwidths are multiples of the gcd of the link
//     rates (a proved bound rounded to the lattice point it proves), ratios are exact or rounded
//     in the direction that keeps them true (exact.go).
//   - Results are deterministic: the same graph gives the same numbers and the same witnesses.
//
// Where things are: analyze.go (Analyze), full.go (FullBisection: the one definition of full
// bisection, floor(N/2) ports, that every ratio divides by), topo.go (the switch graph the algorithms share),
// oversub.go, hops.go, lower.go (the routing bound and its argument), lower_enum.go (the
// enumeration bound, exact on two-tier fabrics), lower_degrade.go (degradation from a
// completion), exact.go (the lattice and the rounding rules), upper.go with cut.go,
// hier.go, sweep.go and fm.go (the witness cut), allreduce.go, effective.go (the effective
// bisection under OpenSM's own routes: effective_net.go, effective_minhop.go for minhop and updn,
// effective_ftree.go). Every algorithm cites its source.
package analysis
