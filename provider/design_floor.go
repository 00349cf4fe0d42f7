package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

// A design fitted to a floor carries the floor as a record (asbuilt.Record), not as the maps
// gpucluster_topology took: the plan shows three lines instead of every device and cable again,
// and Terraform copies one string instead of thousands of objects. The fabric decodes it and
// fits the design again (plan.Build), so the design stays the few lines that say what it is.

// The attributes of a design's `as_built`.
const (
	floorSummary = "summary"
	floorSHA256  = "sha256"
	floorRecord  = "record"
)

// floorRecordType is the type of a design's `as_built`.
var floorRecordType = types.ObjectType{AttrTypes: map[string]attr.Type{
	floorSummary: types.StringType, floorSHA256: types.StringType, floorRecord: types.StringType,
}}

// noFloor is the `as_built` of a design built as generated.
var noFloor = tftypes.NewValue(tfTypeOf(floorRecordType), nil)

// designAsBuiltDoc describes a design's `as_built`.
const designAsBuiltDoc = "The floor the design is fitted to (`gpucluster_topology`'s `as_built`), recorded: `summary` " +
	"counts what is on it, `record` holds its switches, nodes, HCAs and cables (gzipped JSON, base64) and `sha256` the " +
	"digest of that JSON, so the plan shows three lines rather than the floor again. The fabric builds the design under " +
	"the floor's names, GUIDs and ports wherever the design has the floor's link, and its plan summary says per tier what " +
	"the floor keeps, moves, adds and removes. Hand it on unchanged: an edited record is refused. `null` for a design " +
	"built as generated."

// floorFieldDocs describe the attributes of a design's `as_built`.
var floorFieldDocs = map[string]string{
	floorSummary: "What is on the floor, counted.",
	floorSHA256:  "SHA-256 of the record's JSON, hex.",
	floorRecord:  "The floor: gzipped JSON, base64.",
}

// floorRecordSchema is a design's `as_built` in the fabric's (and bom's) `design` input; like
// the rest of `design` it carries no framework behaviour (tfwire).
func floorRecordSchema() schema.SingleNestedAttribute {
	attrs := map[string]schema.Attribute{}
	for name, doc := range floorFieldDocs {
		attrs[name] = schema.StringAttribute{Optional: true, MarkdownDescription: doc}
	}
	return schema.SingleNestedAttribute{Optional: true, MarkdownDescription: designAsBuiltDoc, Attributes: attrs}
}

// floorValue records a floor for a design; noFloor for nil.
func floorValue(floor *fabric.Spec) (tftypes.Value, error) {
	if floor == nil {
		return noFloor, nil
	}
	rec, err := asbuilt.EncodeRecord(floor)
	if err != nil {
		return noFloor, err
	}
	return recordValue(floor, rec), nil
}

// recordValue is a design's as_built for the floor recorded as rec: the record as it came (the
// floor's record is canonical, EncodeRecord, so encoding the decoded floor again would give the
// same bytes), the summary counted from the floor.
func recordValue(floor *fabric.Spec, rec asbuilt.Record) tftypes.Value {
	return tftypes.NewValue(tfTypeOf(floorRecordType), map[string]tftypes.Value{
		floorSummary: tfStr(asbuilt.Summary(floor)),
		floorSHA256:  tfStr(rec.SHA256),
		floorRecord:  tfStr(rec.Data),
	})
}

// designRecord is the record a known `design` object carries as its as_built; has is false for
// a design built as generated or a record not in the shape gpucluster_topology writes.
func designRecord(design tftypes.Value) (rec asbuilt.Record, has bool) {
	var attrs map[string]tftypes.Value
	if !design.IsKnown() || design.IsNull() || design.As(&attrs) != nil {
		return rec, false
	}
	v, ok := attrs[plan.AttrAsBuilt]
	if !ok || v.IsNull() || !v.IsFullyKnown() {
		return rec, false
	}
	var fields map[string]tftypes.Value
	if v.As(&fields) != nil || fields[floorSHA256].IsNull() || fields[floorRecord].IsNull() ||
		fields[floorSHA256].As(&rec.SHA256) != nil || fields[floorRecord].As(&rec.Data) != nil {
		return rec, false
	}
	return rec, true
}

// decodeDesignAsBuilt reads the floor a `design` object (held by attribute) is fitted to; nil
// for a design built as generated. A record that is not what gpucluster_topology wrote is an
// error on the design's as_built.
func (r *specReader) decodeDesignAsBuilt(design tftypes.Value, attribute string) *fabric.Spec {
	var attrs map[string]tftypes.Value
	if !design.IsKnown() || design.IsNull() || design.As(&attrs) != nil {
		return nil
	}
	v, ok := attrs[plan.AttrAsBuilt]
	if !ok || v.IsNull() {
		return nil
	}
	if !v.IsFullyKnown() {
		r.unknown = true
		return nil
	}
	at := path.Root(attribute).AtName(plan.AttrAsBuilt)
	rec, has := designRecord(design)
	if !has {
		r.diags.AddAttributeError(at, "Cannot read the design's floor",
			"as_built must be { summary, sha256, record } as gpucluster_topology writes it: hand the design on unchanged "+
				"(design = data.gpucluster_topology.x.design).")
		return nil
	}
	floor, err := asbuilt.DecodeRecord(rec)
	if err != nil {
		r.diags.AddAttributeError(at, "Cannot read the design's floor", err.Error()+
			". A design's as_built is written by gpucluster_topology from its own as_built: hand the design on unchanged "+
			"(design = data.gpucluster_topology.x.design), and give a changed floor to gpucluster_topology instead.")
		return nil
	}
	return floor
}
