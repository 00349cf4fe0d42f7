package provider

import (
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The `design` object: gpucluster_topology's arguments, normalized (topogen.Design.Normalized),
// as the topology's computed `design` and as the input of gpucluster_fabric and the data sources
// that read a fabric. One table gives its type, the fabric's nested attributes, the encoder and
// the decoder, as for the inventory shapes (fabric_inventory.go). Values are checked by
// topogen.Generate, whose refusals name the argument; they are reported on design.<argument>.

// designFields are the scalar arguments of the design.
var designFields = []field[topogen.Params]{
	fStr("kind", "`fat-tree`, `rail-optimized`, `dragonfly-plus` or `torus-3d`.", true, func(p *topogen.Params) *string { return &p.Kind }),
	fInt("node_count", "GPU nodes to build now.", false, 0, func(p *topogen.Params) *int { return &p.Nodes }),
	fInt("planned_nodes", "`fat-tree`: the size the upper tiers are built for.", false, 0, func(p *topogen.Params) *int { return &p.PlannedNodes }),
	fInt("scalable_units", "`rail-optimized`: scalable units to build now.", false, 0, func(p *topogen.Params) *int { return &p.ScalableUnits }),
	fInt("planned_scalable_units", "`rail-optimized`: the SUs the upper tiers are built for.", false, 0, func(p *topogen.Params) *int { return &p.PlannedScalableUnits }),
	fStr("node_model", "Catalog node model.", false, func(p *topogen.Params) *string { return &p.NodeModel }),
	fStr("switch_model", "Catalog switch model.", false, func(p *topogen.Params) *string { return &p.SwitchModel }),
	fFloat("oversubscription", "Down:up ratio at the leaf.", func(p *topogen.Params) *float64 { return &p.Oversubscription }),
	fInt("tiers", "Switch tiers of a tree.", false, 0, func(p *topogen.Params) *int { return &p.Tiers }),
	fInt("spines", "2-tier trees: the spine count.", false, 0, func(p *topogen.Params) *int { return &p.Spines }),
	fInt("reserved_node_slots", "`rail-optimized`: node slots of SU 1 given to fabric-manager appliances.", false, 0, func(p *topogen.Params) *int { return &p.ReservedNodeSlots }),
	fInt("appliance_links_per_slot", "Links of each reserved slot to the leaves.", false, 0, func(p *topogen.Params) *int { return &p.ApplianceLinksPerSlot }),
	fInt("endpoints_per_switch", "`torus-3d`: HCA ports per switch.", false, 0, func(p *topogen.Params) *int { return &p.EndpointsPerSwitch }),
	fInt("group_count", "`dragonfly-plus`: groups to build now.", false, 0, func(p *topogen.Params) *int { return &p.Groups }),
	fInt("planned_groups", "`dragonfly-plus`: the groups the global links are spread for.", false, 0, func(p *topogen.Params) *int { return &p.PlannedGroups }),
	fInt("leaves_per_group", "`dragonfly-plus`: leaves per group.", false, 0, func(p *topogen.Params) *int { return &p.LeavesPerGroup }),
	fInt("spines_per_group", "`dragonfly-plus`: spines per group.", false, 0, func(p *topogen.Params) *int { return &p.SpinesPerGroup }),
	fFloat("rack_power_kw", "Power budget of every rack in kW.", func(p *topogen.Params) *float64 { return &p.RackPowerKW }),
	fInt("rack_units", "Usable units of every rack.", false, 0, func(p *topogen.Params) *int { return &p.RackUnits }),
	fInt("switches_per_rack", "Most switches in one network rack.", false, 0, func(p *topogen.Params) *int { return &p.SwitchesPerRack }),
	fStr("cable_kind", "Kind written on every generated cable.", false, func(p *topogen.Params) *string { return &p.CableKind }),
}

// designPrefixFields are the attributes of design.prefixes.
var designPrefixFields = []field[topogen.Params]{
	fStr("node", "Nodes.", false, func(p *topogen.Params) *string { return &p.NodePrefix }),
	fStr("leaf", "Leaf switches.", false, func(p *topogen.Params) *string { return &p.LeafPrefix }),
	fStr("spine", "Spine switches.", false, func(p *topogen.Params) *string { return &p.SpinePrefix }),
	fStr("core", "Core switches.", false, func(p *topogen.Params) *string { return &p.CorePrefix }),
	fStr("rack", "Racks.", false, func(p *topogen.Params) *string { return &p.RackPrefix }),
	fStr("appliance", "Fabric-manager appliances.", false, func(p *topogen.Params) *string { return &p.AppliancePrefix }),
	fStr("group", "Dragonfly+ groups.", false, func(p *topogen.Params) *string { return &p.GroupPrefix }),
	fStr("torus", "Torus switches.", false, func(p *topogen.Params) *string { return &p.TorusPrefix }),
}

var (
	designPrefixesType = func() types.ObjectType {
		at := map[string]attr.Type{}
		for i := range designPrefixFields {
			at[designPrefixFields[i].name] = types.StringType
		}
		return types.ObjectType{AttrTypes: at}
	}()
	// designAttrTypes is the type of `design`, the same in gpucluster_topology and the fabric.
	designAttrTypes = func() map[string]attr.Type {
		at := map[string]attr.Type{
			"prefixes":         designPrefixesType,
			"torus_dims":       types.ListType{ElemType: types.Int64Type},
			"switch_guid_base": types.StringType,
			"hca_guid_base":    types.StringType,
			"hca_guids":        types.MapType{ElemType: types.StringType},
		}
		for i := range designFields {
			at[designFields[i].name] = designFields[i].attrType()
		}
		return at
	}()
	designType   = types.ObjectType{AttrTypes: designAttrTypes}
	tfDesign     = tfTypeOf(designType)
	tfPrefixes   = tfTypeOf(designPrefixesType)
	tfNumberList = tftypes.List{ElementType: tftypes.Number}
	tfStringMap  = tftypes.Map{ElementType: tftypes.String}
)

// designSchema is the fabric's `design` input: Optional nested attributes without validators,
// defaults or plan modifiers (bypass.go keeps it away from the framework, as the maps).
func designSchema() schema.SingleNestedAttribute {
	attrs := map[string]schema.Attribute{
		"prefixes": schema.SingleNestedAttribute{Optional: true, MarkdownDescription: "Name prefixes.", Attributes: func() map[string]schema.Attribute {
			m := map[string]schema.Attribute{}
			for i := range designPrefixFields {
				m[designPrefixFields[i].name] = designPrefixFields[i].schemaAttr()
			}
			return m
		}()},
		"torus_dims":       schema.ListAttribute{Optional: true, ElementType: types.Int64Type, MarkdownDescription: "`torus-3d`: switches along x, y and z."},
		"switch_guid_base": schema.StringAttribute{Optional: true, MarkdownDescription: "Base of the derived switch GUIDs."},
		"hca_guid_base":    schema.StringAttribute{Optional: true, MarkdownDescription: "Base of the derived HCA port GUIDs."},
		"hca_guids":        schema.MapAttribute{Optional: true, ElementType: types.StringType, MarkdownDescription: "Burned-in port GUIDs by HCA name."},
	}
	for i := range designFields {
		attrs[designFields[i].name] = designFields[i].schemaAttr()
	}
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "A generated design: `design = data.gpucluster_topology.pod.design`, the generator's arguments " +
			"normalized (defaults filled in, planned sizes resolved; see `gpucluster_topology` for each argument). The fabric " +
			"builds the same graph the data source describes, so the plan shows these few lines rather than thousands of " +
			"items; growing `scalable_units` or `node_count` within the planned size shows as that one argument. Items of the " +
			"maps merge with it by name: an item of a generated name replaces the generated one, a new name adds to it.",
		Attributes: attrs,
	}
}

// designValue encodes normalized parameters as the `design` object.
func designValue(p topogen.Params) tftypes.Value {
	vals := make(map[string]tftypes.Value, len(designAttrTypes))
	for i := range designFields {
		f := &designFields[i]
		switch f.kind {
		case kString:
			vals[f.name] = tfStrOrNull(*f.str(&p))
		case kInt:
			vals[f.name] = tfIntOrNull(*f.num(&p), f.unset)
		case kFloat:
			vals[f.name] = tfFloatOrNull(*f.flt(&p))
		}
	}
	pre := make(map[string]tftypes.Value, len(designPrefixFields))
	for i := range designPrefixFields {
		pre[designPrefixFields[i].name] = tfStrOrNull(*designPrefixFields[i].str(&p))
	}
	vals["prefixes"] = tftypes.NewValue(tfPrefixes, pre)
	if p.TorusDims == [3]int{} {
		vals["torus_dims"] = tftypes.NewValue(tfNumberList, nil)
	} else {
		vals["torus_dims"] = tftypes.NewValue(tfNumberList, []tftypes.Value{tfInt(p.TorusDims[0]), tfInt(p.TorusDims[1]), tfInt(p.TorusDims[2])})
	}
	guid := func(g uint64) tftypes.Value {
		if g == 0 {
			return tfNullString
		}
		return tfStr(topogen.FormatGUID(g))
	}
	vals["switch_guid_base"], vals["hca_guid_base"] = guid(p.SwitchGUIDBase), guid(p.HCAGUIDBase)
	if len(p.HCAGUIDs) == 0 {
		vals["hca_guids"] = tftypes.NewValue(tfStringMap, nil)
	} else {
		m := make(map[string]tftypes.Value, len(p.HCAGUIDs))
		for k, v := range p.HCAGUIDs {
			m[k] = tfStr(v)
		}
		vals["hca_guids"] = tftypes.NewValue(tfStringMap, m)
	}
	return tftypes.NewValue(tfDesign, vals)
}

// decodeDesign reads the `design` object (non-null) into generator parameters; problems are
// attribute errors under design, unknown values set r.unknown.
func (r *specReader) decodeDesign(v tftypes.Value) topogen.Params {
	return r.decodeDesignAt(v, "design")
}

// decodeDesignAt is decodeDesign for a design held by another attribute (gpucluster_bom's
// prior_design): problems are reported under that attribute.
func (r *specReader) decodeDesignAt(v tftypes.Value, attribute string) topogen.Params {
	var p topogen.Params
	if !v.IsKnown() {
		r.unknown = true
		return p
	}
	root := path.Root(attribute)
	var attrs map[string]tftypes.Value
	if err := v.As(&attrs); err != nil {
		r.diags.AddAttributeError(root, "Cannot read "+attribute, err.Error())
		return p
	}
	scalars := func(fields []field[topogen.Params], attrs map[string]tftypes.Value, base path.Path) {
		for i := range fields {
			f := &fields[i]
			av, ok := attrs[f.name]
			switch {
			case !ok || av.IsNull():
				if f.required {
					r.diags.AddAttributeError(base.AtName(f.name), "Missing required attribute", f.name+" is required in a design.")
				}
				continue
			case !av.IsKnown():
				r.unknown = true
				continue
			}
			switch f.kind {
			case kString:
				_ = av.As(f.str(&p))
			case kInt:
				*f.num(&p) = tfNumberInt(av)
			case kFloat:
				*f.flt(&p) = tfNumberFloat(av)
			}
		}
	}
	scalars(designFields, attrs, root)
	if pv := attrs["prefixes"]; !pv.IsKnown() {
		r.unknown = true
	} else if !pv.IsNull() {
		var pre map[string]tftypes.Value
		if pv.As(&pre) == nil {
			scalars(designPrefixFields, pre, root.AtName("prefixes"))
		}
	}
	if dv := attrs["torus_dims"]; !dv.IsKnown() {
		r.unknown = true
	} else if !dv.IsNull() {
		var l []tftypes.Value
		_ = dv.As(&l)
		if len(l) != 3 {
			r.diags.AddAttributeError(root.AtName("torus_dims"), "Invalid torus_dims", fmt.Sprintf("torus_dims takes 3 sides, e.g. [4, 4, 4]; got %d", len(l)))
		}
		for i := 0; i < len(l) && i < 3; i++ {
			if !l[i].IsKnown() {
				r.unknown = true
				continue
			}
			p.TorusDims[i] = tfNumberInt(l[i])
		}
	}
	for name, dst := range map[string]*uint64{"switch_guid_base": &p.SwitchGUIDBase, "hca_guid_base": &p.HCAGUIDBase} {
		gv := attrs[name]
		if !gv.IsKnown() {
			r.unknown = true
			continue
		}
		if gv.IsNull() {
			continue
		}
		var s string
		_ = gv.As(&s)
		g, err := topogen.ParseGUID(s)
		if err != nil {
			r.diags.AddAttributeError(root.AtName(name), "Invalid GUID", err.Error())
		}
		*dst = g
	}
	if mv := attrs["hca_guids"]; !mv.IsKnown() {
		r.unknown = true
	} else if !mv.IsNull() {
		var m map[string]tftypes.Value
		_ = mv.As(&m)
		p.HCAGUIDs = make(map[string]string, len(m))
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !m[k].IsKnown() {
				r.unknown = true
				continue
			}
			var s string
			_ = m[k].As(&s)
			p.HCAGUIDs[k] = s
		}
	}
	return p
}

// addDesignError reports a generator refusal on the design attribute it names.
func addDesignError(diags *diag.Diagnostics, err error) {
	addDesignErrorAt(diags, err, "design")
}

// addDesignErrorAt is addDesignError for a design held by another attribute.
func addDesignErrorAt(diags *diag.Diagnostics, err error, attribute string) {
	te, ok := err.(*topogen.Error)
	if !ok {
		diags.AddAttributeError(path.Root(attribute), "Cannot build the "+attribute, err.Error())
		return
	}
	detail := fmt.Sprintf("%s.%s: %s.", attribute, te.Attribute, te.Reason)
	if te.Nearest != "" {
		detail += fmt.Sprintf("\n\nNearest buildable: %s.", te.Nearest)
	}
	diags.AddAttributeError(path.Root(attribute).AtName(te.Attribute), "Cannot build the "+attribute, detail)
}
