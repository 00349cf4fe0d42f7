package plan

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Inputs is what a fabric declaration says, decoded: a generated design and the items declared
// one by one, in the shapes of the inventory maps (each item's Ref.Key its key in its map).
type Inputs struct {
	// Design is the `design` object, nil without one. It is generated once per Build.
	Design *topogen.Params
	// Explicit holds the items of the inventory maps. With a design, an item of a generated
	// name replaces the generated one and a new name adds to it.
	Explicit fabric.Spec
	// Absent lists `absent_cables`: links of the design not cabled (yet), by end or full label.
	Absent []string
	// DesignAttr names the attribute that holds Design, where its problems are located;
	// "" is "design" (gpucluster_bom's prior_design is another).
	DesignAttr string
}

// Fabric is a fabric built from its Inputs: the generated design (nil without one), the spec
// the graph was built from, and the graph.
type Fabric struct {
	Design *topogen.Design
	Spec   *fabric.Spec
	Graph  *fabric.Graph
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
		des, err := topogen.Generate(*in.Design, cat)
		if err != nil {
			return nil, append(ps, designProblem(err, designAttr))
		}
		spec := des.FabricSpec()
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
	return f, ps
}

// Price is the bill of materials of a built fabric, as Run prices it.
func Price(cat *catalog.Catalog, f *Fabric) bom.BOM { return bom.FromGraph(f.Graph, cat) }
