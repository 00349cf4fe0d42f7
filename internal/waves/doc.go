// Package waves plans maintenance waves: it splits the devices an operator must take down (for a
// firmware update, a repair) into the fewest waves such that each wave, taken down alone, leaves
// a fabric that policy.degraded accepts. It is what gpucluster_maintenance_waves computes.
//
// A wave is judged on the fabric as it would run while the wave is down: the declared fabric less
// the wave's devices and their cables (Down). What the wave cuts off is said, not hidden:
//
//   - a switch outside the wave that loses every path to the rest of the fabric makes the wave
//     impossible, whatever the thresholds (a fabric in pieces is broken, not degraded);
//   - an endpoint (HCA) cut off is a node to drain; the wave holds only while the count stays
//     within Limits.MaxUnreachableEndpoints (nil: unlimited). The HCAs of a node of the wave are
//     down with it and count too, so that a rollout over nodes is split by the same limit;
//   - the remaining endpoints' proved bisection, over their own full bisection (the nodes that
//     still run, ⌊endpoints/2⌋ x port rate), is at least Limits.MinBisectionRatio (nil: 0.9 of
//     the designed ratio, policy.DefaultDegradedShare), and no switch is above
//     Limits.MaxOversubscription.
//
// Invariants:
//   - Every wave returned was judged as a whole (its Judgement is the proof that it holds); a
//     device that cannot go down even alone is refused by name with the limit it breaks, and no
//     waves are returned then.
//   - Every device asked for is in exactly one wave; waves keep the order in which the devices
//     were given within each wave and are ordered by their first device.
//   - Plan.Fewest is true only when the wave count was proved minimal (see Plan).
package waves
