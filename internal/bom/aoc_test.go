package bom

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Links declared aoc on the 4-SU SuperPOD (issue 10): the built-in catalog has no NDR AOC, so no
// AOC is priced, and the BOM says so in one warning instead of 1,024 cage warnings claiming the
// two identical links of a cage need "different" modules. (fabric.Build refuses the kind too;
// the BOM of a fed graph must still not invent the part.)
func TestAOCNotInCatalog(t *testing.T) {
	d := design(t, superPOD(4, 0, catalog.KindFiberMM))
	spec := d.Spec()
	for i := range spec.Cables {
		spec.Cables[i].Kind = catalog.KindAOC
	}
	g, _ := fabric.Build(spec, cat)
	b := FromGraph(g, cat)
	for _, it := range b.Items {
		if it.Category == CategoryCable {
			t.Errorf("a cable is counted though the catalog has none of kind aoc: %+v", it)
		}
		if strings.Contains(strings.ToUpper(it.SKU+it.Description), "AOC") {
			t.Errorf("an AOC part is listed: %+v", it)
		}
	}
	if len(b.Warnings) != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", len(b.Warnings), strings.Join(b.Warnings[:min(5, len(b.Warnings))], "\n"))
	}
	w := b.Warnings[0]
	for _, s := range []string{"2040 link(s) name cable kind \"aoc\"", "catalog has no aoc cable", "catalog_files", "fiber-mm"} {
		if !strings.Contains(w, s) {
			t.Errorf("warning %q lacks %q", w, s)
		}
	}
	// The generator refuses the kind at plan time, with the alternative.
	_, err := topogen.Generate(superPOD(4, 0, catalog.KindAOC), cat)
	if err == nil || !strings.Contains(err.Error(), "no aoc cable") || !strings.Contains(err.Error(), `cable_kind = "fiber-mm"`) {
		t.Errorf("Generate(cable_kind = aoc) = %v", err)
	}
}

// A catalog file that adds a twin-port AOC gets it counted, and two links of a cage that name
// the same optical kind are never reported as needing different modules.
func TestMixedCagesOneWarning(t *testing.T) {
	b := forDesign(t, superPOD(4, 0, catalog.KindFiberMM))
	for _, w := range b.Warnings {
		if strings.Contains(w, "different") || strings.Contains(w, "cannot serve together") {
			t.Errorf("same-kind cages reported as mixed: %s", w)
		}
	}
}
