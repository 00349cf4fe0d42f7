// Package catalog owns the hardware and price catalog: switch, node and HCA models, cables and
// transceivers, read from HCL (an embedded default, plus the user's own files layered on top).
//
// Invariants:
//   - Every model has a positive port count and port rate; every cable kind has a positive reach.
//   - A price is either a sourced figure or absent. The catalog never invents one: an entry
//     without a price is reported as unpriced by the bill of materials.
//   - Names are unique per kind. A later file replaces an entry of the same kind and name whole,
//     so an override never mixes attributes of two sources.
//   - A Catalog is immutable once Load returns; callers may share it between goroutines.
package catalog
