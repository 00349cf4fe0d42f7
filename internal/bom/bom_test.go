package bom

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

var cat = catalog.Default()

// Part numbers of RA-11333-001 V11 Tables 7 and 8.
const (
	skuQM9700      = "920-9B210-00FN-0M0"
	skuSwitchOSFP  = "980-9I510-00NS00" // MMA4Z00-NS, twin-port, switch
	skuDGXOSFP     = "980-9I51A-00NS00" // twin-port flat top, DGX H100
	skuUFMOSFP     = "980-9I51S-00NS00" // MMA4Z00-NS400, single-port
	skuDGX         = "DGXH-G640F+P2EDI36"
	fiberMMProduct = "MFP7E10-N"
)

func design(t *testing.T, p topogen.Params) *topogen.Design {
	t.Helper()
	d, err := topogen.Generate(p, cat)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func forDesign(t *testing.T, p topogen.Params) BOM {
	t.Helper()
	b, err := designBOM(design(t, p), nil, cat)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// designBOM is the BOM of a generated design, appliance links included, as gpucluster_bom
// builds it. g may be nil, in which case the design's graph is built here; a design that does
// not build is an error.
func designBOM(d *topogen.Design, g *fabric.Graph, cat *catalog.Catalog) (BOM, error) {
	if g == nil {
		var probs []fabric.Problem
		g, probs = fabric.Build(d.Spec(), cat)
		for _, p := range probs {
			if p.Severity == fabric.Error {
				return BOM{}, fmt.Errorf("design does not build: %s", p)
			}
		}
	}
	return Build(g, cat, Options{External: ExternalLinks(d)}), nil
}

func qty(b BOM, category, sku string) int {
	for _, it := range b.Items {
		if it.Category == category && it.SKU == sku {
			return it.Quantity
		}
	}
	return 0
}

func qtyPrefix(b BOM, category, prefix string) int {
	n := 0
	for _, it := range b.Items {
		if it.Category == category && strings.HasPrefix(it.SKU, prefix) {
			n += it.Quantity
		}
	}
	return n
}

func superPOD(sus, planned int, kind string) topogen.Params {
	return topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: sus, PlannedScalableUnits: planned, ReservedNodeSlots: 1, CableKind: kind}
}

// RA-11333-001 Table 7/8 for 4 SU: 48 QM9700, 1,536 switch transceivers (48 x 32 cages), 508
// DGX transceivers (127 x 4 cages), 4 UFM transceivers, 2,040 node-leaf + leaf-spine cables,
// all multimode fiber. The planner reaches the same answer without being told the kind: on a
// rail-optimized fabric the two HCAs of a DGX cage go to different leaves and the two ports of a
// leaf uplink cage to different spines, so no twin-port copper cable fits.
func TestSuperPOD4SU(t *testing.T) {
	for _, kind := range []string{catalog.KindFiberMM, ""} {
		t.Run("kind="+kind, func(t *testing.T) {
			b := forDesign(t, superPOD(4, 0, kind))
			want := map[[2]string]int{
				{CategorySwitch, skuQM9700}:          48,
				{CategoryNode, skuDGX}:               127,
				{CategoryTransceiver, skuSwitchOSFP}: 1536,
				{CategoryTransceiver, skuDGXOSFP}:    508,
				{CategoryTransceiver, skuUFMOSFP}:    4,
			}
			for k, n := range want {
				if got := qty(b, k[0], k[1]); got != n {
					t.Errorf("%s %s: %d, want %d", k[0], k[1], got, n)
				}
			}
			c := b.Counts
			if c.GraphCables != 2040 || c.ExternalCables != 4 || c.Cables != 2044 || c.Links != 2044 {
				t.Errorf("cables: graph %d (want 2040 = 1016 node-leaf + 1024 leaf-spine), UFM %d (want 4), total %d", c.GraphCables, c.ExternalCables, c.Cables)
			}
			if got := qtyPrefix(b, CategoryCable, fiberMMProduct); got != 2044 {
				t.Errorf("multimode fibers %d, want 2044 (one per link)", got)
			}
			if c.SwitchTransceivers != 1536 || c.NodeTransceivers != 508 || c.HCATransceivers != 4 {
				t.Errorf("transceiver counts %+v", c)
			}
			// DGX H100 ships with its eight ConnectX-7: no HCA line.
			for _, it := range b.Items {
				if it.Category == CategoryHCA {
					t.Errorf("HCA item %+v for DGX H100 nodes", it)
				}
			}
			if b.TotalCost != 48*85000 {
				t.Errorf("total %.2f, want 48 x 85,000 (the only priced item)", b.TotalCost)
			}
			for _, sku := range []string{skuDGX, skuSwitchOSFP, skuDGXOSFP, skuUFMOSFP} {
				if !contains(b.Unpriced, sku) {
					t.Errorf("%s not listed as unpriced: %v", sku, b.Unpriced)
				}
			}
			checkPrices(t, b)
			if len(b.Warnings) != 0 {
				t.Errorf("warnings: %v", b.Warnings)
			}
		})
	}
}

// RA-11333-001 Table 4, 1 SU: 31 nodes, 8 leaves + 4 spines; every cage of the 12 switches is
// used (SU 1's last slot: port 32 carries UFM on rails 1-4 and shares cage 16 with port 31).
func TestSuperPOD1SU(t *testing.T) {
	b := forDesign(t, superPOD(1, 0, catalog.KindFiberMM))
	for k, n := range map[[2]string]int{
		{CategorySwitch, skuQM9700}:          12,
		{CategoryNode, skuDGX}:               31,
		{CategoryTransceiver, skuSwitchOSFP}: 12 * 32,
		{CategoryTransceiver, skuDGXOSFP}:    31 * 4,
		{CategoryTransceiver, skuUFMOSFP}:    4,
	} {
		if got := qty(b, k[0], k[1]); got != n {
			t.Errorf("%s %s: %d, want %d", k[0], k[1], got, n)
		}
	}
	if b.Counts.GraphCables != 248+256 || b.Counts.ExternalCables != 4 {
		t.Errorf("cables %+v, want 504 graph + 4 UFM", b.Counts)
	}
	var ufm []Row
	for _, r := range b.Plan {
		if strings.HasPrefix(r.Label, "ufm") {
			ufm = append(ufm, r)
		}
	}
	if len(ufm) != 4 || ufm[0].Label != "ufm01:1" || ufm[0].B.Device != "leaf01" || ufm[0].B.Port != 32 || ufm[0].A.Rack == "" || ufm[0].SKU == "" || ufm[0].LengthM == 0 {
		t.Errorf("UFM rows %+v", ufm)
	}
}

// Growing 2 SU -> 4 SU within a 4-SU plan is a purchase order of additions only: no SKU goes
// down and no cabling-plan row of the 2-SU fabric changes. Shrinking back frees exactly as much.
func TestOrderExpansionOnlyAdds(t *testing.T) {
	for _, kind := range []string{catalog.KindFiberMM, ""} {
		two := forDesign(t, superPOD(2, 4, kind))
		four := forDesign(t, superPOD(4, 4, kind))
		lines, total := Order(two, four)
		if len(lines) == 0 {
			t.Fatal("empty order")
		}
		delta := map[string]int{}
		for _, l := range lines {
			delta[l.SKU] = l.Delta()
			if l.Delta() <= 0 {
				t.Errorf("kind %q: %s %s %d -> %d; an expansion within the plan only adds", kind, l.Category, l.SKU, l.Before, l.After)
			}
			if l.After != qty(four, l.Category, l.SKU) || l.Before != qty(two, l.Category, l.SKU) {
				t.Errorf("kind %q: %s before/after %d/%d, BOMs say %d/%d", kind, l.SKU, l.Before, l.After, qty(two, l.Category, l.SKU), qty(four, l.Category, l.SKU))
			}
		}
		// 2 SU within the 4-SU plan already has all 16 spines; the expansion adds 16 leaves.
		if q := delta[skuQM9700]; q != 16 {
			t.Errorf("kind %q: switches +%d, want +16 leaves", kind, q)
		}
		if q := delta[skuDGX]; q != 64 {
			t.Errorf("kind %q: nodes +%d, want +64", kind, q)
		}
		if total != 16*85000 {
			t.Errorf("kind %q: order total %.0f", kind, total)
		}
		rows := map[Row]bool{}
		for _, r := range four.Plan {
			rows[r] = true
		}
		for _, r := range two.Plan {
			if !rows[r] {
				t.Errorf("kind %q: row %+v of the 2-SU plan changes at 4 SU", kind, r)
				break
			}
		}
		back, backTotal := Order(four, two)
		for _, l := range back {
			if l.Delta() != -delta[l.SKU] {
				t.Errorf("reverse order %s %d, want %d", l.SKU, l.Delta(), -delta[l.SKU])
			}
		}
		if len(back) != len(lines) || backTotal != -total {
			t.Errorf("reverse order: %d lines, total %.0f", len(back), backTotal)
		}
	}
}

func TestBySKUMergesCategories(t *testing.T) {
	p := 10.0
	c1, c2 := 20.0, 30.0
	m := BySKU([]Item{
		{SKU: "A", Category: CategoryTransceiver, Quantity: 2, UnitPrice: &p, Cost: &c1},
		{SKU: "A", Category: CategoryCable, Quantity: 3, UnitPrice: &p, Cost: &c2},
		{SKU: "B", Category: CategoryCable, Quantity: 1},
	})
	if a := m["A"]; len(m) != 2 || a.Quantity != 5 || a.Cost == nil || *a.Cost != 50 || a.Category != CategoryTransceiver {
		t.Errorf("BySKU = %+v", m)
	}
}

// A hand-built fabric with every cabling case: a DGX cage straight to a leaf cage (twin DAC), two
// PCIe HCAs on one leaf cage (splitter DAC), a leaf cage to one spine cage (twin DAC), a leaf cage
// split over two spines (transceivers and fiber), a declared single-mode link, and a link whose
// length nobody knows.
func TestCablingCases(t *testing.T) {
	spec := &fabric.Spec{
		Switches: []fabric.Switch{{Name: "leaf", Model: "QM9700"}, {Name: "spine1", Model: "QM9700"}, {Name: "spine2", Model: "QM9700"}},
		Nodes:    []fabric.Node{{Name: "dgx1", Model: "DGX-H100"}, {Name: "hgx1", Model: "HGX-H100"}, {Name: "hgx2", Model: "HGX-H100"}},
		HCAs: []fabric.HCA{
			{Name: "dgx1/mlx5_0", Node: "dgx1", Device: "mlx5_0", Rail: -1},
			{Name: "dgx1/mlx5_1", Node: "dgx1", Device: "mlx5_1", Rail: -1},
			{Name: "hgx1/mlx5_0", Node: "hgx1", Device: "mlx5_0", Rail: -1},
			{Name: "hgx2/mlx5_0", Node: "hgx2", Device: "mlx5_0", Rail: -1},
		},
		Cables: []fabric.Cable{
			cable("dgx1/mlx5_0", 1, "leaf", 1, "", 1),
			cable("dgx1/mlx5_1", 1, "leaf", 2, "", 1),
			cable("hgx1/mlx5_0", 1, "leaf", 3, "", 2),
			cable("hgx2/mlx5_0", 1, "leaf", 4, "", 2.5),
			cable("leaf", 33, "spine1", 1, "", 1.5),
			cable("leaf", 34, "spine1", 2, "", 1.5),
			cable("leaf", 35, "spine1", 3, "", 10),
			cable("leaf", 36, "spine2", 1, "", 10),
			cable("leaf", 37, "spine2", 3, catalog.KindFiberSM, 3),
			cable("leaf", 39, "spine2", 7, "", 0),
		},
	}
	g, probs := fabric.Build(spec, cat)
	if fabric.HasErrors(probs) {
		t.Fatal(probs)
	}
	b := FromGraph(g, cat)
	want := map[[2]string]int{
		{CategorySwitch, skuQM9700}:               3,
		{CategoryNode, skuDGX}:                    1,
		{CategoryNode, "HGX-H100"}:                2,
		{CategoryHCA, "MCX75310AAS-NEAT"}:         2, // the HGX's PCIe cards; the DGX's are built in
		{CategoryTransceiver, skuSwitchOSFP}:      5, // leaf cages 18 and 20, spine1 cage 2, spine2 cages 1 and 4
		{CategoryTransceiver, "980-9I30G-00NM00"}: 2, // MMS4X00-NM: leaf cage 19, spine2 cage 2
		{CategoryCable, "MCP4Y10-N001"}:           1, // DGX cage -> leaf cage 1
		{CategoryCable, "MCP4Y10-N01A"}:           1, // leaf cage 17 -> spine1 cage 1
		{CategoryCable, "MCP7Y00-N02A"}:           1, // leaf cage 2 -> hgx1, hgx2 (the longer run, 2.5 m)
		{CategoryCable, "MFP7E10-N010"}:           2,
		{CategoryCable, "MFP7E30-N003"}:           1,
		{CategoryCable, "MFP7E10-N"}:              1, // length unknown: the product line, flagged
	}
	for k, n := range want {
		if got := qty(b, k[0], k[1]); got != n {
			t.Errorf("%s %s: %d, want %d", k[0], k[1], got, n)
		}
	}
	if len(b.Items) != len(want) {
		for _, it := range b.Items {
			t.Logf("%s %s %d", it.Category, it.SKU, it.Quantity)
		}
		t.Errorf("%d items, want %d", len(b.Items), len(want))
	}
	if b.Counts.Links != 10 || b.Counts.Cables != 7 {
		t.Errorf("links %d cables %d, want 10 on 7", b.Counts.Links, b.Counts.Cables)
	}
	if b.TotalCost != 3*85000+2*2500 {
		t.Errorf("total %.2f", b.TotalCost)
	}
	// Bundled rows share the bundle label; fiber rows have none.
	bundles := map[string]int{}
	for _, r := range b.Plan {
		if r.Bundle != "" {
			bundles[r.Bundle]++
		}
	}
	if len(bundles) != 3 || bundles["dgx1/mlx5_0:1"] != 2 || bundles["hgx1/mlx5_0:1"] != 2 || bundles["leaf:33"] != 2 {
		t.Errorf("bundles %v", bundles)
	}
	if len(b.Warnings) != 1 || !strings.Contains(b.Warnings[0], "no length") {
		t.Errorf("warnings %v, want the unknown length flagged", b.Warnings)
	}

	// Declared copper on a cage whose partner goes elsewhere, and two media in one cage.
	spec.Cables[6].Kind, spec.Cables[6].LengthM = catalog.KindDAC, 2
	spec.Cables[8], spec.Cables[9] = cable("leaf", 37, "spine2", 3, catalog.KindFiberSM, 3), cable("leaf", 38, "spine2", 7, catalog.KindFiberMM, 3)
	g, _ = fabric.Build(spec, cat)
	w := strings.Join(FromGraph(g, cat).Warnings, "\n")
	if !strings.Contains(w, "cage 19 of leaf") || !strings.Contains(w, "cage 18 of leaf") || !strings.Contains(w, "the other links of their cage go elsewhere") {
		t.Errorf("warnings:\n%s", w)
	}
}

func cable(a string, pa int, b string, pb int, kind string, length float64) fabric.Cable {
	return fabric.Cable{A: fabric.End{Device: a, Port: pa}, B: fabric.End{Device: b, Port: pb}, Kind: kind, LengthM: length}
}

// Prices come from the catalog and nowhere else: priced items carry the catalog's figure and
// source, unpriced ones nil, and the total is the sum of the priced costs.
func checkPrices(t *testing.T, b BOM) {
	t.Helper()
	sum := 0.0
	for _, it := range b.Items {
		if (it.UnitPrice == nil) != (it.Cost == nil) {
			t.Errorf("%s: unit price %v, cost %v", it.SKU, it.UnitPrice, it.Cost)
		}
		if it.UnitPrice == nil {
			if !contains(b.Unpriced, it.SKU) {
				t.Errorf("%s unpriced but not listed", it.SKU)
			}
			continue
		}
		if it.PriceSource == "" {
			t.Errorf("%s priced without a source", it.SKU)
		}
		sum += *it.Cost
	}
	if sum != b.TotalCost {
		t.Errorf("total %.2f, priced costs sum to %.2f", b.TotalCost, sum)
	}
}

func TestCatalogPricesOnly(t *testing.T) {
	priced := testrig.Catalog(t, "prices.hcl", `
cable "MFP7E10-N" {
  kind         = "fiber-mm"
  lengths_m    = [3, 5, 7, 10, 15, 20, 30, 50]
  reach_m      = 50
  price        = 120
  price_source = "test quote"
}`)
	d := design(t, superPOD(1, 0, catalog.KindFiberMM))
	g, _ := fabric.Build(d.Spec(), priced)
	b := Build(g, priced, Options{External: ExternalLinks(d)})
	checkPrices(t, b)
	if want := 12*85000 + 508*120.0; b.TotalCost != want {
		t.Errorf("total %.2f, want %.2f (12 switches + 508 priced fibers)", b.TotalCost, want)
	}
	for _, u := range b.Unpriced {
		if strings.HasPrefix(u, "MFP7E10") {
			t.Errorf("%s priced in the catalog but listed unpriced", u)
		}
	}
	checkPrices(t, forDesign(t, superPOD(1, 0, "")))
}

func TestRenderings(t *testing.T) {
	b := forDesign(t, superPOD(1, 0, catalog.KindFiberMM))
	js, err := b.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Items []struct {
			SKU       string   `json:"sku"`
			Quantity  int      `json:"quantity"`
			UnitPrice *float64 `json:"unit_price"`
			Cost      *float64 `json:"cost"`
		} `json:"items"`
		TotalCost float64  `json:"total_cost"`
		Unpriced  []string `json:"unpriced"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Items) != len(b.Items) || doc.TotalCost != b.TotalCost || len(doc.Unpriced) != len(b.Unpriced) {
		t.Errorf("JSON round trip differs: %s", js[:200])
	}
	for _, it := range doc.Items {
		if it.SKU == skuDGX && (it.UnitPrice != nil || it.Cost != nil) {
			t.Errorf("DGX unit price %v: unpriced must be null", it.UnitPrice)
		}
		if it.SKU == skuQM9700 && (it.UnitPrice == nil || *it.Cost != 12*85000) {
			t.Errorf("QM9700 %+v", it)
		}
	}
	md := b.Markdown()
	for _, want := range []string{
		"| switch | 920-9B210-00FN-0M0 |", "| 12 | 85,000.00 | 1,020,000.00 |",
		"| node | DGXH-G640F+P2EDI36 | NVIDIA DGX H100 (8x H100 SXM5) | 31 | unpriced | unpriced |",
		"**Total of priced items:** USD 1,020,000.00", "**Unpriced**", "`980-9I510-00NS00`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if got := mdEscape("a|b"); got != `a\|b` {
		t.Errorf("mdEscape %q", got)
	}
	for v, want := range map[float64]string{0: "0.00", 999.5: "999.50", 1234567.891: "1,234,567.89", -85000: "-85,000.00",
		2.675: "2.68", 0.125: "0.13", -0.125: "-0.13", -0.001: "0.00", 999.995: "1,000.00", 100: "100.00", 1e12: "1,000,000,000,000.00"} {
		if got := Money(v); got != want {
			t.Errorf("Money(%v) = %q, want %q", v, got, want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 16384: "16,384", -16384: "-16,384", -999: "-999", 1234567: "1,234,567"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
	// Deterministic bytes.
	again := forDesign(t, superPOD(1, 0, catalog.KindFiberMM))
	j2, _ := again.JSON()
	if string(js) != string(j2) || md != again.Markdown() {
		t.Error("two BOMs of the same design render differently")
	}
}

func TestEmptyAndNil(t *testing.T) {
	b := FromGraph(nil, cat)
	if len(b.Items) != 0 || b.TotalCost != 0 {
		t.Errorf("%+v", b)
	}
	if js, err := b.JSON(); err != nil || !strings.Contains(string(js), `"items": []`) {
		t.Errorf("%s %v", js, err)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func BenchmarkBOMSuperPOD64SU(b *testing.B) {
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 64}, cat)
	if err != nil {
		b.Fatal(err)
	}
	g, _ := fabric.Build(d.Spec(), cat)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := FromGraph(g, cat)
		if out.Counts.Links == 0 {
			b.Fatal(fmt.Sprint(out.Counts))
		}
	}
}

// Every generated kind gets a clean BOM: no warnings, one row per link, every row with a SKU and
// a length, and a transceiver count within the cages the optical links can use.
func TestEveryKind(t *testing.T) {
	for _, p := range []topogen.Params{
		{Kind: topogen.KindFatTree, Nodes: 300, Oversubscription: 3},
		{Kind: topogen.KindFatTree, Nodes: 20, NodeModel: "HGX-H100"},
		{Kind: topogen.KindRailOptimized, ScalableUnits: 16, PlannedScalableUnits: 16, Nodes: 40},
		{Kind: topogen.KindDragonflyPlus, Groups: 3, LeavesPerGroup: 4, SpinesPerGroup: 8},
		{Kind: topogen.KindTorus3D, TorusDims: [3]int{2, 3, 4}},
	} {
		d := design(t, p)
		g, _ := fabric.Build(d.Spec(), cat)
		b, err := designBOM(d, g, cat)
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Warnings) > 0 {
			t.Errorf("%s: warnings %v", p.Kind, b.Warnings)
		}
		if len(b.Plan) != len(g.Links)+len(d.Appliances) || b.Counts.Links != len(b.Plan) {
			t.Errorf("%s: %d rows for %d links", p.Kind, len(b.Plan), len(g.Links))
		}
		optical := 0
		for _, r := range b.Plan {
			if r.SKU == "" || r.LengthM == 0 {
				t.Fatalf("%s: row %+v", p.Kind, r)
			}
			if r.Kind == catalog.KindFiberMM || r.Kind == catalog.KindFiberSM {
				optical++
			}
		}
		if n := b.Counts.SwitchTransceivers + b.Counts.NodeTransceivers + b.Counts.HCATransceivers; n > 2*optical || (optical > 0 && n < optical) {
			t.Errorf("%s: %d transceivers for %d optical links", p.Kind, n, optical)
		}
		checkPrices(t, b)
	}
}
