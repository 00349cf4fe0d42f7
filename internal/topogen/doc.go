// Package topogen owns the topology generators behind the gpucluster_topology data source:
// fat tree (1-3 tiers, any leaf oversubscription some split of the radix gives, spare ports
// allowed), rail-optimized (DGX SuperPOD scalable units, RA-11333-001), Dragonfly+ (Shpiner et
// al. 2017) and 3D torus. It turns a few arguments into the racks, switches, nodes, HCAs and
// cables of a fabric.Spec, keyed by name, plus a summary, a port plan and per-block views (one
// per SU, pod, group or plane). Design.GroupsOf splits the design's graph under other names
// (a fit to a floor) into those blocks by the same rule.
//
// Two tables hold what the provider builds its schemas from. The kind table (kinds.go) lists
// the kinds, each one file (fattree.go, railopt.go, dragonfly.go, torus.go) with its own
// arguments, generator, largest buildable size and normalization; nothing else switches on the
// kind. The argument table (args.go, Args) describes every argument once: name, type,
// description, range and Params field; gpucluster_topology's arguments, the `design` object of
// the fabric and the decoder of both come from it, and the words for a number out of an
// argument's range (Arg.RangeProblem) and for a nested object of arguments (GroupDoc).
//
// Invariants:
//   - Every design Generate returns passes fabric.Build without errors (tested for every kind).
//   - Stable keys: growing the input within the plan (more nodes, more SUs, more groups up to
//     planned_nodes / planned_scalable_units / planned_groups) only adds entries; no existing
//     name, GUID, rack, position, port or cable changes. The upper tiers are therefore sized for
//     the planned size from the start (RA-11333-001: build the leaves and leaf-spine cables of a
//     whole SU), and growing past the plan is refused with the size to plan for instead, since it
//     would move leaf uplinks. A torus is built whole; changing its dimensions re-cables.
//   - Re-planning costs the least it can: a 2-tier tree takes its spine ports in rounds of the
//     planned leaves (treeShape.leafUp), so a plan for twice the leaves keeps one link of every
//     old leaf to every old spine on the same ports at both ends and moves only the rest. Names
//     are zero-padded to the planned count unless name_digits fixes the width, which keeps them
//     past a power of ten (leaf99, leaf100); Design.NameDigits records the widths used.
//   - Cables are keyed by their lower-tier end ("gpu001/mlx5_0:1", "leaf01:33"; for global and
//     torus links the end in the lower-numbered group or the + port).
//   - GUIDs are derived, not random: switch n of tier t (leaf 1, spine 2, core 3) gets
//     switch_guid_base + t<<20 + n; HCA k (node-major, 1-based) hca_guid_base + k; the
//     hca_guids inventory overrides single HCAs. No GUID repeats.
//   - What cannot be built is refused with an *Error naming the argument, the reason and the
//     nearest buildable input; nothing is silently rounded except the spine count of a 2-tier
//     tree, which rises to the nearest divisor of the leaf's uplinks and says so in Notes (and
//     from what count). An argument the kind does not read is refused, not ignored.
//   - Names and GUIDs: no two devices share a name (prefixes that would are refused, naming
//     both), and GUID arithmetic never wraps past 64 bits (a base too large is refused with the
//     largest that fits).
//   - Dragonfly+ groups are sized for the nodes asked, spread evenly over the groups, and cabled
//     for the group-level ratio asked (group_oversubscription); the notes count what is cabled.
//   - The notes say what the policy's spine-headroom rule will say of the design (the top tier's
//     free ports against fabric.DefaultSpineHeadroom) and, when short, the argument setting that
//     keeps it, which fabric.Plan.Advice hands to the policy's message.
//   - Bounded: every input is refused or built within 2 s and 500 MB. Sizes are checked against
//     MaxObjects (switches + nodes + HCAs + cables) before anything is allocated, with arithmetic
//     that cannot overflow, and a size refusal names the largest buildable size (budget.go).
//   - What is built is what was asked: no core switch on no shortest path (tiers = 3 on one pod
//     is refused), no torus switch silently left without an endpoint.
//   - Fabric-manager (UFM) appliances in reserved node slots are not graph devices (the catalog
//     and the graph know switches, nodes and HCAs only); their links are ApplianceLinks, counted
//     in the summary (appliance-leaf), the port plan and the BOM (bom.ExternalLinks).
//
// The package is pure Go without Terraform imports; the provider converts Design to Terraform
// objects.
package topogen
