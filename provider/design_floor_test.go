package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A design carries its floor as a record the fabric reads back whole; a record edited by hand
// is one error on the design's as_built, saying what to do instead, and never a different floor.
func TestDesignFloorRecord(t *testing.T) {
	floor := &fabric.Spec{
		Switches: []fabric.Switch{{Ref: fabric.Ref{Key: "ib-leaf-07"}, Name: "ib-leaf-07", Model: "QM9700", Role: "leaf", GUID: "0xb83fd203004a0700"}},
		Nodes:    []fabric.Node{{Ref: fabric.Ref{Key: "hgx-a001"}, Name: "hgx-a001", Model: "DGX-H100"}},
		HCAs:     []fabric.HCA{{Ref: fabric.Ref{Key: "hgx-a001/mlx5_0"}, Name: "hgx-a001/mlx5_0", Node: "hgx-a001", Device: "mlx5_0", PortGUID: "0xa088c20300100001", Rail: -1}},
		Cables:   []fabric.Cable{{Ref: fabric.Ref{Key: "hgx-a001/mlx5_0:1"}, A: fabric.End{Device: "hgx-a001/mlx5_0", Port: 1}, B: fabric.End{Device: "ib-leaf-07", Port: 33}}},
	}
	rec, err := floorValue(floor)
	if err != nil {
		t.Fatal(err)
	}
	p := topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 1}
	r := specReader{}
	got := r.decodeDesignAsBuilt(designValue(p, rec), "design")
	if r.diags.HasError() || got == nil || len(got.Cables) != 1 || got.Cables[0].B != floor.Cables[0].B || got.HCAs[0].PortGUID != floor.HCAs[0].PortGUID {
		t.Fatalf("read back %+v, %v", got, r.diags)
	}
	var fields map[string]tftypes.Value
	if err := rec.As(&fields); err != nil {
		t.Fatal(err)
	}
	var summary string
	_ = fields[floorSummary].As(&summary)
	if summary != "1 switches, 1 nodes, 1 HCAs, 1 cables" {
		t.Errorf("summary %q", summary)
	}

	// The floor of another fabric pasted over the record, under this one's digest.
	other, _ := floorValue(&fabric.Spec{Switches: floor.Switches})
	var otherFields map[string]tftypes.Value
	_ = other.As(&otherFields)
	fields[floorRecord] = otherFields[floorRecord]
	edited := tftypes.NewValue(rec.Type(), fields)
	r = specReader{}
	if got := r.decodeDesignAsBuilt(designValue(p, edited), "design"); got != nil {
		t.Fatalf("an edited record read as a floor: %+v", got)
	}
	if len(r.diags) != 1 {
		t.Fatalf("diagnostics %v, want one", r.diags)
	}
	withPath, ok := r.diags[0].(interface{ Path() path.Path })
	if !ok || !withPath.Path().Equal(path.Root("design").AtName(plan.AttrAsBuilt)) ||
		!strings.Contains(r.diags[0].Detail(), "does not match its sha256") || !strings.Contains(r.diags[0].Detail(), "hand the design on unchanged") {
		t.Fatalf("diagnostics %v", r.diags)
	}
}
