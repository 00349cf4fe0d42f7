package provider

import (
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
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

// discoveredFloorAttribute is `floor`: the floor as one checked value, the record a design
// carries as its own as_built (design_floor.go), for gpucluster_topology, gpucluster_bom and
// gpucluster_fabric to take. Terraform carries three strings instead of the floor's tens of
// thousands of values in maps (issue 28: a 16-SU design fitted to an 8-SU floor planned in 3.9x
// the CPU of the design alone, most of it Terraform carrying the maps).
func discoveredFloorAttribute() schema.SingleNestedAttribute {
	attrs := map[string]schema.Attribute{}
	for name, doc := range floorFieldDocs {
		attrs[name] = outStr(doc)
	}
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "The fabric on the floor as one checked value, for `as_built` of `gpucluster_topology`, " +
			"`gpucluster_bom` and `gpucluster_fabric`: `record` holds its switches, nodes, HCAs and cables (named, with " +
			"GUIDs, models and ports, as `as_built` would give them) as gzipped JSON in base64, `sha256` the digest of that " +
			"JSON and `summary` its counts, e.g. `96 switches, 256 nodes, 2,048 HCAs, 4,096 cables`. Hand it on unchanged " +
			"(`as_built = data.gpucluster_discovered_fabric.floor.floor`): a record that does not match its digest is " +
			"refused, and the summary is recounted from the record wherever it is read.",
		Attributes: attrs,
	}
}

// discoveredFloorValue is `floor` of a floor read.
func discoveredFloorValue(s *fabric.Spec) (types.Object, error) {
	rec, err := asbuilt.EncodeRecord(s)
	if err != nil {
		return types.ObjectNull(floorRecordType.AttrTypes), err
	}
	return types.ObjectValueMust(floorRecordType.AttrTypes, map[string]attr.Value{
		floorSummary: types.StringValue(asbuilt.Summary(s)),
		floorSHA256:  types.StringValue(rec.SHA256),
		floorRecord:  types.StringValue(rec.Data),
	}), nil
}

// asBuiltItemsAttribute is `items`: which maps of `as_built` to compute.
func asBuiltItemsAttribute() schema.ListAttribute {
	return schema.ListAttribute{
		Optional: true, ElementType: types.StringType,
		MarkdownDescription: "Which maps of `as_built` to fill: a list of `switches`, `nodes`, `hcas` and `cables` (default " +
			"`[]`: none, `as_built` holds four nulls). `floor` is what `gpucluster_topology`, `gpucluster_bom` and " +
			"`gpucluster_fabric` take; the maps are for per-item resources (`for_each = " +
			"data.gpucluster_discovered_fabric.floor.as_built.nodes`), and Terraform stores and compares every object of " +
			"a map named here.",
		Validators: []validator.List{
			listvalidator.UniqueValues(),
			listvalidator.ValueStringsAre(stringvalidator.OneOf(asBuiltMaps...)),
		},
	}
}

func asBuiltAttribute() schema.SingleNestedAttribute {
	cable := shapeOutputs(cableShape)
	for k, desc := range floorOnly[fabric.MapCables] {
		cable[k] = outStr(desc)
	}
	return schema.SingleNestedAttribute{
		Computed: true,
		MarkdownDescription: "The fabric as it is on the floor, in the shapes `gpucluster_fabric` takes: `switches`, `nodes`, " +
			"`hcas` and `cables`, maps keyed by name, each filled only when `items` names it (null otherwise) (a cable by its lower-tier end, `hgx-a001/mlx5_0:1`, `ib-leaf-07:33`), " +
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
// its maps in name order, each element by its shape (fabric_inventory_wire.go); a map that
// items does not name is null.
func appendAsBuilt(b []byte, f *asbuilt.Floor, items map[string]bool) []byte {
	s := f.Spec
	// Each map under its name (in name order), or nil where items does not name it.
	part := func(b []byte, name string, n int, each func(b []byte, i int) []byte) []byte {
		b = tfwire.AppendString(b, name)
		if !items[name] {
			return tfwire.AppendNil(b)
		}
		b = tfwire.AppendMapLen(b, n)
		for i := 0; i < n; i++ {
			b = each(b, i)
		}
		return b
	}
	b = tfwire.AppendMapLen(b, 4)
	b = part(b, fabric.MapCables, len(s.Cables), func(b []byte, i int) []byte {
		c := &s.Cables[i]
		// floorOnly's attributes of a cable, by name.
		return cableShape.appendObject(tfwire.AppendString(b, cableKey(c)), c,
			tfwire.Extra{Name: "speed", Value: f.Links[i].Speed}, tfwire.Extra{Name: "width", Value: f.Links[i].Width})
	})
	b = part(b, fabric.MapHCAs, len(s.HCAs), func(b []byte, i int) []byte {
		return hcaShape.appendObject(tfwire.AppendString(b, s.HCAs[i].Name), &s.HCAs[i])
	})
	b = part(b, fabric.MapNodes, len(s.Nodes), func(b []byte, i int) []byte {
		return nodeShape.appendObject(tfwire.AppendString(b, s.Nodes[i].Name), &s.Nodes[i])
	})
	b = part(b, fabric.MapSwitches, len(s.Switches), func(b []byte, i int) []byte {
		return switchShape.appendObject(tfwire.AppendString(b, s.Switches[i].Name), &s.Switches[i])
	})
	return b
}

// appendDiscoveredNodes writes discovered_nodes: a list of objects, attributes in name order.
func appendDiscoveredNodes(b []byte, nodes []opensm.DiscoveredNode) []byte {
	b = tfwire.AppendArrayLen(b, len(nodes))
	for i := range nodes {
		n := &nodes[i]
		b = tfwire.AppendMapLen(b, len(discoveredNodeAttrTypes))
		b = tfwire.AppendString(tfwire.AppendString(b, "description"), n.Desc)
		b = tfwire.AppendString(tfwire.AppendString(b, "guid"), n.GUID.String())
		b = tfwire.AppendString(tfwire.AppendString(b, "kind"), n.Kind)
		b = tfwire.AppendInt(tfwire.AppendString(b, "lid"), int64(n.LID))
		b = tfwire.AppendInt(tfwire.AppendString(b, "ports"), int64(n.Ports))
	}
	return b
}

func cableKey(c *fabric.Cable) string {
	if c.Key != "" {
		return c.Key
	}
	return c.A.String()
}
