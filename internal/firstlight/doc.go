// Package firstlight checks a cabled floor against its design link by link, in the
// technician's terms: "first light" is the bring-up step after a wave is cabled, when every
// cable is found on its designed ports, or the punch list says what to do about it.
//
//   - FitMatch maps the floor's devices (own names, own GUIDs) onto the design's by the links
//     they have: asbuilt.Fit does the structural matching (rails, units, node slots, spines),
//     and a refinement by ports (refine) then settles the devices Fit leaves to name order
//     (alike node slots, alike spines), so that a floor cabled as designed matches port for port.
//   - Validate classifies every design link in scope as ok, missing, miswired, swapped,
//     degraded or noisy, every floor cable the design lacks as unexpected, and writes one punch
//     list row per fix (swap, move, plug, unplug, reseat, replace) with both ends' rack, unit,
//     cage and split (internal/bom's cabling) and the links that go down while it is done.
//   - Topo writes the design as an ibdm topology file (Debian ibutils: ibtopodiff, ibdiagnet -t),
//     with the IBNL system definitions it needs.
//
// Sources: the classification follows what NVIDIA's cable validation tools report (UFM Cable
// Validation Tool, ibdiagnet's topology check: a link is found, missing, or found on other
// ports); the swap and move rules are DESIGN.md "Bring-up: first light"; the .topo grammar is
// ibutils' ibdm-topo-file(1).
//
// The package knows nothing of Terraform: gpucluster_cable_validation decodes its inputs, calls
// Validate and maps the Result.
package firstlight
