package provider

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// BenchmarkDiscoveredFabricAsBuilt reads gpucluster_discovered_fabric on the brownfield floor
// (512 HCAs, 1,023 cables) through the whole protocol server, as Terraform does: what adopting
// a floor costs the provider in a plan: with the floor alone (`items` unset), and with every
// map of as_built as well.
func BenchmarkDiscoveredFabricAsBuilt(b *testing.B) {
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
	typ := as[tftypes.Object](b, sch.DataSourceSchemas["gpucluster_discovered_fabric"].ValueType())
	attrs := map[string]tftypes.Value{}
	for n, at := range typ.AttributeTypes {
		attrs[n] = tftypes.NewValue(at, nil)
	}
	dir, _ := filepath.Abs("../examples/clusters/brownfield/floor")
	attrs["topology_file"] = tftypes.NewValue(tftypes.String, filepath.Join(dir, "ibnetdiscover.out"))
	attrs["node_name_map"] = tftypes.NewValue(tftypes.String, filepath.Join(dir, "node-name-map"))
	attrs["simulated"] = tftypes.NewValue(tftypes.Bool, true)
	for _, items := range []struct {
		name string
		maps []string
	}{{"floor", nil}, {"floor+maps", asBuiltMaps}} {
		b.Run(items.name, func(b *testing.B) {
			if items.maps != nil {
				l := make([]tftypes.Value, len(items.maps))
				for i, m := range items.maps {
					l[i] = tftypes.NewValue(tftypes.String, m)
				}
				attrs["items"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, l)
			}
			cfg, _ := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, attrs))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				resp, err := srv.ReadDataSource(ctx, &tfprotov6.ReadDataSourceRequest{TypeName: "gpucluster_discovered_fabric", Config: &cfg})
				if err != nil || hasErrors(resp.Diagnostics) {
					b.Fatal(err, diagText(resp.Diagnostics))
				}
			}
		})
	}
}
