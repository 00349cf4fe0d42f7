package bom

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// quadCatalog is the built-in catalog plus a 64-port switch in 16 cages of 4 ports, a 4-link
// switch transceiver, and, with quadCopper, a 4-link ACC.
func quadCatalog(t *testing.T, quadCopper bool) *catalog.Catalog {
	t.Helper()
	text := `switch_model "Q4" {
  ports          = 64
  cages          = 16
  port_rate_gbps = 400
  units          = 1
}
transceiver "QUAD-SR" {
  sku     = "QUAD-SR16"
  media   = "fiber-mm"
  end     = "switch"
  links   = 4
  reach_m = 50
}
`
	if quadCopper {
		text += `cable "QUAD-ACC-N" {
  kind      = "acc"
  ends      = "any"
  links     = 4
  lengths_m = [3, 4, 5]
  reach_m   = 5
}
`
	}
	c := testrig.Catalog(t, "quad.hcl", text)
	if got := c.Switches["Q4"].PortsPerCage(); got != 4 {
		t.Fatalf("Q4 has %d ports per cage, want 4", got)
	}
	return c
}

// quadCages enumerates the cages of the rows from port arithmetic alone: switch port p of Q4
// is in cage (p-1)/4 (ports 1-4 are cage 1), a DGX H100's HCAs mlx5_2k and mlx5_2k+1 share
// node cage k. It maps each cage to the full labels of the rows that end in it.
func quadCages(rows []CableRow) map[string][]string {
	cages := map[string][]string{}
	for _, r := range rows {
		for _, e := range []CableEnd{r.A, r.B} {
			var k string
			if e.HCA != "" {
				node, dev, _ := strings.Cut(e.HCA, "/mlx5_")
				n, _ := strconv.Atoi(dev)
				k = fmt.Sprintf("%s node cage %d", node, n/2)
			} else {
				k = fmt.Sprintf("%s cage %d", e.Device, (e.Port-1)/4)
			}
			cages[k] = append(cages[k], FullLabel(r))
		}
	}
	return cages
}

func quadFabric(t *testing.T, cat *catalog.Catalog, kind string) ([]CableRow, BOM) {
	t.Helper()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2, SwitchModel: "Q4", CableKind: kind}, cat)
	if err != nil {
		t.Fatal(err)
	}
	g, ps := fabric.Build(d.Spec(), cat)
	if fabric.HasErrors(ps) {
		t.Fatal(ps)
	}
	return Cabling(g, cat, Options{}), Build(g, cat, Options{})
}

// A switch of 4 ports per cage (a quad cage, not a pair): every end names its cage and split by
// the catalog's real ports per cage; the links that share a cage are all its ports; a switch
// cage takes one module that serves 4 links; copper carries a cage's links only when the cable
// carries as many links as the cage has ports.
func TestQuadPortCages(t *testing.T) {
	t.Run("fiber", func(t *testing.T) {
		cat := quadCatalog(t, false)
		rows, b := quadFabric(t, cat, catalog.KindFiberMM)
		cages := quadCages(rows)
		for _, r := range rows {
			for _, e := range []CableEnd{r.A, r.B} {
				if e.HCA == "" && (e.Cage != (e.Port-1)/4+1 || e.Split != (e.Port-1)%4+1) {
					t.Fatalf("%s: %s port %d in cage %d split %d, want cage %d split %d", r.Label, e.Device, e.Port, e.Cage, e.Split, (e.Port-1)/4+1, (e.Port-1)%4+1)
				}
			}
		}
		m := NewCageMates(rows)
		for _, r := range rows {
			want := map[string]bool{}
			for _, labels := range cages {
				mine := false
				for _, l := range labels {
					mine = mine || l == FullLabel(r)
				}
				for _, l := range labels {
					if mine && l != FullLabel(r) {
						want[l] = true
					}
				}
			}
			got := map[string]bool{}
			for _, mt := range m.Mates(r.Label) {
				got[mt.Cable] = true
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: mates %v, want %v", r.Label, got, want)
			}
		}
		// One module per switch cage in use, the 4-link one; none of the twin-port switch module.
		switchCages := 0
		for k := range cages {
			if !strings.Contains(k, "node cage") {
				switchCages++
			}
		}
		got := map[string]int{}
		for _, it := range b.Items {
			got[it.SKU] = it.Quantity
		}
		if got["QUAD-SR16"] != switchCages || b.Counts.SwitchTransceivers != switchCages {
			t.Errorf("QUAD-SR16 x %d, switch transceivers %d; want %d (the switch cages in use)", got["QUAD-SR16"], b.Counts.SwitchTransceivers, switchCages)
		}
		if n := got["980-9I510-00NS00"]; n != 0 {
			t.Errorf("%d twin-port switch transceivers counted for 4-port cages", n)
		}
	})
	for _, quadCopper := range []bool{false, true} {
		t.Run(fmt.Sprintf("planner, quad copper %v", quadCopper), func(t *testing.T) {
			cat := quadCatalog(t, quadCopper)
			rows, b := quadFabric(t, cat, "")
			cages := quadCages(rows)
			bundles := map[string][]string{}
			for _, r := range rows {
				if r.Bundle != "" {
					bundles[r.Bundle] = append(bundles[r.Bundle], FullLabel(r))
				}
			}
			for key, labels := range bundles {
				sort.Strings(labels)
				// A bundle is one cable: its links are the links of one switch cage, at most as
				// many as the cable carries.
				var sku string
				for _, r := range rows {
					if r.Bundle == key {
						sku = r.CableSKU
					}
				}
				if !strings.HasPrefix(sku, "QUAD-ACC-N") {
					t.Errorf("bundle %s of %d links is %s, which does not carry 4 links", key, len(labels), sku)
				}
				found := false
				for k, cl := range cages {
					c := append([]string(nil), cl...)
					sort.Strings(c)
					if !strings.Contains(k, "node cage") && fmt.Sprint(c) == fmt.Sprint(labels) {
						found = true
					}
				}
				if !found {
					t.Errorf("bundle %s carries %v, which is not the links of one switch cage", key, labels)
				}
			}
			if want := len(rows) - func() int {
				n := 0
				for _, l := range bundles {
					n += len(l) - 1
				}
				return n
			}(); b.Counts.Cables != want {
				t.Errorf("%d cables, want %d (one per bundle, one per other link)", b.Counts.Cables, want)
			}
			if quadCopper && len(bundles) == 0 {
				t.Error("no link is on the 4-link ACC")
			}
			// Replacing a bundled cable takes down the other links of its cage, on a cable
			// named for the links it carries.
			m := NewCageMates(rows)
			for _, r := range rows {
				if r.Bundle == "" {
					continue
				}
				n := 0
				for _, mt := range m.Mates(r.Label) {
					if mt.Always {
						n++
						if !strings.HasPrefix(mt.Shared, "4-link cable QUAD-ACC-N") {
							t.Errorf("%s: mate %s shares %q, want the 4-link cable", r.Label, mt.Cable, mt.Shared)
						}
					}
				}
				if n != len(bundles[r.Bundle])-1 {
					t.Errorf("%s: %d mates on its cable, want %d", r.Label, n, len(bundles[r.Bundle])-1)
				}
			}
		})
	}
}
