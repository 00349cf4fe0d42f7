package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Inputs is what a fabric declaration says, decoded: a generated design and the items declared
// one by one, in the shapes of the inventory maps (each item's Ref.Key its key in its map).
type Inputs struct {
	// Design is the `design` object, nil without one. It is generated once per Build.
	Design *topogen.Params
	// AsBuilt is the floor the design is fitted to (the design's `as_built`: the fabric as
	// discovered, in the inventory maps' shapes); nil for a design built as generated.
	AsBuilt *fabric.Spec
	// Explicit holds the items of the inventory maps. With a design, an item of a generated
	// name replaces the generated one and a new name adds to it.
	Explicit fabric.Spec
	// Absent lists `absent_cables`: links of the design not cabled (yet), by end or full label.
	Absent []string
	// DesignAttr names the attribute that holds Design, where its problems are located;
	// "" is "design" (gpucluster_bom's prior_design is another).
	DesignAttr string
	// Failed lists `failed_cables`: cables of the fabric, designed and cabled, that are down.
	// The fabric is judged as designed with them; Run judges the fabric as it runs without them.
	Failed []Failed
}

// Failed is one entry of `failed_cables`.
type Failed struct {
	Cable  string // a cable end label ("leaf01:40") or a full label, either order
	Reason string // optional
	Since  string // optional, "YYYY-MM-DD"
}

// Fabric is a fabric built from its Inputs: the generated design (nil without one), the spec
// the graph was built from, and the graph; with failed cables, also the fabric as it runs.
type Fabric struct {
	Design *topogen.Design
	Spec   *fabric.Spec
	Graph  *fabric.Graph
	// Running is the graph less the failed cables (the fabric as it runs), nil when none
	// failed; Failed are those cables, each with the spec's label of the cable it names.
	Running *fabric.Graph
	Failed  []FailedCable
	// Fit is the design fitted to the floor (Inputs.AsBuilt): what it keeps, moves, adds and
	// removes of the floor's cables; nil for a design built as generated.
	Fit *asbuilt.Fitted
}

// FailedCable is an entry of `failed_cables` resolved to its cable.
type FailedCable struct {
	Failed
	Label string // the cable's full label, "<a.device>:<a.port> <-> <b.device>:<b.port>"
	Since time.Time
}

// Build assembles the fabric the inputs describe: the graph of the design (generated here, once)
// less the absent cables, merged by name with the declared items, then built and checked
// (fabric.Build). The Fabric is nil when the inputs hold an error; the Problems say where,
// warnings included.
func Build(cat *catalog.Catalog, in Inputs) (*Fabric, Problems) {
	var ps Problems
	designAttr := in.DesignAttr
	if designAttr == "" {
		designAttr = AttrDesign
	}
	f := &Fabric{Spec: &in.Explicit}
	if in.Design == nil {
		if len(in.Absent) > 0 {
			ps.add(Error, Attr(AttrAbsentCables), "absent_cables without a design",
				"absent_cables names links of the generated design; without `design` there is none. Leave the cable out of `cables` instead.")
			return nil, ps
		}
	} else {
		des, fit, dps := Design(cat, *in.Design, in.AsBuilt, designAttr)
		if dps.HasErrors() {
			return nil, append(ps, dps...)
		}
		spec := des.FabricSpec()
		if fit != nil {
			spec, f.Fit = fit.Spec, fit
		}
		for _, u := range spec.RemoveCables(in.Absent) {
			ps.add(Error, Attr(AttrAbsentCables).Index(u.Index), "No such generated cable", u.Message)
		}
		if ps.HasErrors() {
			return nil, ps
		}
		spec.Merge(&in.Explicit)
		f.Design, f.Spec = des, spec
	}
	g, problems := fabric.Build(f.Spec, cat)
	ps = append(ps, fabricProblems(problems, designAttr)...)
	if ps.HasErrors() {
		return nil, ps
	}
	f.Graph = g
	if len(in.Failed) > 0 {
		ps = append(ps, f.fail(cat, in)...)
		if ps.HasErrors() {
			return nil, ps
		}
	}
	return f, ps
}

// fail resolves the failed cables against the built spec and builds the fabric as it runs
// without them. The running graph's own problems (a leaf cut off, endpoints that cannot reach
// the others) are not input errors: they are what the degraded judgement reports.
func (f *Fabric) fail(cat *catalog.Catalog, in Inputs) Problems {
	var ps Problems
	absent := map[string]bool{}
	for _, a := range in.Absent {
		absent[strings.TrimSpace(a)] = true
	}
	labels := make([]string, len(in.Failed))
	for i, fc := range in.Failed {
		labels[i] = fc.Cable
		at := Attr(AttrFailedCables).Index(i)
		if absent[strings.TrimSpace(fc.Cable)] {
			ps.add(Error, at.Attr("cable"), "Failed cable listed as absent",
				fmt.Sprintf("%q is in absent_cables (not cabled) and in failed_cables (cabled and down); keep it in one: absent_cables for a link not cabled yet, failed_cables for one that is cabled and down", fc.Cable))
			continue
		}
		since, err := policy.ParseSince(fc.Since) // the one reading of the date, which the verdict prints back
		if err != nil {
			ps.add(Error, at.Attr("since"), "Invalid date", fmt.Sprintf("since %q is not a date in the form YYYY-MM-DD, e.g. \"2026-11-30\"", fc.Since))
			continue
		}
		f.Failed = append(f.Failed, FailedCable{Failed: fc, Since: since})
	}
	if ps.HasErrors() {
		return ps
	}
	running := *f.Spec
	running.Cables = append([]fabric.Cable(nil), f.Spec.Cables...)
	for _, u := range running.RemoveCables(labels) {
		ps.add(Error, Attr(AttrFailedCables).Index(u.Index).Attr("cable"), "No such cable", u.Message)
	}
	if ps.HasErrors() {
		return ps
	}
	for i := range f.Failed {
		if c, ok := f.Spec.FindCable(f.Failed[i].Cable); ok {
			f.Failed[i].Label = f.Spec.Cables[c].Label()
		}
	}
	f.Running, _ = fabric.Build(&running, cat)
	return ps
}

// Price is the bill of materials of a built fabric, as Run prices it.
func Price(cat *catalog.Catalog, f *Fabric) bom.BOM { return bom.FromGraph(f.Graph, cat) }
