// Package diagram owns the pictures of a fabric: a Graphviz DOT description (tiers as ranks) and
// an SVG that the package lays out itself, so that a plan needs no Graphviz. Both come from one
// model (Build) of boxes and bundles.
//
// Invariants:
//   - Every switch of the graph is a box of its own, labelled with its name; switches are never
//     folded. Nodes are one box each up to Options.FoldAbove nodes, beyond that one box per
//     scalable unit (or generator group), else per rack, else per leaf unit.
//   - Parallel links between two boxes are one bundle with their count and total capacity
//     (Gb/s, one direction), so the picture never draws the same pair twice.
//   - The layout is layered by tier: the highest switch tier on top, leaves above the node
//     boxes; box order within a tier is graph order (node boxes in node order). The same graph
//     and options always give the same bytes.
//   - Highlights come from the analysis (witness cut, oversubscribed switches) and are drawn only
//     when given; a bundle is "cut" when its two ends lie on different sides of the witness, or
//     when it carries an access link of an HCA the witness puts across from its switch.
package diagram
