package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// BenchmarkSpecReader measures the provider's own share of a plan of a large fabric: turning the
// Terraform lists into a fabric.Spec (DESIGN.md "Scale": the provider must add little to
// Terraform's floor). The fabric is the cable layer of a 3-tier tree: 3 links per endpoint.
func BenchmarkSpecReader(b *testing.B) {
	for _, n := range []int{16384, 65536} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			endType := types.ObjectType{AttrTypes: map[string]attr.Type{"device": types.StringType, "port": types.Int64Type}}
			cableType := types.ObjectType{AttrTypes: map[string]attr.Type{"a": endType, "b": endType, "kind": types.StringType, "length_m": types.Float64Type}}
			hcaType := types.ObjectType{AttrTypes: map[string]attr.Type{
				"name": types.StringType, "node": types.StringType, "device": types.StringType,
				"model": types.StringType, "port_guid": types.StringType, "rail": types.Int64Type,
			}}
			end := func(dev string, port int) attr.Value {
				return types.ObjectValueMust(endType.AttrTypes, map[string]attr.Value{"device": types.StringValue(dev), "port": types.Int64Value(int64(port))})
			}
			cables := make([]attr.Value, 0, 3*n)
			hcas := make([]attr.Value, 0, n)
			for i := 0; i < n; i++ {
				node := fmt.Sprintf("gpu%05d", i/8)
				h := fmt.Sprintf("%s/mlx5_%d", node, i%8)
				hcas = append(hcas, types.ObjectValueMust(hcaType.AttrTypes, map[string]attr.Value{
					"name": types.StringValue(h), "node": types.StringValue(node), "device": types.StringValue(fmt.Sprintf("mlx5_%d", i%8)),
					"model": types.StringNull(), "port_guid": types.StringValue(fmt.Sprintf("0x%016x", i)), "rail": types.Int64Value(int64(i % 8)),
				}))
				for t := 0; t < 3; t++ {
					cables = append(cables, types.ObjectValueMust(cableType.AttrTypes, map[string]attr.Value{
						"a": end(fmt.Sprintf("sw%d-%d", t, i/32), 1+i%32), "b": end(h, 1), "kind": types.StringNull(), "length_m": types.Float64Null(),
					}))
				}
			}
			m := &fabricModel{
				Cables: types.ListValueMust(cableType, cables), HCAs: types.ListValueMust(hcaType, hcas),
				Racks: types.ListNull(types.StringType), Switches: types.ListNull(types.StringType), Nodes: types.ListNull(types.StringType), Partitions: types.ListNull(types.StringType),
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := specReader{}
				spec := r.spec(context.Background(), m)
				if len(spec.Cables) != 3*n || r.diags.HasError() {
					b.Fatalf("cables = %d, diags %v", len(spec.Cables), r.diags)
				}
			}
		})
	}
}
