package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
)

// gpucluster_topology's `as_built`: the design mapped onto the floor (asbuilt.Fit). The item maps
// then carry the floor's names, GUIDs and ports wherever the design has the floor's link, the
// `design` carries the floor (so the fabric given it builds the same fitted graph), and
// `as_built_fit` says how the floor and the design differ.

var asBuiltFitAttrTypes = map[string]attr.Type{
	"devices_matched":   types.Int64Type,
	"devices_unmatched": types.ListType{ElemType: types.StringType},
	"links_kept":        types.Int64Type,
	"links_moved":       types.Int64Type,
	"links_added":       types.Int64Type,
	"links_removed":     types.Int64Type,
	"links_kept_max":    types.Int64Type,
	"deviations":        types.ListType{ElemType: types.StringType},
}

var tfAsBuiltFit = tfTypeOf(types.ObjectType{AttrTypes: asBuiltFitAttrTypes})

func asBuiltFitAttribute() schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "How the design fits the floor given in `as_built`; `null` without it. Counts are of cables " +
			"(logical links): `links_kept + links_moved + links_removed` is the floor's, `links_kept + links_moved + " +
			"links_added` the design's.",
		Attributes: map[string]schema.Attribute{
			"devices_matched": outInt("Floor switches, nodes and HCAs that took a design device's place."),
			"devices_unmatched": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "Floor devices the design has no place for (nothing is invented for them)."},
			"links_kept":    outInt("Floor cables kept on the same ports at both ends."),
			"links_moved":   outInt("Floor cables the design moves (one end stays, the other moves)."),
			"links_added":   outInt("Design links no floor cable has."),
			"links_removed": outInt("Floor cables the design has no place for."),
			"links_kept_max": outInt("The most cables any assignment of the design to the floor could keep: an upper bound " +
				"computed from the floor alone, which `links_kept` reaches on the generator's fat trees, rail-optimized " +
				"fabrics and dragonfly+ (a note says where it cannot be shown)."),
			"deviations": schema.ListAttribute{Computed: true, ElementType: types.StringType,
				MarkdownDescription: "One line per cable to remove, move or add, by the floor's labels: `move a:1 <-> b:2: b:2 -> c:7`."},
		},
	}
}

// asBuiltFitValue is `as_built_fit` of a fit; null without one.
func asBuiltFitValue(f *asbuilt.Fitted) tftypes.Value {
	if f == nil {
		return tftypes.NewValue(tfAsBuiltFit, nil)
	}
	r := f.Report
	strs := func(ss []string) tftypes.Value {
		vs := make([]tftypes.Value, len(ss))
		for i, s := range ss {
			vs[i] = tfStr(s)
		}
		return tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, vs)
	}
	return tfObj(tfAsBuiltFit, map[string]tftypes.Value{
		"devices_matched": tfInt(r.DevicesMatched), "devices_unmatched": strs(r.DevicesUnmatched),
		"links_kept": tfInt(r.LinksKept), "links_moved": tfInt(r.LinksMoved), "links_added": tfInt(r.LinksAdded),
		"links_removed": tfInt(r.LinksRemoved), "links_kept_max": tfInt(r.LinksKeptMax), "deviations": strs(r.Deviations),
	})
}
