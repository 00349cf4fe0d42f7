package provider

import (
	"context"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// gpucluster_topology's arguments and its computed `design`, both from the generator's argument
// table (topogen.Args), as the fabric's `design` input is (fabric_design.go): one description,
// type and range per argument in all three, and the topology's configuration is read by the
// same decoder as a `design` (decodeArgs).

// topologyArgAttributes are the data source's arguments: Optional (kind Required), with
// validators that say what decodeArgs would.
func topologyArgAttributes() map[string]schema.Attribute {
	top, nested := topogen.ArgGroups()
	attrs := make(map[string]schema.Attribute, len(top)+len(nested))
	for _, a := range top {
		attrs[a.Name] = topologyArg(a)
	}
	for g, as := range nested {
		o := make(map[string]schema.Attribute, len(as))
		for _, a := range as {
			o[a.Name] = topologyArg(a)
		}
		attrs[g] = schema.SingleNestedAttribute{Optional: true, MarkdownDescription: topogen.GroupDoc(g), Attributes: o}
	}
	return attrs
}

func topologyArg(a *topogen.Arg) schema.Attribute {
	switch a.Type {
	case topogen.ArgInt:
		return schema.Int64Attribute{Optional: true, MarkdownDescription: a.Doc, Validators: []validator.Int64{argRange{a}}}
	case topogen.ArgFloat:
		return schema.Float64Attribute{Optional: true, MarkdownDescription: a.Doc, Validators: []validator.Float64{argRange{a}}}
	case topogen.ArgInts3:
		return schema.ListAttribute{Optional: true, ElementType: types.Int64Type, MarkdownDescription: a.Doc,
			Validators: []validator.List{listvalidator.SizeBetween(3, 3)}}
	case topogen.ArgStringMap:
		return schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: a.Doc}
	}
	var vs []validator.String
	if a.OneOf != nil {
		vs = append(vs, stringvalidator.OneOf(a.OneOf()...))
	}
	if a.Pattern != "" {
		vs = append(vs, stringvalidator.RegexMatches(regexp.MustCompile(a.Pattern), a.PatternHelp))
	}
	return schema.StringAttribute{Required: a.Required, Optional: !a.Required, MarkdownDescription: a.Doc, Validators: vs}
}

// argLabel names a nested argument at the start of a detail ("prefixes.leaf: "), as decodeArgs
// does; Terraform quotes a top-level one's source line.
func argLabel(a *topogen.Arg) string {
	if a.Group == "" {
		return ""
	}
	return a.Path() + ": "
}

// argRange checks a number argument's range with the decoder's message (topogen.Arg.RangeProblem).
type argRange struct{ a *topogen.Arg }

func (v argRange) Description(context.Context) string {
	return "a value in the range of " + v.a.Name
}

func (v argRange) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v argRange) ValidateInt64(_ context.Context, req validator.Int64Request, resp *validator.Int64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := v.a.RangeProblem(float64(req.ConfigValue.ValueInt64())); msg != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+v.a.Name, argLabel(v.a)+msg)
	}
}

func (v argRange) ValidateFloat64(_ context.Context, req validator.Float64Request, resp *validator.Float64Response) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if msg := v.a.RangeProblem(req.ConfigValue.ValueFloat64()); msg != "" {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid "+v.a.Name, argLabel(v.a)+msg)
	}
}

// topologyDesignAttribute is gpucluster_topology's computed `design`, every attribute described
// from the table. Its object type is the fabric input's (designType), so the value is handed
// over unchanged.
func topologyDesignAttribute(desc string) schema.SingleNestedAttribute {
	top, nested := topogen.ArgGroups()
	computed := func(a *topogen.Arg) schema.Attribute {
		switch a.Type {
		case topogen.ArgInt:
			return schema.Int64Attribute{Computed: true, MarkdownDescription: a.Doc}
		case topogen.ArgFloat:
			return schema.Float64Attribute{Computed: true, MarkdownDescription: a.Doc}
		case topogen.ArgInts3:
			return schema.ListAttribute{Computed: true, ElementType: types.Int64Type, MarkdownDescription: a.Doc}
		case topogen.ArgStringMap:
			return schema.MapAttribute{Computed: true, ElementType: types.StringType, MarkdownDescription: a.Doc}
		}
		return schema.StringAttribute{Computed: true, MarkdownDescription: a.Doc}
	}
	attrs := make(map[string]schema.Attribute, len(top)+len(nested))
	for _, a := range top {
		attrs[a.Name] = computed(a)
	}
	for g, as := range nested {
		o := make(map[string]schema.Attribute, len(as))
		for _, a := range as {
			o[a.Name] = computed(a)
		}
		attrs[g] = schema.SingleNestedAttribute{Computed: true, MarkdownDescription: topogen.GroupDoc(g), Attributes: o}
	}
	floor := map[string]schema.Attribute{}
	for name, doc := range floorFieldDocs {
		floor[name] = schema.StringAttribute{Computed: true, MarkdownDescription: doc}
	}
	attrs[plan.AttrAsBuilt] = schema.SingleNestedAttribute{Computed: true, MarkdownDescription: designAsBuiltDoc, Attributes: floor}
	return schema.SingleNestedAttribute{Computed: true, MarkdownDescription: desc, Attributes: attrs}
}
