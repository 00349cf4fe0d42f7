package bom

import (
	"encoding/csv"
	"strings"
	"testing"
)

func TestItemsCSV(t *testing.T) {
	price := 85000.0
	cost := 2 * price
	b := BOM{Items: []Item{
		{Category: "switch", SKU: "920-9B210-00FN-0M0", Description: "QM9700, managed", Quantity: 2, UnitPrice: &price, Cost: &cost},
		{Category: "node", SKU: "DGXH-G640F+P2EDI36", Description: `DGX "H100"`, Quantity: 4},
	}}
	text, err := b.ItemsCSV()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"category", "sku", "description", "quantity", "unit_price", "cost"},
		{"switch", "920-9B210-00FN-0M0", "QM9700, managed", "2", "85000.00", "170000.00"},
		{"node", "DGXH-G640F+P2EDI36", `DGX "H100"`, "4", "", ""},
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q (an unpriced item keeps empty price fields)", i, rows[i], want[i])
		}
	}
}
