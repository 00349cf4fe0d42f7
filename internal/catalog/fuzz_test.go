package catalog

import (
	"flag"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// FuzzLoadSource: any catalog text is refused with an "invalid catalog" error or layered over
// the built-in catalog, and a catalog that loads keeps every invariant the planner relies on
// (positive port counts and rates, node HCA models that exist, known cable kinds with positive,
// sorted lengths within reach, no negative price, power or count), CableFor never panics, and
// loading the same text twice gives the same catalog (checkCatalogSource).
//
// The seeds are single small blocks, and while fuzzing inputs beyond maxFuzzCatalog are
// skipped: the fuzzer minimizes every input that finds new coverage, trying on the order of n^2
// candidates for n bytes, and from the 6 KB built-in catalog as a seed that took the whole budget
// (issue 22: 8 inputs in 60 s, 2 a second in 10 s). The built-in catalog and the inputs the
// fuzzer once found (testdata) are judged whole by TestLoadSourceProperties and the seed run.
func FuzzLoadSource(f *testing.F) {
	for _, s := range smallCatalogSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if fuzzing() && len(src) > maxFuzzCatalog {
			return
		}
		checkCatalogSource(t, src)
	})
}

// smallCatalogSeeds are one small block of each kind, and the shapes the fuzzer once broke.
var smallCatalogSeeds = []string{
	"switch_model \"x\" {\n ports = 0\n port_rate_gbps = 400\n}",
	"hca_model \"h\" {\n ports = 1\n port_rate_gbps = 400\n form_factor = \"osfp\"\n}",
	"cable \"c\" {\n kind = \"aoc\"\n lengths_m = [3, 1, 2.5]\n reach_m = 30\n price = -4\n}",
	"node_model \"n\" {\n units = 2\n compute_hcas = 4\n hca_model = \"ConnectX-7-OSFP\"\n power_kw = 10.2\n}",
	"transceiver \"t\" {\n media = \"fiber-mm\"\n end = \"switch\"\n reach_m = 1e400\n}",
}

// TestLoadSourceProperties judges the built-in catalog whole, and each of its blocks alone, with
// FuzzLoadSource's properties: inputs too large to fuzz, which go test still covers.
func TestLoadSourceProperties(t *testing.T) {
	checkCatalogSource(t, string(builtin))
	for _, b := range builtinBlocks() {
		checkCatalogSource(t, b)
	}
}

// fuzzing tells whether this test binary runs a fuzz target (-test.fuzz) rather than its seeds.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// checkCatalogSource is the property FuzzLoadSource checks on one input.
func checkCatalogSource(t *testing.T, src string) {
	t.Helper()
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
}

// maxFuzzCatalog bounds the inputs FuzzLoadSource fuzzes: two or three blocks, whose
// minimization takes well under a second.
const maxFuzzCatalog = 256

// builtinBlocks cuts the built-in catalog into its top-level blocks, the first of each kind.
func builtinBlocks() []string {
	var out []string
	seen := map[string]bool{}
	lines := strings.Split(string(builtin), "\n")
	for i := 0; i < len(lines); i++ {
		kind, _, ok := strings.Cut(lines[i], " \"")
		if !ok || strings.HasPrefix(kind, "#") || strings.HasPrefix(kind, " ") || seen[kind] {
			continue
		}
		j := i
		for j < len(lines) && lines[j] != "}" {
			j++
		}
		seen[kind] = true
		out = append(out, strings.Join(lines[i:min(j+1, len(lines))], "\n"))
		i = j
	}
	return out
}
