// Package analysis answers, from a fabric graph alone, the questions asked at plan time: how
// oversubscribed each tier is, how many switch hops the worst path takes, how much bandwidth
// crosses the worst balanced cut, and how long an all-reduce would take. It is pure (no I/O) and
// fast enough to run on every plan of a 65,536-endpoint fabric.
//
// Invariants:
//   - BisectionLowerGbps <= true bisection <= BisectionUpperGbps, always; the lower bound comes
//     with the argument in lower.go and the upper bound with a concrete Cut.
//   - Results are deterministic: the same graph gives the same numbers and the same witnesses.
//
// Where things are: analyze.go (Analyze), topo.go (the switch graph the algorithms share),
// oversub.go, hops.go, lower.go (the proved bound and its argument), upper.go with cut.go,
// hier.go, sweep.go and fm.go (the witness cut), allreduce.go, effective.go (the effective
// bisection under OpenSM's own routes: effective_net.go, effective_minhop.go for minhop and updn,
// effective_ftree.go). Every algorithm cites its source.
package analysis
