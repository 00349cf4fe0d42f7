// Package scheduler owns what job schedulers need to know about a fabric: Slurm's topology.conf
// for the topology/tree and topology/block plugins, and a Kueue Topology object with the node
// labels its levels read. It works on a built *fabric.Graph (plus the generator's group names
// where known) and knows nothing of Terraform. Besides the files it owns what the provider
// says of the topology: its name (default "gpucluster"), the leaves of each unit and the notes
// on what it leaves out.
//
// The model (Build) is a tree of locality domains:
//   - The leaf level is a "unit": the set of first-tier switches that share nodes. A node cabled
//     to one leaf switch makes that switch a unit of its own (fat trees); a rail-optimized fabric,
//     where every node has one HCA on each of eight rail leaves, makes the leaves of a scalable
//     unit one unit, because Slurm's tree plugin places jobs on the one leaf switch a node hangs
//     from and warns "Multiple leaf switches contain nodes" otherwise (SchedMD Slurm,
//     src/plugins/topology/tree/switch_record.c), while RA-11333-001 (NVIDIA DGX SuperPOD
//     reference architecture) states that traffic per rail "is always one hop away from the
//     other 31 nodes in a SU": the scalable unit is the one-hop domain.
//   - Every upper switch (level >= 2 in the graph) is listed with its children one level down,
//     units standing for the leaves they hold.
//
// Invariants:
//   - Every node with at least one cabled HCA is in exactly one unit; nodes without one are
//     reported in Topology.Unattached and appear nowhere else.
//   - Names come from the fabric: switch names, node names, and for a multi-leaf unit the
//     generator's group name (su01) when all its leaves share one, else "<first leaf>-group".
//   - Kueue domains nest: a node's domain at tier k+1 contains its whole tier-k domain, as Kueue
//     requires of the levels of one Topology.
//   - Output is deterministic: units and switches in graph order, nodes in spec order, hostlists
//     compressed the way Slurm's hostlist parser reads them back.
package scheduler
