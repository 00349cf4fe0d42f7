package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
)

// The `bom` output has the fixed shape of the design guide (docs/guides/design.md): items keyed by SKU, so that Terraform's
// diff of `bom` is the purchase order (each SKU whose quantity changes, before and after).

var bomItemAttrTypes = map[string]attr.Type{
	"sku":         types.StringType,
	"description": types.StringType,
	"quantity":    types.Int64Type,
	"unit_price":  types.Float64Type,
	"cost":        types.Float64Type,
}

var bomAttrTypes = map[string]attr.Type{
	"items":      types.MapType{ElemType: types.ObjectType{AttrTypes: bomItemAttrTypes}},
	"total_cost": types.Float64Type,
}

func bomSchema(desc string) schema.SingleNestedAttribute {
	return schema.SingleNestedAttribute{
		Computed:            true,
		MarkdownDescription: desc,
		Attributes: map[string]schema.Attribute{
			"items": schema.MapNestedAttribute{
				Computed: true,
				MarkdownDescription: "One entry per SKU, keyed by the SKU. `unit_price` and `cost` are null for items the catalog " +
					"has no sourced price for.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"sku":         schema.StringAttribute{Computed: true, MarkdownDescription: "Orderable part number."},
					"description": schema.StringAttribute{Computed: true, MarkdownDescription: "What it is."},
					"quantity":    schema.Int64Attribute{Computed: true, MarkdownDescription: "How many."},
					"unit_price":  schema.Float64Attribute{Computed: true, MarkdownDescription: "USD, from the catalog; null when unpriced."},
					"cost":        schema.Float64Attribute{Computed: true, MarkdownDescription: "`quantity x unit_price`; null when unpriced."},
				}},
			},
			"total_cost": schema.Float64Attribute{Computed: true, MarkdownDescription: "Sum of the priced items (unpriced items are not in it)."},
		},
	}
}

func optionalFloat(p *float64) types.Float64 {
	if p == nil {
		return types.Float64Null()
	}
	return types.Float64Value(*p)
}

func bomValue(b bom.BOM) types.Object {
	return types.ObjectValueMust(bomAttrTypes, map[string]attr.Value{
		"items":      bomItemsValue(b.Items),
		"total_cost": types.Float64Value(b.TotalCost),
	})
}

// bomItemsValue is the `items` map of the BOM's fixed shape, keyed by SKU (bom.BySKU).
func bomItemsValue(items []bom.Item) types.Map {
	vs := make(map[string]attr.Value, len(items))
	for sku, it := range bom.BySKU(items) {
		vs[sku] = types.ObjectValueMust(bomItemAttrTypes, map[string]attr.Value{
			"sku":         types.StringValue(it.SKU),
			"description": types.StringValue(it.Description),
			"quantity":    types.Int64Value(int64(it.Quantity)),
			"unit_price":  optionalFloat(it.UnitPrice),
			"cost":        optionalFloat(it.Cost),
		})
	}
	return types.MapValueMust(bomItemType, vs)
}
