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
//     bisection, effective bisection, switch hops, all-reduce time, spine headroom, then custom rules in the order
//     given.
//   - Cheap: the cty values that custom rules see are built once per Evaluate call, and only
//     the parts of `fabric` that some rule refers to (the per-link and per-endpoint lists of a
//     65,536-endpoint fabric are large).
//   - Bounded: a custom rule (its condition, the naming of its failing elements, its
//     error_message) stops at MaxRuleElements elements visited or MaxRuleTime, and fails with
//     an error that names it; a rule can therefore not hang a plan or exhaust its memory. The
//     element budget is deterministic; the clock, far above it, only catches what elements do
//     not measure.
//   - Pure: no I/O and no Terraform imports; the provider reads policy files and hands their
//     bytes to ParseRules.
//
// # Degraded fabrics
//
// Evaluate gates the fabric as designed, failed cables included. JudgeDegraded (degraded.go)
// judges the fabric as it runs, the same graph less its failed links, against policy.degraded:
// within the thresholds each failed cable is a warning (its reason, age, where it is and the
// running fabric's numbers) and applies go on; beyond them, or when a switch is cut off with the
// endpoints behind it (always), an error. An endpoint cut off by its own failed cable is a
// warning naming the node to drain (CutOff, Drain), an error only beyond
// policy.degraded.max_unreachable_endpoints.
//
// # Messages
//
// Every message starts with the rule's name. Built-in rules read
//
//	oversubscription: tier leaf is 1.33:1 at leaf03 (32 x 400 Gb/s down, 24 x 400 Gb/s up); training-large allows at most 1:1
//
// naming all offending switches of a tier (count and the first five) when there are several, and
// quoting where the limit came from (the preset, or the attribute that overrode it, such as
// policy.max_oversubscription) so the user knows what to change. Custom rules read
// "NAME (FILE:LINE): ERROR_MESSAGE", followed, for a condition of the form
// alltrue([for x in LIST : ...]), by the elements that fail ("Failing: 2 of 8: spine03, spine07.").
//
// # Custom rules
//
// A policy file holds `rule "NAME" { condition, error_message, severity }` blocks (ParseRules).
// Conditions see two variables:
//
//	fabric.switches   list of {name, model, role, tier, group, rack, level, ports, used_ports,
//	                  free_ports, down_gbps, up_gbps, lateral_gbps, oversubscription}
//	fabric.tiers      map by tier name of {name, level, switches, ports, used_ports, free_ports,
//	                  oversubscription, worst, top}
//	fabric.endpoints  list of {name, node, rail, rack, switch, links}
//	fabric.links      list of {a, a_port, b, b_port, rate_gbps, length_m, estimated, kind}
//	fabric.racks      list of {name, row, position, units, power_kw, switches, nodes}
//	analysis          the `analysis` attribute of gpucluster_fabric without `violations`:
//	                  endpoints, switches, links, tiers, port_rate_gbps, full_bisection_gbps,
//	                  bisection_lower_gbps, bisection_upper_gbps, bisection_ratio,
//	                  oversubscription (map), max_oversubscription, max_switch_hops,
//	                  allreduce_seconds ({ring, hierarchical}, null without a workload)
//
// Missing strings are "" and an unset rail is -1, so comparisons never meet null. The functions
// are those of FunctionNames, with Terraform's names and behaviour (alltrue, anytrue, sum, length,
// min, max, contains, keys, values, lookup, abs, ceil, floor, format, join, concat, distinct,
// flatten, coalesce, can, try, ...), except that sum([]) is 0.
package policy
