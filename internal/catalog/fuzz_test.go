package catalog

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// FuzzLoadSource: any catalog text is refused with an "invalid catalog" error or layered over
// the built-in catalog, and a catalog that loads keeps every invariant the planner relies on
// (positive port counts and rates, node HCA models that exist, known cable kinds with positive,
// sorted lengths within reach, no negative price, power or count), CableFor never panics, and
// loading the same text twice gives the same catalog.
func FuzzLoadSource(f *testing.F) {
	f.Add(string(builtin))
	f.Add("switch_model \"x\" {\n ports = 0\n port_rate_gbps = 400\n}")
	f.Add("cable \"c\" {\n kind = \"aoc\"\n lengths_m = [3, 1, 2.5]\n reach_m = 30\n price = -4\n}")
	f.Add("node_model \"n\" {\n units = 2\n compute_hcas = 4\n hca_model = \"ConnectX-7-OSFP\"\n power_kw = 10.2\n}")
	f.Add("transceiver \"t\" {\n media = \"fiber-mm\"\n end = \"switch\"\n reach_m = 1e400\n}")
	f.Fuzz(func(t *testing.T, src string) {
		c, err := loadSource("fuzz.hcl", []byte(src))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid catalog") {
				t.Fatalf("error without the catalog prefix: %v", err)
			}
			return
		}
		for n, s := range c.Switches {
			if s.Name != n || s.Ports <= 0 || !(s.PortRateGbps > 0) || s.Cages < 0 || s.Units < 0 || s.PowerKW < 0 || (s.Price != nil && s.Price.USD < 0) {
				t.Fatalf("switch %q: %+v", n, s)
			}
		}
		for n, h := range c.HCAs {
			if h.Name != n || h.Ports <= 0 || !(h.PortRateGbps > 0) || (h.Price != nil && h.Price.USD < 0) {
				t.Fatalf("hca %q: %+v", n, h)
			}
		}
		for n, m := range c.Nodes {
			if _, ok := c.HCAs[m.HCAModel]; !ok || m.Name != n || m.Units <= 0 || m.ComputeHCAs < 0 || m.PowerKW < 0 || m.GPUs < 0 || (m.Price != nil && m.Price.USD < 0) {
				t.Fatalf("node %q: %+v", n, m)
			}
		}
		for n, k := range c.Cables {
			if !validKind(k.Kind) || !(k.ReachM > 0) || len(k.LengthsM) == 0 || !sort.Float64sAreSorted(k.LengthsM) || k.Links < 0 || (k.Price != nil && k.Price.USD < 0) {
				t.Fatalf("cable %q: %+v", n, k)
			}
			for _, l := range k.LengthsM {
				if !(l > 0) || l > k.ReachM {
					t.Fatalf("cable %q length %g (reach %g)", n, l, k.ReachM)
				}
			}
			_, _, _ = c.CableFor(k.Kind, k.Ends, k.LengthsM[0])
			_ = k.SKU(k.LengthsM[len(k.LengthsM)-1])
		}
		for n, x := range c.Transceivers {
			if (x.Media != KindFiberMM && x.Media != KindFiberSM) || !(x.ReachM > 0) || x.Links < 0 {
				t.Fatalf("transceiver %q: %+v", n, x)
			}
		}
		again, err := loadSource("fuzz.hcl", []byte(src))
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("second load differs (%v)", err)
		}
	})
}
