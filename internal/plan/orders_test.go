package plan

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// TestOrderSaysWhenAppliancesAreLeftOut: a SuperPOD SU with a slot reserved for UFM (4 links to
// the leaves) priced without external_links says, in the BOM's warnings, that those links are
// not counted and how to count them; with them given, the warning goes and the BOM counts as many
// more external cables as the design has appliance links.
func TestOrderSaysWhenAppliancesAreLeftOut(t *testing.T) {
	cat := catalog.Default()
	p := topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 1, ReservedNodeSlots: 1, CableKind: catalog.KindFiberMM}
	f, ps := Build(cat, Inputs{Design: &p})
	if f == nil {
		t.Fatal(ps)
	}
	links := len(f.Design.ApplianceList)
	if links != 4 {
		t.Fatalf("the design has %d appliance links; RA-11333-001 gives one UFM slot 4", links)
	}
	without, ps := Order(cat, f, nil, nil)
	if without == nil {
		t.Fatal(ps)
	}
	var warned string
	for _, w := range without.BOM.Warnings {
		if strings.Contains(w, "appliance links") {
			warned = w
		}
	}
	if warned == "" || !strings.Contains(warned, "4 appliance links") || !strings.Contains(warned, "external_links") ||
		!strings.Contains(warned, f.Design.ApplianceList[0].Key) {
		t.Fatalf("no warning that names the 4 appliance links: %q", without.BOM.Warnings)
	}
	if !strings.Contains(without.BOM.Markdown(), "4 appliance links") {
		t.Errorf("the BOM's Markdown does not carry the warning")
	}
	with, _ := Order(cat, f, bom.ExternalLinks(f.Design), nil)
	for _, w := range with.BOM.Warnings {
		if strings.Contains(w, "appliance links") {
			t.Errorf("warning with the links given: %q", w)
		}
	}
	if d := with.BOM.Counts.ExternalCables - without.BOM.Counts.ExternalCables; d != links {
		t.Errorf("the links add %d external cables, the design has %d", d, links)
	}
}
