package plan

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Purchase relative to the floor. A design fitted to a floor (Fabric.Fit) keeps the floor's
// switches, nodes, HCAs and cables wherever it has them (their Ref.Origin is
// asbuilt.OriginAsBuilt, moved cables included: a moved cable is the same cable); what to buy is
// the rest. The floor's part is priced as the whole design prices it (bom.Options.Only), so the
// two BOMs differ only by what the floor lacks.

// BeyondFloor is what f, fitted to a floor, needs beyond it, against full, f's whole BOM (with the
// external links ext); nil for a fabric without a floor.
func BeyondFloor(cat *catalog.Catalog, f *Fabric, full bom.BOM, ext []bom.ExternalLink) *bom.Beyond {
	if f == nil || f.Fit == nil || f.Graph == nil {
		return nil
	}
	floor := bom.Build(f.Graph, cat, bom.Options{External: ext, Only: asbuilt.OriginAsBuilt})
	return bom.BeyondFloor(floor, full, notOnFloor(f.Graph.Spec))
}

// notOnFloor names the switches and nodes of a fitted spec that the floor does not have, in the
// spec's order: switches, then nodes.
func notOnFloor(s *fabric.Spec) []string {
	var out []string
	for _, sw := range s.Switches {
		if sw.Origin != asbuilt.OriginAsBuilt {
			out = append(out, sw.Name)
		}
	}
	for _, n := range s.Nodes {
		if n.Origin != asbuilt.OriginAsBuilt {
			out = append(out, n.Name)
		}
	}
	return out
}
