package provider

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// obj is an HCL object literal as Terraform hands a dynamic argument over: an object type made
// of its values' own types, with no conversion to a schema's type.
func obj(attrs map[string]any) tftypes.Value {
	types := map[string]tftypes.Type{}
	vals := map[string]tftypes.Value{}
	for k, a := range attrs {
		var v tftypes.Value
		switch a := a.(type) {
		case tftypes.Value:
			v = a
		case string:
			v = tftypes.NewValue(tftypes.String, a)
		case int:
			v = tftypes.NewValue(tftypes.Number, a)
		case float64:
			v = tftypes.NewValue(tftypes.Number, a)
		case bool:
			v = tftypes.NewValue(tftypes.Bool, a)
		default:
			panic(fmt.Sprintf("obj: %T", a))
		}
		types[k], vals[k] = v.Type(), v
	}
	return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, vals)
}

// errorsAt lists the reader's diagnostics as "path: detail", sorted.
func errorsAt(r *specReader) []string {
	var out []string
	for _, d := range r.diags {
		p := ""
		if wp, ok := d.(interface{ Path() path.Path }); ok {
			p = wp.Path().String()
		}
		out = append(out, p+": "+d.Detail())
	}
	sort.Strings(out)
	return out
}

// An `as_built` argument is the floor as one value, gpucluster_discovered_fabric's `floor`
// (as_built_input.go): a record decodes to the floor it recorded; each malformed or edited value
// is one error on its own path saying what to write, and the old maps get the migration line.
func TestAsBuiltArgumentTakesTheFloor(t *testing.T) {
	at := path.Root("as_built")
	floor := &fabric.Spec{
		Switches: []fabric.Switch{{Ref: fabric.Ref{Key: "ib-leaf-07"}, Name: "ib-leaf-07", Model: "QM9700", GUID: "0xb83fd203004a0700"}},
		Nodes:    []fabric.Node{{Ref: fabric.Ref{Key: "hgx-a001"}, Name: "hgx-a001", Model: "DGX-H100"}},
		HCAs:     []fabric.HCA{{Ref: fabric.Ref{Key: "hgx-a001/mlx5_0"}, Name: "hgx-a001/mlx5_0", Node: "hgx-a001", Device: "mlx5_0", PortGUID: "0x42"}},
		Cables: []fabric.Cable{{Ref: fabric.Ref{Key: "hgx-a001/mlx5_0:1"},
			A: fabric.End{Device: "hgx-a001/mlx5_0", Port: 1}, B: fabric.End{Device: "ib-leaf-07", Port: 33}}},
	}
	rec, err := asbuilt.EncodeRecord(floor)
	if err != nil {
		t.Fatal(err)
	}
	value := func(summary, sha, data string) tftypes.Value {
		return obj(map[string]any{"summary": summary, "sha256": sha, "record": data})
	}
	r := specReader{}
	got := r.decodeAsBuilt(value("a summary is never trusted", rec.SHA256, rec.Data), at)
	if r.diags.HasError() || got == nil {
		t.Fatalf("the floor's own record: %v", errorsAt(&r))
	}
	if !reflect.DeepEqual(got, floor) {
		t.Fatalf("read\n  %+v\nwant\n  %+v", got, floor)
	}

	// An edited record: another floor's data under this floor's digest.
	other := *floor
	other.Cables = []fabric.Cable{{Ref: fabric.Ref{Key: "hgx-a001/mlx5_0:1"},
		A: fabric.End{Device: "hgx-a001/mlx5_0", Port: 1}, B: fabric.End{Device: "ib-leaf-07", Port: 34}}}
	edited, err := asbuilt.EncodeRecord(&other)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		v    tftypes.Value
		want []string // "path: a line the detail has"
	}{
		{"not an object", tftypes.NewValue(tftypes.String, "floor.out"),
			[]string{"as_built: as_built must be the floor { summary, sha256, record } that gpucluster_discovered_fabric gives as `floor`, not a string"}},
		{"the old maps", obj(map[string]any{"switches": obj(nil), "nodes": obj(nil), "hcas": obj(nil), "cables": obj(nil)}),
			[]string{"as_built: write as_built = data.gpucluster_discovered_fabric.x.floor"}},
		{"a foreign attribute", obj(map[string]any{"sha256": rec.SHA256, "record": rec.Data, "switches_count": 1}),
			[]string{`as_built.switches_count: as_built has no "switches_count"`}},
		{"no digest", obj(map[string]any{"record": rec.Data}),
			[]string{"as_built.sha256: as_built has no sha256"}},
		{"a digest that is not a string", obj(map[string]any{"record": rec.Data, "sha256": obj(nil)}),
			[]string{"as_built.sha256: as_built's sha256 must be a string, not an object"}},
		{"an edited record", value("", rec.SHA256, edited.Data),
			[]string{"as_built.record: the floor record does not match its sha256: the record was edited"}},
		{"a truncated record", value("", rec.SHA256, rec.Data[:len(rec.Data)/2]),
			[]string{"as_built.record: the floor record does not match its sha256"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := specReader{}
			if f := r.decodeAsBuilt(c.v, at); f != nil {
				t.Errorf("a floor was read: %+v", f)
			}
			got := errorsAt(&r)
			if len(got) != len(c.want) {
				t.Fatalf("got %d errors, want %d:\n  %s", len(got), len(c.want), strings.Join(got, "\n  "))
			}
			for i, w := range c.want {
				p, line, _ := strings.Cut(w, ": ")
				if !strings.HasPrefix(got[i], p+": ") || !strings.Contains(got[i], line) {
					t.Errorf("got\n  %s\nwant at %s a detail with\n  %s", got[i], p, line)
				}
			}
		})
	}
}
