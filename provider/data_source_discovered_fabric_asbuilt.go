package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// The as-built fabric of gpucluster_discovered_fabric: the floor in the fabric's own shapes
// (asbuilt.Read), as maps keyed by name whose objects are exactly those of gpucluster_fabric's
// maps (the shape tables of fabric_inventory.go). A cable carries the attributes of floorOnly
// (as_built_input.go) besides, its discovered width and speed, which Terraform drops when the
// object is converted to the fabric's cable type.

var (
	asBuiltCableAttrTypes = func() map[string]attr.Type {
		at := map[string]attr.Type{}
		for k := range floorOnly[fabric.MapCables] {
			at[k] = types.StringType
		}
		for k, v := range cableObjType.AttrTypes {
			at[k] = v
		}
		return at
	}()
	asBuiltCableType = types.ObjectType{AttrTypes: asBuiltCableAttrTypes}
	asBuiltType      = types.ObjectType{AttrTypes: map[string]attr.Type{
		"switches": types.MapType{ElemType: switchObjType},
		"nodes":    types.MapType{ElemType: nodeObjType},
		"hcas":     types.MapType{ElemType: hcaObjType},
		"cables":   types.MapType{ElemType: asBuiltCableType},
	}}
	tfAsBuilt      = tfTypeOf(asBuiltType)
	tfAsBuiltCable = asBuiltCableType.TerraformType(context.Background())
	tfNodeObj      = tfTypeOf(nodeObjType)
)

func asBuiltAttribute() schema.SingleNestedAttribute {
	cable := shapeOutputs(cableShape)
	for k, desc := range floorOnly[fabric.MapCables] {
		cable[k] = outStr(desc)
	}
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "The fabric as it is on the floor, in the shapes `gpucluster_fabric` takes: `switches`, `nodes`, " +
			"`hcas` and `cables`, maps keyed by name (a cable by its lower-tier end, `hgx-a001/mlx5_0:1`, `ib-leaf-07:33`), " +
			"so `switches = data.gpucluster_discovered_fabric.floor.as_built.switches` fits the fabric as it is. Names come " +
			"from `node_name_map` where it names a GUID, else from the node descriptions (`\"hgx-a001 mlx5_0\"` is HCA " +
			"`hgx-a001/mlx5_0` of node `hgx-a001`; a managed switch's `MF0;ib-leaf-07:MQM9700/U1` is `ib-leaf-07`); " +
			"GUIDs and ports as discovered; models from the part a switch names, the device ID and the port count. " +
			"Nothing has a rack: checks that need one are skipped (`as_built_notes` says so). A name that is not valid " +
			"here, or that two devices share, fails the read naming their GUIDs.",
		Attributes: map[string]schema.Attribute{
			"switches": outMap("Switches by name.", shapeOutputs(switchShape)),
			"nodes":    outMap("Nodes by name.", shapeOutputs(nodeShape)),
			"hcas":     outMap("HCAs by name (`<node>/<device>`).", shapeOutputs(hcaShape)),
			"cables":   outMap("Cables by their lower-tier end, with the discovered `width` and `speed`.", cable),
		},
	}
}

// asBuiltValue encodes the floor with the shape tables.
func asBuiltValue(f *asbuilt.Floor) tftypes.Value {
	s := f.Spec
	switches := make(map[string]tftypes.Value, len(s.Switches))
	for i := range s.Switches {
		switches[s.Switches[i].Name] = switchShape.encode(tfSwitchObj, &s.Switches[i])
	}
	nodes := make(map[string]tftypes.Value, len(s.Nodes))
	for i := range s.Nodes {
		nodes[s.Nodes[i].Name] = nodeShape.encode(tfNodeObj, &s.Nodes[i])
	}
	hcas := make(map[string]tftypes.Value, len(s.HCAs))
	for i := range s.HCAs {
		hcas[s.HCAs[i].Name] = hcaShape.encode(tfHCAObj, &s.HCAs[i])
	}
	cables := make(map[string]tftypes.Value, len(s.Cables))
	for i := range s.Cables {
		c := &s.Cables[i]
		var attrs map[string]tftypes.Value
		_ = cableShape.encode(tfCableObj, c).As(&attrs)
		attrs["width"], attrs["speed"] = tfStrOrNull(f.Links[i].Width), tfStrOrNull(f.Links[i].Speed)
		cables[cableKey(c)] = tftypes.NewValue(tfAsBuiltCable, attrs)
	}
	ot := tfAsBuilt
	return tftypes.NewValue(ot, map[string]tftypes.Value{
		"switches": tftypes.NewValue(ot.AttributeTypes["switches"], switches),
		"nodes":    tftypes.NewValue(ot.AttributeTypes["nodes"], nodes),
		"hcas":     tftypes.NewValue(ot.AttributeTypes["hcas"], hcas),
		"cables":   tftypes.NewValue(ot.AttributeTypes["cables"], cables),
	})
}

func cableKey(c *fabric.Cable) string {
	if c.Key != "" {
		return c.Key
	}
	return c.A.String()
}
