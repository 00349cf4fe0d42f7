package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
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

// appendAsBuilt writes the floor as the as_built object, in MessagePack as Terraform reads it:
// its maps in name order, each element by its shape (fabric_inventory_msgpack.go).
func appendAsBuilt(b []byte, f *asbuilt.Floor) []byte {
	s := f.Spec
	b = appendMapLen(b, 4)
	b = appendMapLen(appendString(b, fabric.MapCables), len(s.Cables))
	for i := range s.Cables {
		c := &s.Cables[i]
		// floorOnly's attributes of a cable, by name.
		b = cableShape.appendObject(appendString(b, cableKey(c)), c,
			strAttr{"speed", f.Links[i].Speed}, strAttr{"width", f.Links[i].Width})
	}
	b = appendMapLen(appendString(b, fabric.MapHCAs), len(s.HCAs))
	for i := range s.HCAs {
		b = hcaShape.appendObject(appendString(b, s.HCAs[i].Name), &s.HCAs[i])
	}
	b = appendMapLen(appendString(b, fabric.MapNodes), len(s.Nodes))
	for i := range s.Nodes {
		b = nodeShape.appendObject(appendString(b, s.Nodes[i].Name), &s.Nodes[i])
	}
	b = appendMapLen(appendString(b, fabric.MapSwitches), len(s.Switches))
	for i := range s.Switches {
		b = switchShape.appendObject(appendString(b, s.Switches[i].Name), &s.Switches[i])
	}
	return b
}

// appendDiscoveredNodes writes discovered_nodes: a list of objects, attributes in name order.
func appendDiscoveredNodes(b []byte, nodes []opensm.DiscoveredNode) []byte {
	b = appendArrayLen(b, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		b = appendMapLen(b, len(discoveredNodeAttrTypes))
		b = appendString(appendString(b, "description"), n.Desc)
		b = appendString(appendString(b, "guid"), n.GUID.String())
		b = appendString(appendString(b, "kind"), n.Kind)
		b = appendInt(appendString(b, "lid"), int64(n.LID))
		b = appendInt(appendString(b, "ports"), int64(n.Ports))
	}
	return b
}

func cableKey(c *fabric.Cable) string {
	if c.Key != "" {
		return c.Key
	}
	return c.A.String()
}
