package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// gpucluster_fabric's as_built: alone, the floor's items are the fabric's, with the maps merged
// over them by name and the shared floor left as it was; beside a design, it must be the record
// the design carries, each mismatch one error on the attribute that differs.
func TestFabricFloor(t *testing.T) {
	leaf := fabric.Switch{Ref: fabric.Ref{Key: "ib-leaf-07"}, Name: "ib-leaf-07", Model: "QM9700", GUID: "0xb83fd203004a0700"}
	floor := &fabric.Spec{
		Switches: []fabric.Switch{leaf},
		Nodes:    []fabric.Node{{Ref: fabric.Ref{Key: "hgx-a001"}, Name: "hgx-a001", Model: "DGX-H100"}},
	}
	rec, err := asbuilt.EncodeRecord(floor)
	if err != nil {
		t.Fatal(err)
	}
	arg := func(r asbuilt.Record) tftypes.Value {
		return obj(map[string]any{"summary": "", "sha256": r.SHA256, "record": r.Data})
	}
	null := tftypes.NewValue(tftypes.DynamicPseudoType, nil)

	// Alone: the floor, and an explicit switch of the floor's name replacing the floor's.
	in := plan.Inputs{Explicit: fabric.Spec{Switches: []fabric.Switch{{Name: "ib-leaf-07", Model: "QM9790"}}}}
	r := specReader{}
	r.fabricFloor(arg(rec), null, &in)
	if r.diags.HasError() {
		t.Fatalf("the floor alone: %v", errorsAt(&r))
	}
	if len(in.Explicit.Switches) != 1 || in.Explicit.Switches[0].Model != "QM9790" || len(in.Explicit.Nodes) != 1 || in.Explicit.Nodes[0].Name != "hgx-a001" {
		t.Errorf("the fabric of the floor and the maps: %+v", in.Explicit)
	}
	if again, _ := asbuilt.DecodeRecord(rec); again.Switches[0] != leaf {
		t.Errorf("merging into the fabric changed the shared floor: %+v", again.Switches[0])
	}

	// Beside a design.
	p := topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 1}
	other, err := asbuilt.EncodeRecord(&fabric.Spec{Switches: floor.Switches})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		design tftypes.Value
		arg    tftypes.Value
		want   string // "path: a line of the detail", "" for none
	}{
		{"the design's own floor", designValue(p, recordValue(floor, rec)), arg(rec), ""},
		{"a design without a floor", designValue(p, noFloor), arg(rec), "as_built: The design was not fitted to a floor"},
		{"another floor", designValue(p, recordValue(floor, rec)), arg(other), "as_built: The design is fitted to the floor of sha256 " + rec.SHA256},
		{"the design's digest over an edited record", designValue(p, recordValue(floor, rec)), arg(asbuilt.Record{SHA256: rec.SHA256, Data: other.Data}),
			"as_built.record: as_built has the sha256 of the design's floor but not its record"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := specReader{}
			var in plan.Inputs
			r.fabricFloor(c.arg, c.design, &in)
			got := errorsAt(&r)
			if c.want == "" {
				if len(got) > 0 {
					t.Fatalf("errors %v", got)
				}
				return
			}
			at, line, _ := strings.Cut(c.want, ": ")
			if len(got) != 1 || !strings.HasPrefix(got[0], at+": ") || !strings.Contains(got[0], line) {
				t.Fatalf("got %v, want one error at %s with %q", got, at, line)
			}
		})
	}
}
