// Package policy owns the fabric's policy: the presets (training-large, training-small,
// inference, dragonfly-plus), the rules that are always on whatever the preset (RoCEv2 limits,
// spine headroom), and the custom rules users write in HCL files. It judges an analysis.Result
// (and the fabric.Graph it came from) and returns Violations whose messages name the rule, the
// measured and the required value and a witness (a switch, a tier or a cut), so that a failing
// `terraform plan` tells a person what to change.
//
// It does not repeat the structural checks of fabric.Build (port reuse, radix, speed mismatch,
// cable reach, rack units and power, connectivity): those are Problems of the graph, reported by
// the caller next to these Violations.
//
// Invariants:
//   - Never a silent pass. A rule that cannot be checked is a violation, not a success: an
//     invalid policy (unknown preset, negative limit) is an error violation and the rest is still
//     judged with what is valid; a custom condition that errors or is not a bool is an error
//     violation carrying the HCL diagnostic (file:line); a condition that is unknown comes back
//     with Severity Unknown so the caller can leave its outputs unknown and check again at
//     apply; a limit that needs data the fabric does not have (an all-reduce limit without a
//     workload) is an error.
//   - Deterministic: the same inputs give the same violations, with the same messages, in the
//     same order: policy errors, transport, oversubscription (tiers from the bottom up),
//     bisection, switch hops, all-reduce time, spine headroom, then custom rules in the order
//     given.
//   - Cheap: the cty values that custom rules see are built once per Evaluate call, and only
//     the parts of `fabric` that some rule refers to (the per-link and per-endpoint lists of a
//     65,536-endpoint fabric are large).
//   - Pure: no I/O and no Terraform imports; the provider reads policy files and hands their
//     bytes to ParseRules.
package policy
