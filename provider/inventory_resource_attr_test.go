package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// panicOf runs f and returns what it panicked with, "" when it returned.
func panicOf(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg, _ = r.(string)
			if msg == "" {
				msg = "non-string panic"
			}
		}
	}()
	f()
	return ""
}

// TestResourceRulesMisfit: a resource rule the row's kind cannot take, or nested rules that are
// not one per attribute of the nested object, stop the schema from being built rather than being
// dropped without a word; an attribute declared by the table and by the resource too is refused.
func TestResourceRulesMisfit(t *testing.T) {
	end := func(c *fabric.Cable) *fabric.End { return &c.A }
	str := func(c *fabric.Cable) *string { return &c.Kind }
	for name, c := range map[string]struct {
		row  field[fabric.Cable]
		own  map[string]schema.Attribute
		want string
	}{
		"int rule on a string": {
			row:  fStr("kind", "", false, str).withResource(resAttr{intVal: positionURules().intVal}),
			want: "rules of another kind",
		},
		"required with a default": {
			row:  fStr("kind", "", false, str).withResource(resAttr{required: true, strDef: stringdefault.StaticString("dac")}),
			want: "required, and computed",
		},
		"an end without port rules": {
			row:  fEnd("a", "", end).withResource(resAttr{required: true, nested: map[string]resAttr{"device": {}}}),
			want: "nested rules do not match",
		},
		"an end with a rule for no attribute": {
			row:  fEnd("a", "", end).withResource(resAttr{required: true, nested: map[string]resAttr{"device": {}, "slot": {}}}),
			want: "no rules for the nested attribute port",
		},
		"a nested rule of another kind": {
			row: fEnd("a", "", end).withResource(resAttr{required: true, nested: map[string]resAttr{
				"device": {}, "port": {strVal: []validator.String{nameValidator()}},
			}}),
			want: "resource attribute port: declares rules of another kind",
		},
		"declared twice": {
			row:  fStr("kind", "", false, str).withResource(resAttr{}),
			own:  map[string]schema.Attribute{"kind": schema.StringAttribute{Optional: true}},
			want: "declared by the table and by the resource",
		},
	} {
		s := &shape[fabric.Cable]{fields: []field[fabric.Cable]{c.row}}
		got := panicOf(func() { s.resourceAttributes(c.own) })
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: panic %q, want one saying %q", name, got, c.want)
		}
	}
}
