package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// The inputs of a fabric, shared by gpucluster_fabric and every data source that reads one
// (gpucluster_bom, gpucluster_discovered_fabric, gpucluster_opensm_files,
// gpucluster_scheduler_topology, gpucluster_diagram). A type that reads a fabric:
//
//  1. adds fabricInputAttributes() to its schema,
//  2. embeds fabricInputsModel in its model (`fabricInputsModel` with no tag),
//  3. is listed in wire.go (bypassResources or bypassDataSources), and
//  4. calls readFabric (or decodeInputs and plan.Build), which decode the config, or the request value that
//     withStashedLists chose (the fabric's plan and prior state), and build it with the plan
//     pipeline (internal/plan).
//
// Through Wrap the model's input fields are null (tfwire strips them); the reader takes the
// values from Wrap's stash, or from the model when the request did not go through Wrap.

// fabricInputNames are the input attributes, as Wrap strips them.
var fabricInputNames = []string{"design", "absent_cables", fabric.MapRacks, fabric.MapSwitches, fabric.MapNodes, fabric.MapHCAs, fabric.MapCables, fabric.MapPartitions}

// fabricInputsModel holds the inputs in a model; embed it. src, set by withStashedLists, says
// which request value the inputs are read from.
type fabricInputsModel struct {
	src    tfwire.Source
	srcSet bool
	// takesFloor is set for gpucluster_fabric, whose `as_built` (asBuilt, the model's value) is
	// read with the inputs; the data sources that embed the model have no such argument, or
	// one of their own (gpucluster_bom's work order).
	takesFloor bool
	asBuilt    attr.Value

	Design       types.Object `tfsdk:"design"`
	AbsentCables types.List   `tfsdk:"absent_cables"`
	Racks        types.Map    `tfsdk:"racks"`
	Switches     types.Map    `tfsdk:"switches"`
	Nodes        types.Map    `tfsdk:"nodes"`
	HCAs         types.Map    `tfsdk:"hcas"`
	Cables       types.Map    `tfsdk:"cables"`
	Partitions   types.Map    `tfsdk:"partitions"`
}

func (m *fabricInputsModel) value(name string) attr.Value {
	switch name {
	case "design":
		return m.Design
	case "absent_cables":
		return m.AbsentCables
	case fabric.MapRacks:
		return m.Racks
	case fabric.MapSwitches:
		return m.Switches
	case fabric.MapNodes:
		return m.Nodes
	case fabric.MapHCAs:
		return m.HCAs
	case fabric.MapCables:
		return m.Cables
	case fabric.MapPartitions:
		return m.Partitions
	}
	return nil
}

// withStashedLists returns a copy of m whose inputs are read (by buildFabric) from the request
// value src as Wrap stashed it. Use the copy only to read the inputs: never State.Set or
// Plan.Set it; the model written back keeps the null inputs the framework sent (Wrap restores
// them).
func withStashedLists(_ context.Context, src tfwire.Source, m *fabricModel, _ *diag.Diagnostics) *fabricModel {
	c := *m
	c.src, c.srcSet = src, true
	c.takesFloor, c.asBuilt = true, m.AsBuilt
	return &c
}

// fabricInputAttributes are the input attributes of the schema. They are resource schema
// attributes; a data source schema takes them as they are.
func fabricInputAttributes() map[string]schema.Attribute {
	attrs := map[string]schema.Attribute{
		"design": designSchema(),
		"absent_cables": schema.ListAttribute{
			Optional: true, ElementType: types.StringType,
			MarkdownDescription: "Links of the `design` that are not cabled (yet) or have failed, by a cable end label " +
				"(`leaf01:33`, `gpu001/mlx5_0:1`) or a full cable label (`<a.device>:<a.port> <-> <b.device>:<b.port>`, either " +
				"order). They are left out of the graph. An entry that matches no generated cable is an error that names the " +
				"generated cables nearby.",
		},
	}
	for _, s := range inventoryShapes {
		attrs[s.attrName()] = s.schemaAttribute()
	}
	return attrs
}

// inputSource is where the inputs are read from: the source set for the request, else the config.
func (c *fabricInputsModel) inputSource() tfwire.Source {
	if c.srcSet {
		return c.src
	}
	return tfwire.FromConfig
}

// inputValue returns the input name of the request source src: Wrap's stash, or the model's
// value when the request did not go through Wrap.
func inputValue(ctx context.Context, src tfwire.Source, name string, in *fabricInputsModel) tftypes.Value {
	return requestValue(ctx, src, name, in.value(name))
}

// requestValue returns the attribute name of the request source src: Wrap's stash, or av, the
// model's value, when the request did not go through Wrap.
func requestValue(ctx context.Context, src tfwire.Source, name string, av attr.Value) tftypes.Value {
	if v, ok := tfwire.Stashed(ctx, src, name); ok {
		return v
	}
	if av == nil || av.IsNull() {
		return tftypes.NewValue(tftypes.DynamicPseudoType, nil)
	}
	if av.IsUnknown() {
		return tftypes.NewValue(tftypes.DynamicPseudoType, tftypes.UnknownValue)
	}
	v, err := av.ToTerraformValue(ctx)
	if err != nil {
		return tftypes.NewValue(tftypes.DynamicPseudoType, tftypes.UnknownValue)
	}
	return v
}

// hasFabricInputs reports whether the request declares any fabric (a design or any map).
func hasFabricInputs(ctx context.Context, src tfwire.Source, in *fabricInputsModel) bool {
	for _, name := range fabricInputNames {
		if name != "absent_cables" && !inputValue(ctx, src, name, in).IsNull() {
			return true
		}
	}
	return false
}

// decodeInputs reads the inputs (the config's, or those of the request value withStashedLists
// chose) into the pipeline's Inputs: the normalized design, `absent_cables` and the items of the
// maps. Missing and malformed values are attribute errors; unknown is true when a value the
// fabric depends on is not known yet.
func decodeInputs(ctx context.Context, in *fabricInputsModel) (plan.Inputs, bool, diag.Diagnostics) {
	src := in.inputSource()
	r := specReader{}
	out := plan.Inputs{Explicit: fabric.Spec{
		Racks:      rackShape.decodeMap(&r, inputValue(ctx, src, fabric.MapRacks, in)),
		Switches:   switchShape.decodeMap(&r, inputValue(ctx, src, fabric.MapSwitches, in)),
		Nodes:      nodeShape.decodeMap(&r, inputValue(ctx, src, fabric.MapNodes, in)),
		HCAs:       hcaShape.decodeMap(&r, inputValue(ctx, src, fabric.MapHCAs, in)),
		Cables:     cableShape.decodeMap(&r, inputValue(ctx, src, fabric.MapCables, in)),
		Partitions: partitionShape.decodeMap(&r, inputValue(ctx, src, fabric.MapPartitions, in)),
	}}
	out.Absent = r.stringList(inputValue(ctx, src, "absent_cables", in))
	dv := inputValue(ctx, src, "design", in)
	if !dv.IsNull() {
		p := r.decodeDesign(dv)
		out.Design = &p
		out.AsBuilt = r.decodeDesignAsBuilt(dv, "design")
	}
	if in.takesFloor {
		r.fabricFloor(requestValue(ctx, src, plan.AttrAsBuilt, in.asBuilt), dv, &out)
	}
	return out, r.unknown, r.diags
}

// readFabric decodes the inputs and builds the fabric (plan.Build), with every problem on the
// attribute at fault; warnings of the declaration are dropped unless withWarnings (they belong
// to the plan of the fabric that declares them, not to every data source that reads it). The
// Fabric is nil while a value is unknown (unknown is then true) or when the inputs hold errors.
func readFabric(ctx context.Context, cat *catalog.Catalog, in *fabricInputsModel, withWarnings bool) (*plan.Fabric, bool, diag.Diagnostics) {
	inputs, unknown, diags := decodeInputs(ctx, in)
	diags = capDiagnostics(diags)
	if unknown || diags.HasError() {
		return nil, unknown, diags
	}
	f, ps := plan.Build(cat, inputs)
	if !withWarnings {
		ps = ps.Errors()
	}
	addPlanProblems(&diags, ps)
	return f, false, diags
}

func (r *specReader) stringList(v tftypes.Value) []string {
	if v.IsNull() {
		return nil
	}
	if !v.IsKnown() {
		r.unknown = true
		return nil
	}
	var l []tftypes.Value
	if v.As(&l) != nil {
		return nil
	}
	out := make([]string, len(l))
	for i, e := range l {
		if !e.IsKnown() {
			r.unknown = true
			continue
		}
		if !e.IsNull() {
			_ = e.As(&out[i])
		}
	}
	return out
}
