// Package fabric owns the fabric graph: the devices (switches and HCA ports), the links between
// their ports, and the racks they sit in, built from plain descriptions of the declared resources.
// It knows nothing of Terraform: the provider converts its models to a Spec and calls Build.
// It also owns the words of those descriptions: a partition member's membership, its default
// (DefaultMembership) and the member list of a partition's import ID (ParseMembers).
//
// Invariants of a Graph returned by Build:
//   - Device names are unique; switches come first, in Spec order, then HCAs, in Spec order.
//   - Every Link joins two existing devices on ports within their models' radix, and no port
//     carries two links. Cables that break these rules are reported as Problems and left out of
//     the graph, so the analysis only ever sees a physically possible wiring.
//   - Level is the distance in links from the nearest HCA (HCAs 0, leaves 1, spines 2, ...);
//     -1 for a switch no HCA can reach.
//   - Build never panics on any Spec (fuzzed), and the same Spec always yields the same Graph and
//     the same Problems in the same order.
package fabric
