package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func topologySchema(t *testing.T) schema.Schema {
	t.Helper()
	var resp datasource.SchemaResponse
	newTopologyDataSource().Schema(context.Background(), datasource.SchemaRequest{}, &resp)
	if resp.Diagnostics.HasError() {
		t.Fatalf("schema: %v", resp.Diagnostics)
	}
	return resp.Schema
}

// The item maps became nested attributes for their docs; their types must stay the map-of-object
// types the encoder builds and state holds, or every existing state would no longer decode.
func TestTopologyItemSchemaTypes(t *testing.T) {
	sch := topologySchema(t)
	want := map[string]attr.Type{
		"racks":           types.MapType{ElemType: topoRackType},
		"switches":        types.MapType{ElemType: topoSwitchType},
		"nodes":           types.MapType{ElemType: topoNodeType},
		"hcas":            types.MapType{ElemType: topoHCAType},
		"cables":          types.MapType{ElemType: topoCableType},
		"appliance_links": types.MapType{ElemType: topoExternalType},
		"groups":          types.MapType{ElemType: topoGroupType},
		"port_plan":       types.ListType{ElemType: topoPortRangeType},
	}
	for name, w := range want {
		a, ok := sch.Attributes[name]
		if !ok {
			t.Errorf("%s: missing from the schema", name)
			continue
		}
		if !a.IsComputed() || a.IsOptional() || a.IsRequired() {
			t.Errorf("%s: want computed only", name)
		}
		if got := a.GetType(); !got.Equal(w) {
			t.Errorf("%s: type\n got %s\nwant %s", name, got, w)
		}
	}
}

// Every nested attribute of the data source carries a description, so the docs describe each
// field of the generated objects.
func TestTopologyItemSchemaDescribed(t *testing.T) {
	var walk func(p string, attrs map[string]schema.Attribute) int
	walk = func(p string, attrs map[string]schema.Attribute) int {
		n := 0
		for name, a := range attrs {
			n++
			if a.GetMarkdownDescription() == "" {
				t.Errorf("%s%s: no description", p, name)
			}
			if !a.IsComputed() && p != "" && !strings.HasPrefix(p, "prefixes.") && !strings.HasPrefix(p, "name_digits.") {
				t.Errorf("%s%s: an output field must be computed", p, name)
			}
			switch a := a.(type) {
			case schema.MapNestedAttribute:
				n += walk(p+name+".", a.NestedObject.Attributes)
			case schema.ListNestedAttribute:
				n += walk(p+name+".", a.NestedObject.Attributes)
			case schema.SingleNestedAttribute:
				n += walk(p+name+".", a.Attributes)
			}
		}
		return n
	}
	if n := walk("", topologySchema(t).Attributes); n < 150 {
		t.Errorf("walked %d attributes; the item maps' fields are missing", n)
	}
	// One source: a field reads as its inventory shape's table says, without the input's "Required.".
	racks, ok := topologySchema(t).Attributes["racks"].(schema.MapNestedAttribute)
	if !ok {
		t.Fatalf("racks: %T, want a MapNestedAttribute", topologySchema(t).Attributes["racks"])
	}
	rows := racks.NestedObject.Attributes
	if got, want := rows["row"].GetMarkdownDescription(), "Row of the hall (1-based)."; got != want {
		t.Errorf("racks.row: %q, want the shape table's %q", got, want)
	}
}
