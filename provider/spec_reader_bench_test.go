package provider

import (
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// BenchmarkSpecReader measures the provider's own share of a plan of a large fabric given item by
// item: turning the Terraform maps into a fabric.Spec (the design guide (docs/guides/design.md), "Scale": the provider must add
// little to Terraform's floor). The fabric is the cable layer of a 3-tier tree: 3 links per
// endpoint.
func BenchmarkSpecReader(b *testing.B) {
	for _, n := range []int{16384, 65536} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cables := make(map[string]tftypes.Value, 3*n)
			hcas := make(map[string]tftypes.Value, n)
			for i := 0; i < n; i++ {
				node := fmt.Sprintf("gpu%05d", i/8)
				h := fabric.HCA{Node: node, Device: fmt.Sprintf("mlx5_%d", i%8), PortGUID: fmt.Sprintf("0x%016x", i+1), Rail: i % 8}
				hcas[fabric.HCAName(h.Node, h.Device)] = hcaShape.encode(tfHCAObj, &h)
				for t := 0; t < 3; t++ {
					c := fabric.Cable{A: fabric.End{Device: fmt.Sprintf("sw%d-%d", t, i/32), Port: 1 + i%32}, B: fabric.End{Device: fabric.HCAName(h.Node, h.Device), Port: 1 + t}}
					cables[c.A.String()+"/"+c.B.String()] = cableShape.encode(tfCableObj, &c)
				}
			}
			ctx := stashCtx(map[string]tftypes.Value{
				"cables": tftypes.NewValue(tftypes.Map{ElementType: tfCableObj}, cables),
				"hcas":   tftypes.NewValue(tftypes.Map{ElementType: tfHCAObj}, hcas),
			})
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				in, _, diags := decodeInputs(ctx, &fabricInputsModel{})
				if len(in.Explicit.Cables) != 3*n || diags.HasError() {
					b.Fatalf("%d cables, diags %v", len(in.Explicit.Cables), diags)
				}
			}
		})
	}
}
