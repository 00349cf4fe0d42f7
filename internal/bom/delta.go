package bom

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Delta is the expansion purchase order from prior to next: per SKU the quantity to add
// (positive) or that is freed (negative), costed at the unit price; items whose quantity does
// not change are left out. Plan holds the rows to cable (in next, not in prior, or changed) and
// Removed the rows to take out (in prior, not in next, or changed). Counts are differences.
func Delta(prior, next BOM) BOM {
	type k = [2]string
	before := map[k]Item{}
	for _, it := range prior.Items {
		before[k{it.Category, it.SKU}] = it
	}
	var out BOM
	seen := map[k]bool{}
	for _, it := range next.Items {
		key := k{it.Category, it.SKU}
		seen[key] = true
		if q := it.Quantity - before[key].Quantity; q != 0 {
			out.Items = append(out.Items, priced(it, q))
		}
	}
	for _, it := range prior.Items {
		if !seen[k{it.Category, it.SKU}] {
			out.Items = append(out.Items, priced(it, -it.Quantity))
		}
	}
	sortItems(out.Items)
	for _, it := range out.Items {
		if it.Cost != nil {
			out.TotalCost += *it.Cost
		}
	}
	out.Unpriced = unpriced(out.Items)

	had := make(map[Row]bool, len(prior.Plan))
	for _, r := range prior.Plan {
		had[r] = true
	}
	has := make(map[Row]bool, len(next.Plan))
	for _, r := range next.Plan {
		has[r] = true
		if !had[r] {
			out.Plan = append(out.Plan, r)
		}
	}
	for _, r := range prior.Plan {
		if !has[r] {
			out.Removed = append(out.Removed, r)
		}
	}
	p, n := prior.Counts, next.Counts
	out.Counts = Counts{
		Switches: n.Switches - p.Switches, Nodes: n.Nodes - p.Nodes, HCAs: n.HCAs - p.HCAs,
		Links: n.Links - p.Links, Cables: n.Cables - p.Cables, GraphCables: n.GraphCables - p.GraphCables,
		ExternalCables:     n.ExternalCables - p.ExternalCables,
		SwitchTransceivers: n.SwitchTransceivers - p.SwitchTransceivers,
		NodeTransceivers:   n.NodeTransceivers - p.NodeTransceivers,
		HCATransceivers:    n.HCATransceivers - p.HCATransceivers,
	}
	out.Warnings = append([]string{}, next.Warnings...)
	if len(out.Removed) > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d cabling-plan rows of the prior fabric change or go away: the expansion re-cables existing ports (see Removed)", len(out.Removed)))
	}
	return out
}

func priced(it Item, q int) Item {
	it.Quantity = q
	it.Cost = nil
	if it.UnitPrice != nil {
		c := *it.UnitPrice * float64(q)
		it.Cost = &c
	}
	return it
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

// ForDesign is the BOM of a generated design, appliance links included. g may be nil, in which
// case the design's graph is built here; a design that does not build is an error.
func ForDesign(d *topogen.Design, g *fabric.Graph, cat *catalog.Catalog) (BOM, error) {
	if g == nil {
		var probs []fabric.Problem
		g, probs = fabric.Build(d.Spec(), cat)
		if fabric.HasErrors(probs) {
			for _, p := range probs {
				if p.Severity == fabric.Error {
					return BOM{}, fmt.Errorf("design does not build: %s", p)
				}
			}
		}
	}
	return Build(g, cat, Options{External: ExternalLinks(d)}), nil
}
