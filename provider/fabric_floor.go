package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

// gpucluster_fabric's `as_built`: the floor (gpucluster_discovered_fabric's `floor`) as the
// fabric. Without a design the fabric is the floor as it stands, merged by name with the
// inventory maps (adoption as data: the floor's analysis, BOM and OpenSM files before anything
// is designed). With a design the floor is the one the design is fitted to, which the design
// carries already (its `as_built`): the fabric takes it from there and fits nothing again, and
// an `as_built` here must be that same record.

func fabricAsBuiltAttribute() schema.DynamicAttribute {
	return asBuiltInputAttribute("The fabric on the floor. Without `design`, the fabric is the floor as it stands " +
		"(merged by name with the inventory maps, which may add items or replace the floor's): its analysis, bill of " +
		"materials and OpenSM files, before anything is designed. With `design`, the floor is the one the design is " +
		"fitted to (give it to `gpucluster_topology`'s `as_built`; the design carries it): set here it must be that " +
		"same record, and may be left out.")
}

// fabricFloor reads the fabric's `as_built` v into in: without a design (dv null) the floor's
// items become the fabric's, the inventory maps merged over them; with one, v must be the
// record the design carries.
func (r *specReader) fabricFloor(v, dv tftypes.Value, in *plan.Inputs) {
	at := path.Root(plan.AttrAsBuilt)
	if dv.IsNull() {
		floor := r.decodeAsBuilt(v, at)
		if floor == nil {
			return
		}
		spec := floor.Clone() // the decoded floor is shared (asbuilt.DecodeRecord)
		spec.Merge(&in.Explicit)
		in.Explicit = *spec
		return
	}
	rec, ok := r.floorArg(v, at)
	if !ok || !dv.IsFullyKnown() {
		return
	}
	carried, has := designRecord(dv)
	if !has {
		r.diags.AddAttributeError(at, "as_built beside a design built without a floor",
			"The design was not fitted to a floor, so this fabric would not be built on it. Give the floor to the "+
				"topology (gpucluster_topology's as_built = data.gpucluster_discovered_fabric.x.floor) and hand its design "+
				"on; or drop `design` to plan the floor as it stands.")
		return
	}
	r.designsFloor(rec, carried, at)
}

// designsFloor checks that rec, an `as_built` given at at beside a design, is carried, the record
// the design is fitted to: the same sha256 (else it is another floor), and the same record (else
// the record was edited). gpucluster_fabric and gpucluster_bom alike.
func (r *specReader) designsFloor(rec, carried asbuilt.Record, at path.Path) {
	switch {
	case carried.SHA256 != rec.SHA256:
		r.diags.AddAttributeError(at, "as_built is not the design's floor",
			"The design is fitted to the floor of sha256 "+carried.SHA256+", and as_built is the floor of sha256 "+
				rec.SHA256+": give the same floor to gpucluster_topology's as_built, or leave as_built out here (the "+
				"design carries its floor).")
	case carried.Data != rec.Data:
		r.diags.AddAttributeError(at.AtName(floorRecord), "The floor record is refused",
			"as_built has the sha256 of the design's floor but not its record: the record was edited. Hand on "+
				"gpucluster_discovered_fabric's `floor` unchanged, or leave as_built out here (the design carries its floor).")
	}
}
