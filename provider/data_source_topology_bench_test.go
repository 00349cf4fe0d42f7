package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// BenchmarkTopologyReadServer reads gpucluster_topology through the whole protocol server (Wrap
// and the framework), as Terraform does: the 16,384-endpoint tree of the design guide's scale case
// (2,048 nodes, 3 tiers) with no item map, with the nodes and HCAs, and with every map. It finds
// where a plan of a huge design spends its time in the provider.
func BenchmarkTopologyReadServer(b *testing.B) {
	for _, c := range []struct {
		name  string
		items []string
	}{{"none", nil}, {"nodes-hcas", []string{"nodes", "hcas"}}, {"all", topologyItemMaps}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			srv := Wrap(providerserver.NewProtocol6(New("test")())())
			sch, err := srv.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
			if err != nil {
				b.Fatal(err)
			}
			pt := as[tftypes.Object](b, sch.Provider.ValueType())
			pattrs := map[string]tftypes.Value{}
			for n, at := range pt.AttributeTypes {
				pattrs[n] = tftypes.NewValue(at, nil)
			}
			pcfg, _ := tfprotov6.NewDynamicValue(pt, tftypes.NewValue(pt, pattrs))
			if _, err := srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{Config: &pcfg}); err != nil {
				b.Fatal(err)
			}
			typ := as[tftypes.Object](b, sch.DataSourceSchemas["gpucluster_topology"].ValueType())
			attrs := map[string]tftypes.Value{}
			for n, at := range typ.AttributeTypes {
				attrs[n] = tftypes.NewValue(at, nil)
			}
			attrs["kind"] = tftypes.NewValue(tftypes.String, "fat-tree")
			attrs["node_count"] = tftypes.NewValue(tftypes.Number, 2048)
			attrs["tiers"] = tftypes.NewValue(tftypes.Number, 3)
			maps := []tftypes.Value{}
			for _, m := range c.items {
				maps = append(maps, tftypes.NewValue(tftypes.String, m))
			}
			attrs["items"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, maps)
			cfg, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				resp, err := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "gpucluster_topology", Config: &cfg})
				if err != nil || hasErrors(resp.Diagnostics) {
					b.Fatal(err, diagText(resp.Diagnostics))
				}
			}
		})
	}
}
