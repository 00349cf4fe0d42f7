package bom

import (
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Line is one SKU of a purchase order: how many the prior fabric has and the next one needs.
// Cost is what the difference costs at the unit price (negative: freed); nil when unpriced.
type Line struct {
	SKU         string
	Description string
	Category    string
	Before      int
	After       int
	UnitPrice   *float64
	Cost        *float64
}

// Delta is After - Before: positive to buy, negative freed.
func (l Line) Delta() int { return l.After - l.Before }

// Order is the purchase order from prior to next, one Line per SKU whose quantity changes (an
// SKU listed under two categories counts once, as bom.items keys it), in the BOM's order; total
// is the cost of the priced lines. It is what a plan summary and the `bom` diff by SKU both say.
func Order(prior, next BOM) (lines []Line, total float64) {
	before, after := BySKU(prior.Items), BySKU(next.Items)
	add := func(it Item, b, a int) {
		if a == b {
			return
		}
		l := Line{SKU: it.SKU, Description: it.Description, Category: it.Category, Before: b, After: a, UnitPrice: it.UnitPrice}
		if it.UnitPrice != nil {
			c := *it.UnitPrice * float64(a-b)
			l.Cost = &c
			total += c
		}
		lines = append(lines, l)
	}
	for _, it := range after {
		add(it, before[it.SKU].Quantity, it.Quantity)
	}
	for _, it := range before {
		if _, ok := after[it.SKU]; !ok {
			add(it, it.Quantity, 0)
		}
	}
	sort.Slice(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		if categoryOrder[a.Category] != categoryOrder[b.Category] {
			return categoryOrder[a.Category] < categoryOrder[b.Category]
		}
		return a.SKU < b.SKU
	})
	return lines, total
}

// BySKU keys items by SKU, the shape of the `bom.items` outputs. Items of one SKU under two
// categories (which the catalog does not have today) are merged: quantities and costs add up,
// the first category in BOM order and its description are kept.
func BySKU(items []Item) map[string]Item {
	out := make(map[string]Item, len(items))
	for _, it := range items {
		prev, dup := out[it.SKU]
		if !dup {
			out[it.SKU] = it
			continue
		}
		prev.Quantity += it.Quantity
		if prev.Cost != nil && it.Cost != nil {
			c := *prev.Cost + *it.Cost
			prev.Cost = &c
		} else {
			prev.Cost = nil
		}
		out[it.SKU] = prev
	}
	return out
}

// ExternalLinks turns a generated design's appliance links (UFM in reserved slots) into the
// external links of Options.
func ExternalLinks(d *topogen.Design) []ExternalLink {
	out := make([]ExternalLink, 0, len(d.ApplianceList))
	for _, a := range d.ApplianceList {
		out = append(out, ExternalLink{
			Label: a.Key, Device: a.Appliance, Port: a.Port, Rack: a.Rack, PositionU: a.PositionU,
			Switch: a.Leaf, SwitchPort: a.LeafPort, Kind: d.Params.CableKind,
		})
	}
	return out
}
