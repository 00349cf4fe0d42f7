package plan

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Design generates the design p describes and, given a floor, fits it to the floor
// (asbuilt.Fit, made once for a design and a floor: fitmemo.go): the first step of Build, and all that gpucluster_topology computes. Problems
// are located on the generator's arguments under holder, the attribute that holds them
// ("design", "prior_design"), or at the root where they are the caller's own arguments
// (holder ""). The Fitted is nil without a floor; nothing is returned with an error. A
// rail-optimized design whose node count is left out, on a floor that reaches its last
// scalable unit, has the floor's node count (asbuilt.Fitted.BuiltNodes).
func Design(cat *catalog.Catalog, p topogen.Params, floor *fabric.Spec, holder string) (*topogen.Design, *asbuilt.Fitted, Problems) {
	des, err := topogen.Generate(p, cat)
	if err != nil {
		return nil, nil, Problems{designProblem(err, holder)}
	}
	if floor == nil {
		return des, nil, nil
	}
	fit, err := fits.fit(cat, des, floor) // once per plan (fitmemo.go)
	if err == nil && p.Kind == topogen.KindRailOptimized && p.Nodes == 0 {
		// node_count left out on a partly built floor: the floor's node count, not every
		// slot of its last scalable unit (asbuilt.Fitted.BuiltNodes).
		if n := fit.BuiltNodes(); n > 0 && n < len(des.NodeList) {
			p.Nodes = n
			if des, err = topogen.Generate(p, cat); err != nil {
				return nil, nil, Problems{designProblem(err, holder)}
			}
			fit, err = fits.fit(cat, des, floor)
		}
	}
	if err != nil {
		at := Attr(AttrAsBuilt)
		if holder != "" {
			at = Attr(holder, AttrAsBuilt)
		}
		return nil, nil, Problems{{Severity: Error, At: at, Summary: "Cannot fit the design to the floor", Detail: err.Error()}}
	}
	return des, fit, nil
}
