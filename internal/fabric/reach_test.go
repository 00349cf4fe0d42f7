package fabric

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// loadCatalog is the built-in catalog with a catalog file of the given text read after it.
func loadCatalog(t *testing.T, text string) *catalog.Catalog {
	t.Helper()
	file := filepath.Join(t.TempDir(), "site.hcl")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := catalog.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// reachProblems builds smallCluster with one cable declared kind at length metres, and returns
// the cable-reach and cable-kind problems on it.
func reachProblems(t *testing.T, cat *catalog.Catalog, ci int, kind string, length float64) []Problem {
	t.Helper()
	s := smallCluster()
	s.Cables[ci].Kind, s.Cables[ci].LengthM = kind, length
	_, ps := Build(s, cat)
	var out []Problem
	for _, p := range ps {
		if p.Rule == RuleCableReach || p.Rule == RuleCableKind {
			out = append(out, p)
		}
	}
	return out
}

var advisedKind = regexp.MustCompile(`use "([a-z-]+)" \(up to ([0-9.]+) m\)`)

// The reach rule and its advice follow the cables the catalog has for the link's ends (a switch
// and an HCA, or two switches), as the BOM and gpucluster_cable do (catalog.CableFor): a
// twin-port DAC between two switches reaches 2 m even though the splitter DAC to HCAs reaches
// 3 m, and the advice names a kind only when the catalog has a product of it for those ends
// that covers the run. The expected advice is computed here from the catalog: the first kind the
// planner picks (catalog.PlannerKinds) that CableFor supplies.
func TestReachAdviceFollowsEnds(t *testing.T) {
	const swHCA, swSw = 0, 64 // smallCluster: leaf01:1 <-> gpu001/mlx5_0:1; leaf01:33 <-> spine01:1
	builtin := catalog.Default()
	// The site's ACC is only sold as switch-to-HCA, and it adds an AOC that only joins a switch
	// to an HCA.
	noSwitchACC := loadCatalog(t, `cable "MCA4J80-N" {
  kind      = "acc"
  ends      = "switch-hca"
  links     = 2
  lengths_m = [3, 4, 5]
  reach_m   = 5
}
cable "SITE-AOC-" {
  kind      = "aoc"
  ends      = "switch-hca"
  links     = 1
  lengths_m = [10, 20, 30]
  reach_m   = 30
}
`)
	// Nothing the site buys joins two switches beyond copper's 2 m.
	var b strings.Builder
	b.WriteString(`cable "MCA4J80-N" {
  kind      = "acc"
  ends      = "switch-hca"
  links     = 2
  lengths_m = [3, 4, 5]
  reach_m   = 5
}
`)
	for _, f := range []struct{ name, kind string }{{"MFP7E10-N", "fiber-mm"}, {"MFP7E30-N", "fiber-sm"}} {
		b.WriteString("cable \"" + f.name + "\" {\n  kind = \"" + f.kind + "\"\n  ends = \"switch-hca\"\n  links = 1\n  lengths_m = [3, 5, 10]\n  reach_m = 50\n}\n")
	}
	hcaOnly := loadCatalog(t, b.String())

	for _, tc := range []struct {
		name   string
		cat    *catalog.Catalog
		cable  int
		ends   string
		kind   string
		length float64
		want   string // what the problem says of the declared kind
	}{
		{"built-in: twin-port DAC between switches at 2.5 m", builtin, swSw, catalog.EndsSwitchSwitch, "dac", 2.5, "dac reaches at most 2 m between two switches"},
		{"built-in: splitter DAC to an HCA at 4 m", builtin, swHCA, catalog.EndsSwitchHCA, "dac", 4, "dac reaches at most 3 m between a switch and an HCA"},
		{"built-in: multimode fibre at 80 m", builtin, swSw, catalog.EndsSwitchSwitch, "fiber-mm", 80, "fiber-mm reaches at most 50 m between two switches"},
		{"site: DAC between switches at 4 m, no switch-switch ACC", noSwitchACC, swSw, catalog.EndsSwitchSwitch, "dac", 4, "dac reaches at most 2 m between two switches"},
		{"site: DAC to an HCA at 4 m", noSwitchACC, swHCA, catalog.EndsSwitchHCA, "dac", 4, "dac reaches at most 3 m between a switch and an HCA"},
		{"site: AOC between switches, sold only to HCAs", noSwitchACC, swSw, catalog.EndsSwitchSwitch, "aoc", 10, `the catalog has no "aoc" cable between two switches`},
		{"site: nothing joins two switches at 4 m", hcaOnly, swSw, catalog.EndsSwitchSwitch, "dac", 4, "dac reaches at most 2 m between two switches"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps := reachProblems(t, tc.cat, tc.cable, tc.kind, tc.length)
			if len(ps) != 1 {
				t.Fatalf("%d reach problems, want 1: %v", len(ps), ps)
			}
			msg := ps[0].Message
			if ps[0].Severity != Error || !strings.Contains(msg, tc.want) {
				t.Errorf("problem %q (%v), want an error that says %q", msg, ps[0].Severity, tc.want)
			}
			// The independent answer: the first planner kind with a product for these ends.
			wantKind, wantReach := "", 0.0
			for _, k := range catalog.PlannerKinds {
				if _, _, ok := tc.cat.CableFor(k, tc.ends, tc.length); ok {
					wantKind = k
					for _, c := range tc.cat.Cables {
						if c.Serves(k, tc.ends) && c.ReachM > wantReach {
							wantReach = c.ReachM
						}
					}
					break
				}
			}
			m := advisedKind.FindStringSubmatch(msg)
			switch {
			case wantKind == "" && m != nil:
				t.Errorf("advises %q, but the catalog has no kind for %s at %g m: %s", m[1], tc.ends, tc.length, msg)
			case wantKind == "" && !strings.Contains(msg, "no cable kind in the catalog reaches"):
				t.Errorf("does not say that no kind fits: %s", msg)
			case wantKind != "" && (m == nil || m[1] != wantKind):
				t.Errorf("advice in %q, want kind %q", msg, wantKind)
			case wantKind != "":
				if r, err := strconv.ParseFloat(m[2], 64); err != nil || r != wantReach {
					t.Errorf("advice in %q, want the reach of %s for these ends, %g m", msg, wantKind, wantReach)
				}
			}
		})
	}
}
