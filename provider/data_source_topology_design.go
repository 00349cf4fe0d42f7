package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// topologyDesignAttribute is gpucluster_topology's computed `design`, with every attribute
// described from the table the fabric's `design` input is built from (designFields,
// designPrefixFields), so the docs say what each attribute of the normalized design holds. Its
// object type is designType, the fabric input's, so the value is handed over unchanged. (The
// item maps are nested attributes too, described from the inventory shape tables; outMap says
// why that costs nothing.)
func topologyDesignAttribute(desc string) schema.SingleNestedAttribute {
	prefixes := map[string]schema.Attribute{}
	for i := range designPrefixFields {
		prefixes[designPrefixFields[i].name] = schema.StringAttribute{Computed: true,
			MarkdownDescription: "Name prefix of " + designPrefixFields[i].desc}
	}
	attrs := map[string]schema.Attribute{
		"prefixes":         schema.SingleNestedAttribute{Computed: true, MarkdownDescription: "Name prefixes.", Attributes: prefixes},
		"torus_dims":       schema.ListAttribute{Computed: true, ElementType: types.Int64Type, MarkdownDescription: "`torus-3d`: switches along x, y and z."},
		"switch_guid_base": schema.StringAttribute{Computed: true, MarkdownDescription: "Base of the derived switch GUIDs."},
		"hca_guid_base":    schema.StringAttribute{Computed: true, MarkdownDescription: "Base of the derived HCA port GUIDs."},
		"hca_guids":        schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: "Burned-in port GUIDs by HCA name."},
	}
	for i := range designFields {
		f := &designFields[i]
		switch f.kind {
		case kString:
			attrs[f.name] = schema.StringAttribute{Computed: true, MarkdownDescription: f.desc}
		case kInt:
			attrs[f.name] = schema.Int64Attribute{Computed: true, MarkdownDescription: f.desc}
		case kFloat:
			attrs[f.name] = schema.Float64Attribute{Computed: true, MarkdownDescription: f.desc}
		case kBool:
			attrs[f.name] = schema.BoolAttribute{Computed: true, MarkdownDescription: f.desc}
		}
	}
	return schema.SingleNestedAttribute{Computed: true, MarkdownDescription: desc, Attributes: attrs}
}
