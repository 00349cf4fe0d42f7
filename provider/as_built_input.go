package provider

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// An `as_built` argument (gpucluster_topology, gpucluster_bom): the fabric on the floor, in the
// shape of gpucluster_discovered_fabric.as_built.
//
// The argument is dynamic rather than the nested object it holds. Terraform converts a map of
// objects to a nested attribute's type by unifying the types of all its elements (go-cty
// convert: conversionCollectionToMap, then unify sorts the element types of every attribute),
// and a topology fitted to an 8-SU floor spent 1.3 of Terraform's 4.4 CPU seconds there
// (perf, Terraform 1.16.4). A dynamic argument takes the discovered object as it is; the
// decoder below checks what Terraform would have: the maps there are, the attributes of each
// element and their types (dynamic_values.go).
//
// Nor does the argument go back into the data source's state (bypass.go): the floor is in
// gpucluster_discovered_fabric's state already, and a second copy cost Terraform as much again
// in state encoding and every expression that read the data source.

// asBuiltMaps are the inventory maps an as-built floor has: discovery sees no racks, and
// partitions are configuration, not floor.
var asBuiltMaps = []string{fabric.MapSwitches, fabric.MapNodes, fabric.MapHCAs, fabric.MapCables}

// floorOnly are the attributes gpucluster_discovered_fabric.as_built adds to a shape's objects,
// by map, with their descriptions: what discovery sees that a declaration does not say. The
// fabric's maps drop them (Terraform, converting the object to the map's type); an `as_built`
// argument accepts and ignores them.
var floorOnly = map[string]map[string]string{
	fabric.MapCables: {
		"width": "Link width as discovered, e.g. `4x`.",
		"speed": "Link speed as discovered, e.g. `NDR` (ibsim's `HDR` stand-in reads as `NDR` with `simulated`).",
	},
}

// floorForeign is floorOnly as the decoder's allow list.
var floorForeign = func() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for m, attrs := range floorOnly {
		out[m] = map[string]bool{}
		for a := range attrs {
			out[m][a] = true
		}
	}
	return out
}()

// asBuiltShapeDoc says what an `as_built` argument holds; the argument's description ends with it.
const asBuiltShapeDoc = " The object is `{ switches, nodes, hcas, cables }`: maps keyed by name whose elements have the " +
	"attributes of `gpucluster_fabric`'s maps of the same names (and a cable's discovered `width` and `speed`), as " +
	"`gpucluster_discovered_fabric.as_built` gives it; checked at plan time, each attribute where it is. It is not kept " +
	"in this data source's state (it reads back as `null`): the discovered fabric's state holds it."

// asBuiltInputAttribute is the `as_built` argument: dynamic, so it carries no framework
// behaviour, and bypass.go strips it like the fabric's maps.
func asBuiltInputAttribute(desc string) schema.DynamicAttribute {
	return schema.DynamicAttribute{Optional: true, MarkdownDescription: desc + asBuiltShapeDoc}
}

// decodeAsBuilt reads an `as_built` value held at `at` into the floor's spec; nil when it is
// null. Problems are attribute errors under `at`.
func (r *specReader) decodeAsBuilt(v tftypes.Value, at path.Path) *fabric.Spec {
	if v.IsNull() {
		return nil
	}
	if !v.IsKnown() {
		r.unknown = true
		return nil
	}
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		r.diags.AddAttributeError(at, "Invalid as_built",
			fmt.Sprintf("as_built must be an object { switches, nodes, hcas, cables } such as gpucluster_discovered_fabric's as_built, not %s.", tfKind(v)))
		return nil
	}
	var extra []string
	for name := range attrs {
		if !slices.Contains(asBuiltMaps, name) {
			extra = append(extra, name)
		}
	}
	sort.Strings(extra)
	for _, name := range extra {
		r.diags.AddAttributeError(at.AtName(name), "Unsupported attribute",
			fmt.Sprintf("as_built has no %q: a floor is %s (discovery sees no racks, and partitions are configuration, not floor).", name, strings.Join(asBuiltMaps, ", ")))
	}
	outer, outerForeign := r.under, r.foreign
	r.under, r.foreign = at, floorForeign
	defer func() { r.under, r.foreign = outer, outerForeign }()
	null := tftypes.NewValue(tftypes.DynamicPseudoType, nil)
	get := func(name string) tftypes.Value {
		if v, ok := attrs[name]; ok {
			return v
		}
		return null
	}
	return &fabric.Spec{
		Switches: switchShape.decodeMap(r, get(fabric.MapSwitches)),
		Nodes:    nodeShape.decodeMap(r, get(fabric.MapNodes)),
		HCAs:     hcaShape.decodeMap(r, get(fabric.MapHCAs)),
		Cables:   cableShape.decodeMap(r, get(fabric.MapCables)),
	}
}
