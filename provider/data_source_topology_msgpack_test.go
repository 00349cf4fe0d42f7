package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// The topology's whole state, every map filled, round-trips for every kind.
func TestFastMsgPackTopologyState(t *testing.T) {
	typ := topologySchemaType(t)
	for _, p := range []topogen.Params{
		{Kind: topogen.KindRailOptimized, ScalableUnits: 2, ReservedNodeSlots: 1, CableKind: "fiber-mm"},
		{Kind: topogen.KindDragonflyPlus, Groups: 2, Nodes: 64, GroupOversubscription: 2},
		{Kind: topogen.KindTorus3D, TorusDims: [3]int{2, 2, 3}},
	} {
		cfg := map[string]tftypes.Value{}
		for k, at := range typ.AttributeTypes {
			cfg[k] = tftypes.NewValue(at, nil)
		}
		state, err := tfwire.WithOutputs(tftypes.NewValue(typ, cfg), topologyOutputs(generate(t, p), nil, noFloor, itemSelection{maps: allItems().maps, byGroup: p.Kind == topogen.KindTorus3D}))
		if err != nil {
			t.Fatal(err)
		}
		topologyRoundTrip(t, typ, state)
	}
}

// topologyRoundTrip encodes v with tfwire.AppendValue, as Wrap writes the topology's outputs,
// and decodes it with tftypes: the value must be what tftypes' own encoding gives Terraform.
func topologyRoundTrip(t *testing.T, typ tftypes.Type, v tftypes.Value) {
	t.Helper()
	b, err := tfwire.AppendValue(nil, v, typ)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readMsgPack(b, typ)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Errorf("not what tftypes' encoding gives\n got %s\nwant %s", got, want)
	}
}
