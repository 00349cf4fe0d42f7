package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The fabric's nested attributes are all Optional in the schema (fabric_inventory.go says why),
// so the docs can show what is required only through the descriptions. For every shape, an
// element with every attribute null must be refused on exactly the attributes whose description
// starts with "Required.", and a cable end with a null device and port on both of them.
func TestRequiredInDescriptionsMatchesDecoder(t *testing.T) {
	requiredByDocs(t, rackShape)
	requiredByDocs(t, switchShape)
	requiredByDocs(t, nodeShape)
	requiredByDocs(t, hcaShape)
	requiredByDocs(t, cableShape)
	requiredByDocs(t, partitionShape)
	ends := as[schema.SingleNestedAttribute](t, cableShape.schemaAttribute().NestedObject.Attributes["a"])
	for _, n := range []string{"device", "port"} {
		if d := ends.Attributes[n].GetMarkdownDescription(); !strings.HasPrefix(d, "Required. ") {
			t.Errorf("cables.a.%s: description %q does not start with \"Required. \"", n, d)
		}
	}
}

func requiredByDocs[T any](t *testing.T, s *shape[T]) {
	t.Helper()
	typ := tfTypeOf(s.objectType())
	nulls := map[string]tftypes.Value{}
	for name, at := range typ.AttributeTypes {
		nulls[name] = tftypes.NewValue(at, nil)
	}
	r := specReader{}
	s.decodeMap(&r, tftypes.NewValue(tftypes.Map{ElementType: typ}, map[string]tftypes.Value{"k": tftypes.NewValue(typ, nulls)}))
	attrs := s.schemaAttribute().NestedObject.Attributes
	for name, a := range attrs {
		docs := strings.HasPrefix(a.GetMarkdownDescription(), "Required. ")
		refused := false
		for _, d := range r.diags {
			if strings.Contains(d.Detail(), name+" is required") {
				refused = true
			}
		}
		if docs != refused {
			t.Errorf("%s.%s: description says required=%v, decoder refuses a null: %v (%q)", s.attrName(), name, docs, refused, a.GetMarkdownDescription())
		}
	}
}
