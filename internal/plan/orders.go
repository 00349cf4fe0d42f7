package plan

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Orders is what a fabric asks of purchasing and of the technicians: the bill of materials, the
// cabling plan they work from, and the work order that takes the fabric as it is to this one.
type Orders struct {
	BOM     bom.BOM
	Cabling []bom.CableRow
	// Changes is the work order: from the floor the design was fitted to (Fabric.Fit), which is
	// what the technicians find, else from prior, the design as it is cabled now. HasChanges is
	// false when there is neither.
	Changes    []bom.Change
	HasChanges bool
}

// Order computes the Orders of f, with the external links (appliances) cabled to it, from the
// fabric as it is: the floor f was fitted to, else the design prior (nil for none), whose
// problems are located under "prior_design". Orders is nil when prior holds an error. From a
// prior design, the Problems also warn of boxes the design renames and of upper-tier cables that
// re-planning moves (expansionNotes).
func Order(cat *catalog.Catalog, f *Fabric, ext []bom.ExternalLink, prior *topogen.Params) (*Orders, Problems) {
	opts := bom.Options{External: ext}
	o := &Orders{BOM: bom.Build(f.Graph, cat, opts), Cabling: bom.Cabling(f.Graph, cat, opts)}
	o.BOM.BeyondFloor = BeyondFloor(cat, f, o.BOM, ext)
	if w := bom.UncountedAppliances(f.Design, ext); w != "" {
		o.BOM.Warnings = append(o.BOM.Warnings, w)
	}
	switch {
	case f.Fit != nil:
		changes, err := f.Fit.WorkOrder(cat)
		if err != nil {
			return nil, Problems{{Severity: Error, At: Attr(AttrAsBuilt), Summary: "Cannot write the work order from the floor", Detail: err.Error()}}
		}
		o.Changes, o.HasChanges = changes, true
	case prior != nil:
		pf, ps := Build(cat, Inputs{Design: prior, DesignAttr: AttrPriorDesign})
		if pf == nil {
			return nil, ps.Errors()
		}
		// The boxes by their GUIDs, not their names (expansion.go): a cable that stays on the
		// same ports of the same boxes is no move, whatever either design calls them.
		rn := physicalRename(pf.Graph, f.Graph)
		o.Changes, o.HasChanges = bom.CablingChangesRenamed(bom.Cabling(pf.Graph, cat, bom.Options{}), o.Cabling, rn), true
		return o, expansionNotes(pf, f, rn, o.Changes)
	}
	return o, nil
}
