package bom_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The bill of materials of one DGX SuperPOD scalable unit as the generator lays it out (32 DGX
// H100, 8 leaves, 4 spines; no slot reserved for UFM): every item by SKU, priced from the catalog
// where a price is sourced, the rest left unpriced, never guessed. The counts are RA-11333-001's
// (Table 8, per SU): a twin-port transceiver per switch cage (12 x 32), one per DGX cage (32 x
// 4), one fibre per link (256 node links, 256 leaf-spine links).
func ExampleFromGraph() {
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 1}, cat)
	if err != nil {
		fmt.Println(err)
		return
	}
	g, _ := fabric.Build(d.FabricSpec(), cat)
	b := bom.FromGraph(g, cat)
	for _, it := range b.Items {
		price := "unpriced"
		if it.Cost != nil {
			price = "USD " + bom.Money(*it.Cost)
		}
		fmt.Printf("%-11s %-20s %5d  %s\n", it.Category, it.SKU, it.Quantity, price)
	}
	fmt.Println("priced total: USD", bom.Money(b.TotalCost))
	// Output:
	// switch      920-9B210-00FN-0M0      12  USD 1,020,000.00
	// node        DGXH-G640F+P2EDI36      32  unpriced
	// transceiver 980-9I510-00NS00       384  unpriced
	// transceiver 980-9I51A-00NS00       128  unpriced
	// cable       MFP7E10-N003             2  unpriced
	// cable       MFP7E10-N005           432  unpriced
	// cable       MFP7E10-N007            78  unpriced
	// priced total: USD 1,020,000.00
}
