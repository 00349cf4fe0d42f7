package provider

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

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

func end(device string, port any) tftypes.Value {
	return obj(map[string]any{"device": device, "port": port})
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

// An `as_built` argument is dynamic (as_built_input.go), so what Terraform checks of a typed
// attribute the decoder checks: the maps, each element's attributes and their types, each
// error on its own path. What Terraform's conversion accepts it accepts too (a number where a
// string is wanted, a numeric string for a number), and discovery's own width and speed.
func TestAsBuiltArgumentChecksWhatTerraformWould(t *testing.T) {
	at := path.Root("as_built")
	good := obj(map[string]any{
		"switches": obj(map[string]any{"ib-leaf-07": obj(map[string]any{"guid": "0xb83fd203004a0700", "position_u": "12"})}),
		"nodes":    obj(map[string]any{"hgx-a001": obj(map[string]any{"model": "DGX-H100"})}),
		"hcas":     obj(map[string]any{"hgx-a001/mlx5_0": obj(map[string]any{"node": "hgx-a001", "device": "mlx5_0", "port_guid": 42})}),
		"cables": obj(map[string]any{"hgx-a001/mlx5_0:1": obj(map[string]any{
			"a": end("hgx-a001/mlx5_0", 1), "b": end("ib-leaf-07", "33"), "width": "4x", "speed": "NDR",
		})}),
	})
	r := specReader{}
	f := r.decodeAsBuilt(good, at)
	if r.diags.HasError() || f == nil {
		t.Fatalf("a well-formed floor: %v", errorsAt(&r))
	}
	if f.Switches[0].PositionU != 12 || f.Switches[0].Name != "ib-leaf-07" || f.HCAs[0].PortGUID != "42" ||
		f.Cables[0].B != (fabric.End{Device: "ib-leaf-07", Port: 33}) || f.Nodes[0].Model != "DGX-H100" {
		t.Fatalf("read %+v", f)
	}

	for _, c := range []struct {
		name string
		v    tftypes.Value
		want []string
	}{
		{"not an object", tftypes.NewValue(tftypes.String, "floor.out"),
			[]string{`as_built: as_built must be an object { switches, nodes, hcas, cables } such as gpucluster_discovered_fabric's as_built, not a string.`}},
		{"a map that is not a floor's", obj(map[string]any{"racks": obj(nil), "partitions": obj(nil)}),
			[]string{
				`as_built.partitions: as_built has no "partitions": a floor is switches, nodes, hcas, cables (discovery sees no racks, and partitions are configuration, not floor).`,
				`as_built.racks: as_built has no "racks": a floor is switches, nodes, hcas, cables (discovery sees no racks, and partitions are configuration, not floor).`,
			}},
		{"a map that is a list", obj(map[string]any{"switches": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{})}),
			[]string{`as_built.switches: switches must be a map of objects keyed by name, not a list.`}},
		{"an element that is a string", obj(map[string]any{"nodes": obj(map[string]any{"n1": "DGX-H100"})}),
			[]string{`as_built.nodes["n1"]: every element of nodes must be an object, and n1 is a string`}},
		{"wrong types and a foreign attribute", obj(map[string]any{
			"switches": obj(map[string]any{"s1": obj(map[string]any{"position_u": 1.5, "colour": "blue", "guid": obj(nil)})}),
			"cables": obj(map[string]any{"c1": obj(map[string]any{
				"a": end("n1/mlx5_0", "one"), "b": obj(map[string]any{"device": "s1", "port": 1, "cage": 3}), "length_m": true,
			})}),
		}), []string{
			`as_built.cables["c1"].a.port: port must be a whole number (1-based), not a string.`,
			`as_built.cables["c1"].b.cage: a cable end has no attribute "cage"; it takes device and port.`,
			`as_built.cables["c1"].length_m: length_m must be a number, and as_built.cables["c1"] has a bool.`,
			`as_built.switches["s1"].colour: an element of switches has no attribute "colour"; it takes name, model, rack, position_u, role, guid, group.`,
			`as_built.switches["s1"].guid: guid must be a string, and as_built.switches["s1"] has an object.`,
			`as_built.switches["s1"].position_u: position_u must be a whole number, and as_built.switches["s1"] has a number.`,
		}},
		{"a required attribute missing", obj(map[string]any{"hcas": obj(map[string]any{"h1": obj(map[string]any{"device": "mlx5_0"})})}),
			[]string{`as_built.hcas["h1"].node: node is required for every element of hcas, and as_built.hcas["h1"] has none.`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := specReader{}
			r.decodeAsBuilt(c.v, at)
			if got := errorsAt(&r); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}
