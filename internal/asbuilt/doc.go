// Package asbuilt owns the fabric that is on the floor: the cluster as it was cabled, by hand,
// with its own names, GUIDs and port conventions, rather than as the generator would have
// built it. It reads the floor, fits a design to it, and writes the re-cabling between them:
//
//   - LoadFile and LoadText are the one way from where the floor is given to Read: a file of
//     ibnetdiscover output (read under inputfile.MaxTopologyFile) or the output already fetched
//     over SSH, and OpenSM's node name map (under inputfile.MaxNodeNameMapFile), each error
//     saying which input it is about (LoadError).
//   - Read turns what ibnetdiscover saw (opensm.ParseTopology) into a fabric.Spec in the shapes
//     of the fabric's own maps: switches, nodes, HCAs and cables, keyed by name, with the GUIDs
//     and ports as discovered and each cable's width and speed beside it. Names come from the
//     node descriptions ("hgx-a001 mlx5_0" is HCA hgx-a001/mlx5_0 of node hgx-a001; a managed
//     switch's "MF0;ib-leaf-07:MQM9700/U1" is ib-leaf-07) or from OpenSM's node name map.
//     Discovery sees no racks, so the floor has none, and Floor.Notes says once what that skips.
//   - Fit lays a generated design (topogen) over the floor. Devices are matched by the links
//     they have, not by their names: a node goes to the slot whose leaves its HCAs reach, a leaf
//     to the rail and unit its nodes make it, a spine to the pod whose leaves it serves, a core
//     to the plane of its spines. The fitted Spec is the design's graph under the floor's names,
//     GUIDs and ports wherever the design has the floor's link, and the generator's names and
//     ports only for what is new. The Report says what that keeps, moves, adds and removes, and
//     LinksKeptMax, an upper bound on what any assignment could keep, which the fit reaches on
//     the generator's families (the proof is on Fit).
//   - Fitted.Groups are the fitted items split by the design's groups, by topogen's own rule
//     (Design.GroupsOf), so a fitted fabric is output one module instance per group as well.
//   - Fitted.WorkOrder is the re-cabling that turns the floor into the fitted fabric, as the
//     rows of gpucluster_bom's cabling_changes_csv: every move from the port the cable is on.
//
// Around them it owns what the provider says of a floor: the floor as a design carries it
// (EncodeRecord, DecodeRecord) and counted for people (Summary), and the devices a floor node's
// HCAs take as gpucluster_node lists them (NodeHCADevices).
//
// How the fit thinks, on the floor (2 SU of DGX H100 cabled by hand, one node's first
// two rails swapped, one uplink dead): every leaf's most common HCA device name makes it a rail
// leaf; leaves that share nodes make a scalable unit; the floor's two units go to the design's
// two; each node goes to a slot of its unit; the spines, which every leaf reaches four times,
// go to the design's spines, which every leaf reaches four times. Then 1,021 floor cables join
// the images of their two devices and stay on their ports. The swapped node's two HCAs keep
// their device names (an HCA is a card in a slot, not a label), so their two cables are moved,
// each from the port it is on to the port the other frees; the dead uplink is the one design
// link no floor cable has, so it is added, on the only port free at both ends: the dead one.
//
// Invariants:
//   - Read never renames: a name this provider cannot use, or one two devices share, is an error
//     naming every GUID at fault. Models are the catalog's, or a descriptive name the fabric
//     refuses, never a silent guess; a default taken among equal candidates is said in a note.
//   - Fit never invents: the fitted Spec has exactly the design's devices and links. A floor
//     device is either matched (keeping its name, GUID, model and the ports of its kept cables)
//     or named in Report.DevicesUnmatched. Kept cables are on the floor's two ports; every other
//     cable end on a floor device takes a port free of them.
//   - Counts add up: LinksKept + LinksMoved + LinksRemoved is the floor's cables, LinksKept +
//     LinksMoved + LinksAdded the design's links, and LinksKept <= LinksKeptMax.
//   - A work order's counts are the report's, and a move leaves from a port the floor has the
//     cable on (so never from a dead port).
//   - Ports play no part in the matching: any port convention of the floor fits.
//   - What a technician can do: a move keeps one end on its floor port and takes the other to a
//     device of the same kind (a cable never changes tier); a floor port holding a node cable
//     takes only node cables, an uplink port only uplinks; new ends go on the ports the floor's
//     convention gives their role on that device, new switches as a floor switch of their
//     level is cabled; among the ways to keep LinksKeptMax cables, the most moves, which is
//     the fewest cable ends handled (TestFitMovesBruteForce checks it against every assignment).
//   - The same inputs give the same fit, in time near linear in links (BenchmarkFit).
//
// The package knows nothing of Terraform; the provider's gpucluster_discovered_fabric, its
// `floor` and its list resources call LoadFile or LoadText, and the plan pipeline calls Fit and
// WorkOrder.
package asbuilt
