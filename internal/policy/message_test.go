package policy

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// threeLeaves is 96 endpoints on three leaves of 32 (DGX H100 nodes), each leaf with `up`
// uplinks to one spine: no balanced cut follows the switches, so the witness places 16
// endpoints apart from their leaf.
func threeLeaves(up int) *fabric.Spec {
	s := &fabric.Spec{Switches: []fabric.Switch{{Name: "spine01", Model: "QM9700"}}}
	for l := 1; l <= 3; l++ {
		leaf := fmt.Sprintf("leaf%02d", l)
		s.Switches = append(s.Switches, fabric.Switch{Name: leaf, Model: "QM9700"})
		for n := 0; n < 4; n++ {
			node := fmt.Sprintf("gpu%d%02d", l, n)
			s.Nodes = append(s.Nodes, fabric.Node{Name: node, Model: "DGX-H100"})
			for r := 0; r < 8; r++ {
				h := fabric.HCA{Name: fabric.HCAName(node, fmt.Sprintf("mlx5_%d", r)), Node: node, Device: fmt.Sprintf("mlx5_%d", r), Rail: -1}
				s.HCAs = append(s.HCAs, h)
				s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: h.Name, Port: 1}, B: fabric.End{Device: leaf, Port: 8*n + r + 1}})
			}
		}
		for u := 0; u < up; u++ {
			s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: leaf, Port: 33 + u}, B: fabric.End{Device: "spine01", Port: (l-1)*up + u + 1}})
		}
	}
	return s
}

// TestBisectionMessageCounts: the bisection message says how many endpoints sit behind the
// switches it names, counted on the graph independently (HCAs cabled to those switches), and
// prints a proved ratio exactly, never rounded up.
func TestBisectionMessageCounts(t *testing.T) {
	g, probs := fabric.Build(threeLeaves(8), catalog.Default())
	if fabric.HasErrors(probs) {
		t.Fatal(probs)
	}
	r := analysis.Analyze(g, nil)
	if len(r.Cut.MovedEndpoints) == 0 {
		t.Fatalf("the witness moves no endpoint; the test needs a fabric where it does: %+v", r.Cut)
	}
	behind := map[string]int{}
	for _, l := range g.Links {
		a, b := &g.Devices[l.A], &g.Devices[l.B]
		if a.Kind == fabric.KindHCA {
			behind[b.Name]++
		} else if b.Kind == fabric.KindHCA {
			behind[a.Name]++
		}
	}
	vs := Evaluate(g, r, Policy{Preset: PresetTrainingLarge}, nil)
	var msg string
	for _, v := range vs {
		if v.Rule == RuleBisection {
			msg = v.Message
		}
	}
	if msg == "" {
		t.Fatalf("no bisection violation: %v", vs)
	}
	// "N endpoints behind k switches (names)", "N endpoints: all K behind ...", "N endpoints: K of
	// the T behind ... [and M from the other side's switches]".
	re := regexp.MustCompile(`(\d+) endpoints(?:: (?:all (\d+)|(\d+) of the (\d+)))? behind \d+ switch(?:es)? \(([^)]*)\)(?: and (\d+) from)?`)
	sides := re.FindAllStringSubmatch(msg, -1)
	if len(sides) != 2 {
		t.Fatalf("message names %d sides: %s", len(sides), msg)
	}
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for _, sd := range sides {
		total, kept, onSide := atoi(sd[1]), atoi(sd[1]), atoi(sd[1])
		switch {
		case sd[2] != "":
			total, kept = atoi(sd[2]), atoi(sd[2])
		case sd[3] != "":
			kept, total = atoi(sd[3]), atoi(sd[4])
		}
		in := atoi(sd[6])
		names := strings.Split(sd[5], ", ")
		want, out := 0, 0
		for _, sw := range names {
			want += behind[sw]
		}
		for _, e := range r.Cut.MovedEndpoints {
			d := mustLookup(t, g, e)
			for _, l := range g.LinksOf(d) {
				for _, sw := range names {
					if g.Devices[g.Links[l].Other(d)].Name == sw {
						out++
					}
				}
			}
		}
		if total != want || kept != want-out || onSide != kept+in {
			t.Errorf("side %q: says %d behind (%d kept, %d from the other side); the graph has %d behind %s, %d of them placed across:\n%s",
				sd[0], total, kept, in, want, sd[5], out, msg)
		}
	}
	// The proved ratio printed exactly: 24 uplinks of 400 Gb/s against 96 endpoints.
	if want := fmt.Sprintf("ratio is %s ", strconv.FormatFloat(r.BisectionRatio, 'f', -1, 64)); !strings.Contains(msg, want) {
		t.Errorf("message lacks %q:\n%s", want, msg)
	}
}

func mustLookup(t *testing.T, g *fabric.Graph, name string) int32 {
	t.Helper()
	d, ok := g.Lookup(name)
	if !ok {
		t.Fatalf("no device %s", name)
	}
	return d
}

// TestProvedRatioNotRoundedUp: 12,400 of 12,800 Gb/s is 0.96875, printed so; three decimals
// would round it up to 0.969, more than is proved.
func TestProvedRatioNotRoundedUp(t *testing.T) {
	r := twoTier(4, 2, 16, 16) // 64 endpoints, 12,800 Gb/s full bisection
	r.BisectionLowerGbps, r.BisectionUpperGbps, r.BisectionRatio = 12400, 12400, 0.96875
	r.Cut.CapacityGbps = 12400
	v := only(t, Evaluate(nil, r, Policy{Preset: PresetTrainingLarge}, nil), "bisection/error")[0]
	if !strings.Contains(v.Message, "ratio is 0.96875 (12400 Gb/s of 12800 Gb/s full bisection)") || v.Measured != "0.96875" {
		t.Errorf("message %q, measured %q", v.Message, v.Measured)
	}
}
