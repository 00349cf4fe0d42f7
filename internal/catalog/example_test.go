package catalog_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// A site file (the one the provider docs show) layered over the built-in catalog: its QM9700
// entry replaces the built-in one whole, with the site's price and its source, and its HGX build
// adds a model. CableFor then picks the part and standard length for a run.
func ExampleLoad() {
	builtin := catalog.Default()
	site, err := catalog.Load("../../examples/provider/catalog/site.hcl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range []*catalog.Catalog{builtin, site} {
		sw := c.Switches["QM9700"]
		fmt.Printf("%s: %d ports at %g Gb/s, USD %g (%s)\n", sw.Name, sw.Ports, sw.PortRateGbps, sw.Price.USD, sw.Price.Source)
	}
	fmt.Println(site.NodeNames())
	cable, length, ok := site.CableFor(catalog.KindFiberMM, "switch-hca", 12.3)
	fmt.Println(cable.Name, length, ok)
	// Output:
	// QM9700: 64 ports at 400 Gb/s, USD 85000 (industry write-up list price for a QM97x0 switch (not an NVIDIA list price))
	// QM9700: 64 ports at 400 Gb/s, USD 61000 (PO 2026-114)
	// [DGX-H100 HGX-H100 HGX-H100-4HCA]
	// MFP7E10-N 15 true
}
