package provider

import (
	"os"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// TestShapeMessagePackMatchesEncode reads the MessagePack the direct encoders write with tftypes,
// against the discovered fabric's schema type, and compares it with the same floor built as
// tftypes values by the shapes' encode: every attribute of every kind, set and unset.
func TestShapeMessagePackMatchesEncode(t *testing.T) {
	text, err := os.ReadFile("../examples/clusters/brownfield/floor/ibnetdiscover.out")
	if err != nil {
		t.Fatal(err)
	}
	d, err := opensm.ParseTopology(string(text))
	if err != nil {
		t.Fatal(err)
	}
	floor, err := asbuilt.Read(d, asbuilt.ReadOptions{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	// Values discovery leaves unset, so that every field kind is written both ways.
	s := floor.Spec
	s.Cables[0].Kind, s.Cables[0].LengthM, s.Cables[1].LengthM = "DAC", 2.5, 3
	s.HCAs[0].Rail, s.HCAs[1].Rail = 0, 7
	s.Switches[0].Rack, s.Switches[0].PositionU, s.Switches[0].Role = "r1", 42, "leaf"
	s.Nodes[0].ComputeHCAs, s.Nodes[0].Model = 8, ""
	floor.Links[2].Width, floor.Links[2].Speed = "", "HDR"

	srv := providerserver.NewProtocol6(New("test")())()
	sch, err := srv.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	typ := as[tftypes.Object](t, sch.DataSourceSchemas["gpucluster_discovered_fabric"].ValueType())

	mapOf := func(name string, n int, key func(int) string, val func(tftypes.Type, int) tftypes.Value) tftypes.Value {
		mt := as[tftypes.Map](t, as[tftypes.Object](t, typ.AttributeTypes["as_built"]).AttributeTypes[name])
		m := map[string]tftypes.Value{}
		for i := 0; i < n; i++ {
			m[key(i)] = val(mt.ElementType, i)
		}
		return tftypes.NewValue(mt, m)
	}
	want := tftypes.NewValue(typ.AttributeTypes["as_built"], map[string]tftypes.Value{
		"switches": mapOf("switches", len(s.Switches), func(i int) string { return s.Switches[i].Name },
			func(et tftypes.Type, i int) tftypes.Value { return switchShape.encode(et, &s.Switches[i]) }),
		"nodes": mapOf("nodes", len(s.Nodes), func(i int) string { return s.Nodes[i].Name },
			func(et tftypes.Type, i int) tftypes.Value { return nodeShape.encode(et, &s.Nodes[i]) }),
		"hcas": mapOf("hcas", len(s.HCAs), func(i int) string { return s.HCAs[i].Name },
			func(et tftypes.Type, i int) tftypes.Value { return hcaShape.encode(et, &s.HCAs[i]) }),
		"cables": mapOf("cables", len(s.Cables), func(i int) string { return s.Cables[i].A.String() },
			func(et tftypes.Type, i int) tftypes.Value {
				var attrs map[string]tftypes.Value
				if err := cableShape.encode(tfCableObj, &s.Cables[i]).As(&attrs); err != nil {
					t.Fatal(err)
				}
				attrs["width"], attrs["speed"] = tfStrOrNull(floor.Links[i].Width), tfStrOrNull(floor.Links[i].Speed)
				return tftypes.NewValue(et, attrs)
			}),
	})
	got, err := readMsgPack(appendAsBuilt(nil, floor, allAsBuiltItems), typ.AttributeTypes["as_built"])
	if err != nil {
		t.Fatalf("as_built does not read as the schema's type: %v", err)
	}
	if !got.Equal(want) {
		diffs, _ := got.Diff(want)
		t.Fatalf("as_built differs from the shapes' encode in %d values, first %v", len(diffs), diffs[0])
	}

	nt := as[tftypes.List](t, typ.AttributeTypes["discovered_nodes"])
	var nodes []tftypes.Value
	for _, n := range d.Nodes {
		nodes = append(nodes, tftypes.NewValue(nt.ElementType, map[string]tftypes.Value{
			"kind": tfStr(n.Kind), "guid": tfStr(n.GUID.String()), "description": tfStr(n.Desc),
			"ports": tfInt(n.Ports), "lid": tfInt(n.LID),
		}))
	}
	gotNodes, err := readMsgPack(appendDiscoveredNodes(nil, d.Nodes), nt)
	if err != nil {
		t.Fatalf("discovered_nodes does not read as the schema's type: %v", err)
	}
	if want := tftypes.NewValue(nt, nodes); !gotNodes.Equal(want) {
		t.Fatal("discovered_nodes differs from the nodes as parsed")
	}

	// A partition: a list of members, a bool and ints set and unset, none of which a floor has.
	p := fabric.Partition{Name: "p", PKey: "0x8001", IPoIB: true, MTU: 4096, Members: []fabric.Member{
		{HCA: "gpu001/mlx5_0"}, {GUID: "ALL_CAS", Membership: "limited"},
	}}
	pt := tfTypeOf(partitionShape.objectType())
	gotP, err := readMsgPack(partitionShape.appendObject(nil, &p), pt)
	if err != nil {
		t.Fatal(err)
	}
	if want := partitionShape.encode(pt, &p); !gotP.Equal(want) {
		t.Fatalf("partition: got %v, want %v", gotP, want)
	}
}

// readMsgPack reads b as tftypes reads what a provider sends Terraform.
func readMsgPack(b []byte, typ tftypes.Type) (tftypes.Value, error) {
	return (&tfprotov6.DynamicValue{MsgPack: b}).Unmarshal(typ)
}

// allAsBuiltItems names every map of as_built, as `items` can.
var allAsBuiltItems = map[string]bool{"switches": true, "nodes": true, "hcas": true, "cables": true}
