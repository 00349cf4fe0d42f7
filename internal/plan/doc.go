// Package plan is the one plan pipeline of a fabric: from the decoded inputs of a declaration to
// its verdict and the summary a reviewer reads. Every reader of a fabric (gpucluster_fabric and
// each data source that takes the same inputs) goes through it, so a new source of a fabric (a
// design, the floor) or a new state of it (degraded) is written once, here.
//
// The stages, in order:
//
//	Inputs --Build--> Fabric (design, spec, graph) --Run--> Outcome (analysis, violations, BOM, OpenSM files)
//	prior Outcome, next Outcome --Summarize--> Summary (what a change adds, removes, rewires, buys, renders)
//
// Build generates a design at most once, drops the absent cables, merges the declared items by
// name and builds the graph; Run adds the analysis, the effective bisection under the routes
// OpenSM will install, the policy verdict, the BOM and the OpenSM files. The OpenSM
// configuration is derived from the graph once per Run (opensm.FromGraph) and serves both the
// route model and the rendering, so the routes judged are the routes of the files pushed.
// Prior.Rebuild makes the prior side of Summarize from the prior state's inputs, taking next's
// BOM and files where they are the same fabric rather than build them twice.
//
// Invariants:
//   - It knows nothing of Terraform. Problems carry a Loc, the attribute path of their cause in
//     the inputs (a map key, never a list index of a map), and the caller maps it to its own
//     paths once; a problem is reported once per cause (Problems.Capped bounds the rest).
//   - A Fabric is nil exactly when its inputs hold an error; Run never fails: a fabric that cannot
//     be rendered or judged says why in its Problems.
//   - The same Inputs give the same Fabric, Outcome and Summary, byte for byte: nothing depends
//     on map order or time.
package plan
