package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// outMap is a computed map of nested objects, each field described. It is a MapNestedAttribute
// although the framework would walk every nested value of it (ReifyNullCollectionBlocks,
// semantic equality: tens of seconds for tens of thousands of objects) because the framework
// never sees these values: Wrap puts the item maps into the response itself (bypassOutputs in
// wire.go). Its type is the map of the same objects a MapAttribute had
// (TestTopologyItemSchemaTypes), so state and the encoder are unchanged.
func outMap(desc string, attrs map[string]schema.Attribute) schema.MapNestedAttribute {
	return schema.MapNestedAttribute{Computed: true, MarkdownDescription: desc,
		NestedObject: schema.NestedAttributeObject{Attributes: attrs}}
}

// shapeOutputs are the fields of an inventory shape as computed attributes, with the shape
// table's descriptions (fabric_inventory.go): the topology's objects are the fabric's inputs,
// so one text says what each field holds in both.
func shapeOutputs(s inventoryShape) map[string]schema.Attribute {
	return computedAttrs(s.schemaAttribute().NestedObject.Attributes)
}

func computedAttrs(in map[string]rschema.Attribute) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(in))
	for k, a := range in {
		out[k] = computedAttr(a)
	}
	return out
}

// computedAttr is the computed data-source twin of an optional input attribute. An input's
// "Required. " says what a configuration must set; an output has nothing to set, so it goes.
func computedAttr(a rschema.Attribute) schema.Attribute {
	d := strings.TrimPrefix(a.GetMarkdownDescription(), "Required. ")
	switch a := a.(type) {
	case rschema.StringAttribute:
		return outStr(d)
	case rschema.Int64Attribute:
		return outInt(d)
	case rschema.Float64Attribute:
		return outFloat(d)
	case rschema.BoolAttribute:
		return schema.BoolAttribute{Computed: true, MarkdownDescription: d}
	case rschema.SingleNestedAttribute:
		return schema.SingleNestedAttribute{Computed: true, MarkdownDescription: d, Attributes: computedAttrs(a.Attributes)}
	case rschema.ListNestedAttribute:
		return schema.ListNestedAttribute{Computed: true, MarkdownDescription: d,
			NestedObject: schema.NestedAttributeObject{Attributes: computedAttrs(a.NestedObject.Attributes)}}
	}
	panic(fmt.Sprintf("computedAttr: no computed twin for %T", a)) // a shape table grew a kind: add it here
}
