package provider

import (
	"errors"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// An `as_built` argument (gpucluster_topology, gpucluster_bom, gpucluster_fabric): the fabric
// on the floor as one checked value, gpucluster_discovered_fabric's `floor` = { summary, sha256,
// record }, the record a fitted design carries as its own as_built (design_floor.go).
//
// The floor used to travel as gpucluster_discovered_fabric's as_built maps: tens of thousands of
// values that Terraform wrote to state, decoded for each expression and encoded for each request,
// 1.2-1.7 s of Terraform's CPU for an 8-SU floor (issue 28), and a plan of 3.3-3.9x the design's
// alone. As one record Terraform carries three strings; the provider reads the floor straight
// from the record's bytes (asbuilt.DecodeRecord) and refuses a record that is not what its
// sha256 says. The summary is never read: it is counted again from the record.
//
// The argument stays dynamic, so that the maps it used to take get an error that says how to
// migrate rather than Terraform's type mismatch, and it is still not kept in the data sources'
// state (tfwire): the discovered fabric's state holds it.

// asBuiltMaps are the inventory maps an as-built floor has: discovery sees no racks, and
// partitions are configuration, not floor.
var asBuiltMaps = []string{fabric.MapSwitches, fabric.MapNodes, fabric.MapHCAs, fabric.MapCables}

// floorOnly are the attributes gpucluster_discovered_fabric.as_built adds to a shape's objects,
// by map, with their descriptions: what discovery sees that a declaration does not say. The
// fabric's maps drop them (Terraform, converting the object to the map's type).
var floorOnly = map[string]map[string]string{
	fabric.MapCables: {
		"width": "Link width as discovered, e.g. `4x`.",
		"speed": "Link speed as discovered, e.g. `NDR` (ibsim's `HDR` stand-in reads as `NDR` with `simulated`).",
	},
}

// asBuiltShapeDoc says what an `as_built` argument holds; the argument's description ends with it.
const asBuiltShapeDoc = " The value is `gpucluster_discovered_fabric`'s `floor`, `{ summary, sha256, record }`, handed on " +
	"unchanged (`as_built = data.gpucluster_discovered_fabric.floor.floor`): the record is read from its bytes, a record " +
	"that does not match its `sha256` is refused, and `summary` is counted again from the record."

// asBuiltInputAttribute is the `as_built` argument: dynamic, so it carries no framework
// behaviour and the old maps get an error that says how to migrate.
func asBuiltInputAttribute(desc string) schema.DynamicAttribute {
	return schema.DynamicAttribute{Optional: true, MarkdownDescription: desc + asBuiltShapeDoc}
}

// floorArg reads an `as_built` value held at `at`: the floor's record, checked by shape only
// (asbuilt.DecodeRecord checks the digest); ok is false when it is null, unknown (r.unknown is
// then set) or malformed (an attribute error under `at`).
func (r *specReader) floorArg(v tftypes.Value, at path.Path) (rec asbuilt.Record, ok bool) {
	if v.IsNull() {
		return rec, false
	}
	if !v.IsFullyKnown() {
		r.unknown = true
		return rec, false
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		r.diags.AddAttributeError(at, "Invalid as_built",
			fmt.Sprintf("as_built must be the floor { summary, sha256, record } that gpucluster_discovered_fabric gives as `floor`, not %s: as_built = data.gpucluster_discovered_fabric.x.floor.", tfwire.Kind(v)))
		return rec, false
	}
	for _, m := range asBuiltMaps {
		if _, isMap := attrs[m]; isMap {
			r.diags.AddAttributeError(at, "as_built takes the floor as one value",
				"as_built is given gpucluster_discovered_fabric's as_built maps; it takes the floor as one checked value "+
					"now, the data source's `floor`: write as_built = data.gpucluster_discovered_fabric.x.floor (the maps "+
					"are filled only for the names in the data source's `items`, for per-item resources).")
			return rec, false
		}
	}
	var extra []string
	for name := range attrs {
		if _, known := floorFieldDocs[name]; !known {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		r.diags.AddAttributeError(at.AtName(name), "Unsupported attribute",
			fmt.Sprintf("as_built has no %q: the floor is { summary, sha256, record }, as gpucluster_discovered_fabric's `floor` gives it.", name))
	}
	str := func(name string, dst *string) bool {
		fv, has := attrs[name]
		if !has || fv.IsNull() {
			r.diags.AddAttributeError(at.AtName(name), "Missing "+name,
				fmt.Sprintf("as_built has no %s: hand on gpucluster_discovered_fabric's `floor` unchanged (as_built = data.gpucluster_discovered_fabric.x.floor).", name))
			return false
		}
		s, isStr := tfwire.AsString(fv)
		if !isStr {
			r.diags.AddAttributeError(at.AtName(name), "Invalid "+name, fmt.Sprintf("as_built's %s must be a string, not %s.", name, tfwire.Kind(fv)))
			return false
		}
		*dst = s
		return true
	}
	okSum, okRec := str(floorSHA256, &rec.SHA256), str(floorRecord, &rec.Data)
	return rec, okSum && okRec && len(extra) == 0
}

// decodeAsBuilt reads an `as_built` value held at `at` into the floor's spec (shared: read it,
// or change a Clone); nil when it is null, unknown or refused (an attribute error under `at`: on
// its record when the record is not what its sha256 says).
func (r *specReader) decodeAsBuilt(v tftypes.Value, at path.Path) *fabric.Spec {
	floor, _ := r.decodeFloor(v, at)
	return floor
}

// decodeFloor is decodeAsBuilt that also gives the record read.
func (r *specReader) decodeFloor(v tftypes.Value, at path.Path) (*fabric.Spec, asbuilt.Record) {
	rec, ok := r.floorArg(v, at)
	if !ok {
		return nil, rec
	}
	floor, err := asbuilt.DecodeRecord(rec)
	if err != nil && !errors.Is(err, asbuilt.ErrRecordAltered) {
		r.diags.AddAttributeError(at.AtName(floorRecord), "The floor record is refused", err.Error()+".")
		return nil, rec
	}
	if err != nil {
		r.diags.AddAttributeError(at.AtName(floorRecord), "The floor record is refused", err.Error()+
			": the record was edited, truncated or taken from another floor than its sha256. Hand on "+
			"gpucluster_discovered_fabric's `floor` unchanged (as_built = data.gpucluster_discovered_fabric.x.floor), "+
			"and change the floor by reading it again (its topology_file, or a live read).")
		return nil, rec
	}
	return floor, rec
}
