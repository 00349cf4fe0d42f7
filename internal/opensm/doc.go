// Package opensm owns everything the provider knows about OpenSM 3.3 (and, by its documented
// names only, NVIDIA's OpenSM 5.x build: flavor.go) and the InfiniBand diagnostics: it renders the subnet manager's files from the fabric graph, parses them back,
// decides how a change must reach a running OpenSM (nothing, SIGHUP or restart), reads an OpenSM
// log to tell whether a run routed the way it was meant to, writes the declared fabric in
// ibnetdiscover format (which ibsim loads as is), parses real ibnetdiscover and perfquery output,
// and compares what was discovered with what was declared (counting both: Discovered.Counts,
// Report.AddCounts); it places the declared cables on the
// discovered fabric for perfquery (perf_cables.go: each end's LID, up or down). It also hands
// internal/analysis what its routing model needs (lft_routing.go); the tests that hold that model
// to OpenSM's dumped forwarding tables live in internal/analysis.
//
// It knows nothing of Terraform. Rendering, parsing and the routing model are pure; the push
// (push.go) and the perfquery batch (perf_query.go) run commands on an SM host through the Host
// interface, which internal/remote implements over SSH. The provider fills a Config (usually
// with FromGraph), calls Render, and pushes the Files: written atomically under Paths.ConfigDir,
// OpenSM told what Reload says, the log read back through ParseLog and verified, rolled back on
// failure.
//
// A fabric has a primary SM host and standbys, and the package owns how they are visited together
// (hosts.go): PushAll and SweepAll go primary first and stop at the first failure, UnpushAll goes
// standbys first so the master changes last, and ReadAll reads back for a refresh the files of the
// first host and the health of every host. Each says, as an AllError, Op.LoggedErrors and
// HostsState.Warnings, what was done or seen where; the provider only turns that into
// diagnostics.
//
// Invariants:
//   - Rendering is deterministic: the same Config (or Graph) always yields the same bytes, so a
//     plan shows no spurious diff. Lists are rendered in the order given, maps in key order.
//   - A rendered set always holds the six FileNames; opensm.conf names the root and CN files
//     only for the engines that read them, but their lists are always written, so changing the
//     engine never empties a file the running OpenSM still reads. torus-2QoS.conf holds a torus
//     description only for a torus generated from a design (torus.go), a comment otherwise.
//   - Nothing is rendered that OpenSM would silently ignore, misread or fall back from: Render
//     refuses, with a FieldError naming the attribute or option, unknown option keys, values OpenSM
//     would misparse (booleans other than TRUE/FALSE, numbers out of range, '#' which starts a
//     comment), unknown routing engines, LMC > 0 with ftree or lash, lash/dfsssp/torus-2QoS
//     without QoS, torus-2QoS without its torus description, SL without QoS, and partitions
//     OpenSM's parser would drop or merge (bad or duplicate P_Keys, duplicate names, names it
//     takes for a P_Key, members that are not port GUIDs or keywords). Sources: opensm(8),
//     opensm/osm_subnet.c (opt_tbl), osm_prtn_config.c, osm_opensm.c, osm_ucast_mgr.c.
//   - A file set is checked against the engines and options of its flavour (Config.Flavor),
//     which opensm.conf's first line names, so CheckFiles at push time checks the same table
//     as the plan. Upstream OpenSM 3.3 is what the tests run; NVIDIA SM's names come from its
//     documents and are checked by grammar only.
//   - GUIDs are written as 0x followed by 16 lower-case hex digits everywhere.
//   - HCA GUIDs in the fabric graph are port GUIDs (the GUID of port 1; port p is GUID+p-1).
//     The cn_guid_file lists port GUIDs, never node GUIDs: ftree falls back to minhop otherwise.
//   - Reload is conservative: when OpenSM's behaviour is not known for sure, it asks for a
//     restart.
//   - Parsers never panic on any input (fuzzed) and report, with line numbers, what they could
//     not read, returning everything they could.
package opensm
