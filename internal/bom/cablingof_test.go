package bom

import (
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A Cabler's row of every link, asked in a shuffled order (so components are planned in any
// order, and some rows come from a component planned for another link), is the whole plan's
// row (Cabling): on designs with fiber, twin-port copper (straight and splitter), a quad-cage
// switch with and without quad copper, mixed kinds in one cage, and every topology kind.
func TestCablerRowIsCablingRow(t *testing.T) {
	def := catalog.Default()
	quad, quadCu := quadCatalog(t, false), quadCatalog(t, true)
	cases := []struct {
		name string
		cat  *catalog.Catalog
		p    topogen.Params
	}{
		{"fat tree 16 (copper)", def, topogen.Params{Kind: topogen.KindFatTree, Nodes: 16}},
		{"fat tree 8, 2 tiers", def, topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2}},
		{"fat tree 160, 3 tiers", def, topogen.Params{Kind: topogen.KindFatTree, Nodes: 160, Tiers: 3}},
		{"rail-optimized 2 SU, UFM slot", def, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2, ReservedNodeSlots: 1}},
		{"rail-optimized fiber", def, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 1, CableKind: catalog.KindFiberMM}},
		{"dragonfly+", def, topogen.Params{Kind: topogen.KindDragonflyPlus, Groups: 3, LeavesPerGroup: 4, SpinesPerGroup: 4}},
		{"torus 3x3x3", def, topogen.Params{Kind: topogen.KindTorus3D, TorusDims: [3]int{3, 3, 3}}},
		{"quad cages, fiber", quad, topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2, SwitchModel: "Q4"}},
		{"quad cages, quad copper", quadCu, topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2, SwitchModel: "Q4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := topogen.Generate(tc.p, tc.cat)
			if err != nil {
				t.Fatal(err)
			}
			spec := d.Spec()
			if tc.name == "fat tree 16 (copper)" {
				// One link of a copper cage declared fiber: its cage cannot be one copper cable.
				spec.Cables[3].Kind = catalog.KindFiberMM
			}
			g, ps := fabric.Build(spec, tc.cat)
			if fabric.HasErrors(ps) {
				t.Fatal(ps)
			}
			checkCabler(t, g, tc.cat)
		})
	}
}

func checkCabler(t *testing.T, g *fabric.Graph, cat *catalog.Catalog) {
	t.Helper()
	want := Cabling(g, cat, Options{})
	if len(want) != len(g.Links) {
		t.Fatalf("Cabling has %d rows for %d links", len(want), len(g.Links))
	}
	bundles := 0
	for _, r := range want {
		if r.Bundle != "" {
			bundles++
		}
	}
	cb := NewCabler(g, cat)
	order := rand.New(rand.NewSource(int64(len(want)))).Perm(len(want))
	for _, li := range order {
		got, ok := cb.Row(li)
		if !ok || !reflect.DeepEqual(got, want[li]) {
			t.Fatalf("link %d: Cabler row %+v (ok %v), Cabling's %+v", li, got, ok, want[li])
		}
	}
	// Bundles and twin-port cages, from the whole plan's rows.
	bundle, cage := map[string][]int{}, map[string][]int{}
	for i, r := range want {
		if r.Bundle != "" {
			bundle[r.Bundle] = append(bundle[r.Bundle], i)
		}
		for _, e := range []CableEnd{r.A, r.B} {
			if e.Split > 0 {
				k := fmt.Sprintf("%s cage %d", e.Device, e.Cage)
				if c := cage[k]; len(c) == 0 || c[len(c)-1] != i {
					cage[k] = append(cage[k], i)
				}
			}
		}
	}
	cb = NewCabler(g, cat) // a fresh one: Bundle and CageLinks plan what they need
	for _, li := range order {
		if got, w := cb.Bundle(li), bundle[want[li].Bundle]; fmt.Sprint(got) != fmt.Sprint(w) {
			t.Fatalf("link %d: bundle %v, want %v", li, got, w)
		}
	}
	cb = NewCabler(g, cat)
	for k, w := range cage {
		box, n, _ := strings.Cut(k, " cage ")
		c, _ := strconv.Atoi(n)
		if got := cb.CageLinks(box, c); fmt.Sprint(got) != fmt.Sprint(w) {
			t.Fatalf("%s: links %v, want %v", k, got, w)
		}
	}
	if _, ok := cb.Row(len(want)); ok {
		t.Errorf("a row for link %d of %d", len(want), len(want))
	}
	t.Logf("%d rows, %d in copper bundles, %d twin-port cages", len(want), bundles, len(cage))
}
