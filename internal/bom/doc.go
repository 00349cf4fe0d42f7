// Package bom owns the bill of materials and the cabling plan of a fabric: what to order
// (switches, nodes, HCAs, cables by kind and standard length, transceivers) and what to cable
// (one row per logical link, both ends with rack, unit and port), rendered as CSV, Markdown and
// JSON, plus the difference between two BOMs per SKU (Order), which is the purchase order of an
// expansion.
//
// Invariants:
//   - Prices come from the catalog only. An item without a catalog price has UnitPrice and Cost
//     nil and is listed in Unpriced; TotalCost sums priced items and never includes a guess.
//   - Output is deterministic: items sorted by category then SKU, plan rows in graph link order
//     then external links, so the same graph always renders the same bytes.
//   - Cable kind: a cable that names its kind keeps it; otherwise the cheapest kind that reaches
//     the run (catalog.CableFor): passive DAC, then ACC, then multimode fiber with transceivers,
//     then single-mode. Copper is a twin-port product (LinkX documents: MCP4Y10 2x400G straight, MCP7Y00
//     splitter to two ConnectX-7), so it is only chosen when both logical links of an OSFP cage
//     go to the same far cage (straight) or to two single-port HCAs (splitter); otherwise the
//     cage needs a transceiver and two fibers (the rail-optimized case, RA-11333-001: "All
//     networking components are multi-mode fiber"). A DGX H100 cage straight to a switch cage
//     takes the switch-switch product line (MCP4Y10 comes with a flat-top -FLT end for DGX H100,
//     per its LinkX document; the catalog lists the line once).
//   - Transceivers (MMA4Z00-NS and MMA4Z00-NS400 LinkX documents, RA-11333-001 Table 8): one twin-port module per switch OSFP cage with at least
//     one optical link (ports 2c-1 and 2c share cage c), so per switch = cages used; one
//     flat-top twin-port module per cage of a node with twin-port cages (DGX H100: one per two
//     HCAs); one single-port module per port of any other HCA and per external appliance port;
//     one fiber per optical link.
//   - HCAs are items only when they are not part of the node's orderable system: a node model
//     with a SKU (DGX H100) ships with its compute HCAs.
//
// Day 2 (cagemates.go): CageMates finds the row a cable label names and the links that go down
// with it while it is worked on (the other link of a twin-port copper cable; the other split of
// a twin-port transceiver), and TechnicianLine says where both ends are (rack, unit, box, cage,
// split) with the parts to bring. CageMates.Locate gives both for a bad cable, as failed_cables
// (internal/plan) and port counters (the provider) report it.
//
// Appliance links (UFM in a reserved SU slot) are not graph devices; ExternalLinks and
// Options.External add them so the BOM matches RA-11333-001 Table 8 (4 UFM transceivers).
//
// Numbers for people (format.go): Money and Count are the provider's one money and count
// format, thousands separated, for the BOM and for every summary that counts (plan, asbuilt).
package bom
