package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/defaults"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// resAttr is what an inventory resource (gpucluster_rack, gpucluster_switch, gpucluster_node,
// gpucluster_hca, gpucluster_cable, gpucluster_partition) adds to a row of its shape's table
// (fabric_inventory.go): the row's name, kind and fabric field are the resource's attribute too,
// so the resource and the fabric's map element cannot drift apart. Only the resource's own rules
// are here: its description, whether it is required or computed, its default, validators and
// plan modifiers (the fabric's map checks these in its decoder and fabric.Build, see
// fabric_inventory.go). A rule must fit the row's kind; a misfit panics when the schema is built,
// which every test reading the provider's schema does (TestInventoryFitsResourcesAndTopology
// first).
type resAttr struct {
	desc     string
	required bool
	computed bool            // Optional and Computed with no default: the resource's ModifyPlan fills it
	strDef   defaults.String // Optional+Computed with this default
	intDef   defaults.Int64
	boolDef  defaults.Bool
	strVal   []validator.String
	intVal   []validator.Int64
	fltVal   []validator.Float64
	listVal  []validator.List   // kMembers: the list's
	objVal   []validator.Object // kMembers: each element's
	strMod   []planmodifier.String
	objMod   []planmodifier.Object // kEnd
	// nested holds the rules of a nested object's attributes (kEnd: device and port; kMembers:
	// hca, guid and membership), one for each.
	nested map[string]resAttr
}

// withResource returns f as a resource attribute too.
func (f field[T]) withResource(r resAttr) field[T] {
	f.res = &r
	return f
}

// resourceAttr is the row's attribute in the resource's schema.
func (f *field[T]) resourceAttr() schema.Attribute {
	return resourceAttr(f.name, f.kind, f.res, subFieldsOf(f.kind))
}

// resourceAttr is the attribute name of kind with the rules r; sub are the attributes of its
// nested object, if any.
func resourceAttr(name string, kind fieldKind, r *resAttr, sub []subField) schema.Attribute {
	r.check(name, kind, sub)
	opt, comp := !r.required, r.computed || r.strDef != nil || r.intDef != nil || r.boolDef != nil
	switch kind {
	case kString:
		return schema.StringAttribute{
			Required: r.required, Optional: opt, Computed: comp, Default: r.strDef,
			MarkdownDescription: r.desc, Validators: r.strVal, PlanModifiers: r.strMod,
		}
	case kInt:
		return schema.Int64Attribute{
			Required: r.required, Optional: opt, Computed: comp, Default: r.intDef,
			MarkdownDescription: r.desc, Validators: r.intVal,
		}
	case kFloat:
		return schema.Float64Attribute{
			Required: r.required, Optional: opt, Computed: comp, MarkdownDescription: r.desc, Validators: r.fltVal,
		}
	case kBool:
		return schema.BoolAttribute{
			Required: r.required, Optional: opt, Computed: comp, Default: r.boolDef, MarkdownDescription: r.desc,
		}
	case kEnd:
		return schema.SingleNestedAttribute{
			Required: r.required, Optional: opt, Computed: comp, MarkdownDescription: r.desc,
			PlanModifiers: r.objMod, Attributes: r.nestedAttributes(sub),
		}
	default: // kMembers
		return schema.ListNestedAttribute{
			Required: r.required, Optional: opt, Computed: comp, MarkdownDescription: r.desc, Validators: r.listVal,
			NestedObject: schema.NestedAttributeObject{Validators: r.objVal, Attributes: r.nestedAttributes(sub)},
		}
	}
}

func (r *resAttr) nestedAttributes(sub []subField) map[string]schema.Attribute {
	out := make(map[string]schema.Attribute, len(sub))
	for _, s := range sub {
		n := r.nested[s.name]
		out[s.name] = resourceAttr(s.name, s.kind, &n, nil)
	}
	return out
}

// check panics when r holds a rule an attribute of kind cannot take, or when its nested rules are
// not exactly one for each attribute of sub: a table error, found by any test that reads the
// schema.
func (r *resAttr) check(name string, kind fieldKind, sub []subField) {
	bad := func(why string) { panic("inventory table: resource attribute " + name + ": " + why) }
	for _, rule := range []struct {
		set  bool
		kind fieldKind
	}{
		{r.strDef != nil || len(r.strVal) > 0 || len(r.strMod) > 0, kString},
		{r.intDef != nil || len(r.intVal) > 0, kInt},
		{len(r.fltVal) > 0, kFloat},
		{r.boolDef != nil, kBool},
		{len(r.objMod) > 0, kEnd},
		{len(r.listVal) > 0 || len(r.objVal) > 0, kMembers},
	} {
		if rule.set && rule.kind != kind {
			bad("declares rules of another kind")
		}
	}
	if r.required && (r.computed || r.strDef != nil || r.intDef != nil || r.boolDef != nil) {
		bad("required, and computed or with a default")
	}
	if len(r.nested) != len(sub) {
		bad("nested rules do not match the nested attributes")
	}
	for _, s := range sub {
		if _, ok := r.nested[s.name]; !ok {
			bad("no rules for the nested attribute " + s.name)
		}
	}
}

// resourceAttributes are the resource's attributes that are rows of the shape's table; the
// resource adds its own (id, ports, label, the BMC and firmware attributes...).
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
