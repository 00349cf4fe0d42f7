package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// An `as_built` argument (gpucluster_topology, the design object, gpucluster_bom): the fabric on
// the floor, in the shape of gpucluster_discovered_fabric.as_built, whose object fits it as it
// is (Terraform drops a discovered cable's width and speed when it converts the object).

// asBuiltMaps are the inventory maps an as-built floor has: discovery sees no racks, and
// partitions are configuration, not floor.
var asBuiltMaps = []string{fabric.MapSwitches, fabric.MapNodes, fabric.MapHCAs, fabric.MapCables}

// asBuiltInputAttribute is the `as_built` argument; like the fabric's own maps it carries no
// framework behaviour (bypass.go strips it), and its items are checked by the decoder and
// fabric.Build.
func asBuiltInputAttribute(desc string) schema.SingleNestedAttribute {
	attrs := map[string]schema.Attribute{}
	for _, s := range inventoryShapes {
		for _, m := range asBuiltMaps {
			if s.attrName() == m {
				attrs[m] = s.schemaAttribute()
			}
		}
	}
	return schema.SingleNestedAttribute{Optional: true, MarkdownDescription: desc, Attributes: attrs}
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
		r.diags.AddAttributeError(at, "Cannot read as_built", err.Error())
		return nil
	}
	outer := r.under
	r.under = at
	defer func() { r.under = outer }()
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
