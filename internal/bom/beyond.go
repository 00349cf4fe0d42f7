package bom

import (
	"fmt"
	"strings"
)

// Beyond is what a design fitted to a floor needs beyond what is on it: per SKU, how many the
// floor's part of the design has (Options.Only) and how many the whole design needs, and the
// design's devices the floor lacks, by name. It is the purchase order of an adoption or a growth
// on a floor, where the whole BOM would buy again what is already racked and cabled.
type Beyond struct {
	Items     []BeyondItem `json:"items"`
	TotalCost float64      `json:"total_cost"` // the priced cost of what to buy (ToBuy > 0)
	// Absent names the design's switches and nodes that are not on the floor: what the floor
	// lacks at its own size (a node never racked), and what a growth adds.
	Absent []string `json:"absent"`
}

// BeyondItem is one SKU whose count differs between the floor's part and the whole design.
// ToBuy is Needed - OnFloor; negative when the floor has more than the design uses (spares).
type BeyondItem struct {
	SKU         string   `json:"sku"`
	Description string   `json:"description"`
	Category    string   `json:"category"`
	OnFloor     int      `json:"on_floor"`
	Needed      int      `json:"needed"`
	ToBuy       int      `json:"to_buy"`
	UnitPrice   *float64 `json:"unit_price"`
	Cost        *float64 `json:"cost"` // ToBuy x UnitPrice, for ToBuy > 0; nil otherwise or unpriced
}

// BeyondFloor compares the floor's part of a design (Build with Options.Only) with the whole
// design, line by line as Order does.
func BeyondFloor(floor, design BOM, absent []string) *Beyond {
	lines, _ := Order(floor, design)
	out := &Beyond{Items: []BeyondItem{}, Absent: absent}
	if out.Absent == nil {
		out.Absent = []string{}
	}
	for _, l := range lines {
		it := BeyondItem{SKU: l.SKU, Description: l.Description, Category: l.Category, OnFloor: l.Before, Needed: l.After, ToBuy: l.Delta(), UnitPrice: l.UnitPrice}
		if l.Cost != nil && l.Delta() > 0 {
			c := *l.Cost
			it.Cost = &c
			out.TotalCost += c
		}
		out.Items = append(out.Items, it)
	}
	return out
}

// maxAbsentShown bounds the devices the Markdown names; a growth can add thousands.
const maxAbsentShown = 20

// Markdown renders what to buy beyond the floor as a table, with the devices the floor lacks.
func (b *Beyond) Markdown() string {
	var s strings.Builder
	s.WriteString("**Beyond the floor** (what the design needs that the floor does not have)\n\n")
	if len(b.Items) == 0 {
		s.WriteString("Nothing: the floor has every part the design needs.\n")
	} else {
		s.WriteString("| Category | SKU | On the floor | Design | To buy | Cost (USD) |\n|---|---|---:|---:|---:|---:|\n")
		for _, it := range b.Items {
			cost := ""
			switch {
			case it.ToBuy <= 0:
			case it.Cost != nil:
				cost = Money(*it.Cost)
			default:
				cost = "unpriced"
			}
			fmt.Fprintf(&s, "| %s | %s | %d | %d | %d | %s |\n", it.Category, mdEscape(it.SKU), it.OnFloor, it.Needed, it.ToBuy, cost)
		}
		fmt.Fprintf(&s, "\n**To buy, priced items:** USD %s\n", Money(b.TotalCost))
	}
	if n := len(b.Absent); n > 0 {
		shown := b.Absent
		if n > maxAbsentShown {
			shown = append(shown[:maxAbsentShown:maxAbsentShown], fmt.Sprintf("and %d more (`json` lists them all)", n-maxAbsentShown))
		}
		fmt.Fprintf(&s, "\n**Not on the floor** (%d): %s\n", n, mdEscape(strings.Join(shown, ", ")))
	}
	return s.String()
}
