package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// resAttr is what an inventory resource (gpucluster_switch, gpucluster_rack) adds to a row of
// its shape's table (fabric_inventory.go): the row's name, kind and fabric field are the
// resource's attribute too, so the resource and the fabric's map element cannot drift apart.
// Only the resource's own rules are here: its description, whether it is required, its default,
// validators and plan modifiers (the fabric's map checks these in its decoder and fabric.Build,
// see fabric_inventory.go). Each slice must match the row's kind; a mismatch panics when the
// schema is built, which every test reading the provider's schema does
// (TestInventoryFitsResourcesAndTopology first).
type resAttr struct {
	desc     string
	required bool
	strDef   defaults.String // Optional+Computed with this default
	intDef   defaults.Int64
	strVal   []validator.String
	intVal   []validator.Int64
	fltVal   []validator.Float64
	strMod   []planmodifier.String
}

// withResource returns f as a resource attribute too.
func (f field[T]) withResource(r resAttr) field[T] {
	f.res = &r
	return f
}

// resourceAttr is the row's attribute in the resource's schema.
func (f *field[T]) resourceAttr() schema.Attribute {
	r := f.res
	mismatch := func(ok bool) {
		if !ok {
			panic("inventory table: " + f.name + " declares resource rules of another kind") // a table error, found by any test that reads the schema
		}
	}
	switch f.kind {
	case kString:
		mismatch(r.intDef == nil && r.intVal == nil && r.fltVal == nil)
		return schema.StringAttribute{
			Required: r.required, Optional: !r.required, Computed: r.strDef != nil, Default: r.strDef,
			MarkdownDescription: r.desc, Validators: r.strVal, PlanModifiers: r.strMod,
		}
	case kInt:
		mismatch(r.strDef == nil && r.strVal == nil && r.strMod == nil && r.fltVal == nil)
		return schema.Int64Attribute{
			Required: r.required, Optional: !r.required, Computed: r.intDef != nil, Default: r.intDef,
			MarkdownDescription: r.desc, Validators: r.intVal,
		}
	case kFloat:
		mismatch(r.strDef == nil && r.intDef == nil && r.strVal == nil && r.strMod == nil && r.intVal == nil)
		return schema.Float64Attribute{
			Required: r.required, Optional: !r.required, MarkdownDescription: r.desc, Validators: r.fltVal,
		}
	}
	panic("inventory table: " + f.name + ": a resource attribute of this kind is not supported")
}

// resourceAttributes are the resource's attributes that are rows of the shape's table; the
// resource adds its own computed ones (id, ports).
func (s *shape[T]) resourceAttributes(own map[string]schema.Attribute) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(s.fields)+len(own))
	for i := range s.fields {
		if s.fields[i].res != nil {
			out[s.fields[i].name] = s.fields[i].resourceAttr()
		}
	}
	for k, a := range own {
		if _, dup := out[k]; dup {
			panic("inventory table: " + k + " is declared by the table and by the resource")
		}
		out[k] = a
	}
	return out
}
