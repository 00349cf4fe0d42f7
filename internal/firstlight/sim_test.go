package firstlight

import (
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// startDesignSim loads a built fabric into ibsim (opensm.ExpectedTopology, the net file ibsim
// reads).
func startDesignSim(t *testing.T, g *fabric.Graph) *testrig.IBSim {
	t.Helper()
	return testrig.StartIBSim(t, opensm.ExpectedTopology(g))
}

// discover loads a floor spec into ibsim and reads it back as the provider reads a floor: the
// real ibnetdiscover's output through asbuilt.LoadText.
func discover(t *testing.T, floor *fabric.Spec) *asbuilt.Loaded {
	t.Helper()
	g, probs := fabric.Build(floor, catalog.Default())
	if fabric.HasErrors(probs) {
		t.Fatalf("the test floor does not build: %v", probs)
	}
	sim := startDesignSim(t, g)
	res, err := sim.Run(t, g.Devices[0].Name, 60*time.Second, "ibnetdiscover")
	if err != nil {
		t.Fatal(err)
	}
	l, err := asbuilt.LoadText(res.Stdout, "", asbuilt.ReadOptions{Simulated: true})
	if err != nil {
		t.Fatalf("reading ibnetdiscover's output: %v", err)
	}
	return l
}

// TestFaultsInIBSim: the faults of TestFaults, each cabled alone on a floor with its own names,
// GUIDs and order, loaded in ibsim and read with the real ibnetdiscover: each gives exactly its
// row; cabled right, no row and passed.
func TestFaultsInIBSim(t *testing.T) {
	testrig.RequirePeers(t)
	gen, design := smallDesign(t)
	var missing fabric.Cable
	for _, dc := range design.Cables {
		if dc.A == e("leaf04", 40) || dc.B == e("leaf04", 40) {
			missing = dc
		}
	}
	for _, c := range []struct {
		name  string
		fault func(t *testing.T, floor *fabric.Spec, rn map[string]string)
		rows  []string
	}{
		{"cabled right", func(*testing.T, *fabric.Spec, map[string]string) {}, nil},
		{"swap on one leaf", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			i, j := cableAt(t, f, e(rn["leaf03"], 1)), cableAt(t, f, e(rn["leaf03"], 2))
			setEnd(f, i, e(rn["leaf03"], 1), e(rn["leaf03"], 2))
			setEnd(f, j, e(rn["leaf03"], 2), e(rn["leaf03"], 1))
		}, []string{"swap leaf03:1 leaf03:2 swapped"}},
		{"node cable on a free port of its own leaf", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			setEnd(f, cableAt(t, f, e(rn["leaf05"], 3)), e(rn["leaf05"], 3), e(rn["leaf05"], 17))
		}, []string{"move leaf05:17 leaf05:3 miswired"}},
		{"node cable on another rail's leaf", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			setEnd(f, cableAt(t, f, e(rn["leaf02"], 4)), e(rn["leaf02"], 4), e(rn["leaf07"], 20))
		}, []string{"move leaf07:20 leaf02:4 miswired"}},
		{"missing cable", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			i := cableAt(t, f, e(rn["leaf04"], 40))
			f.Cables = append(f.Cables[:i], f.Cables[i+1:]...)
		}, []string{rowKey(Row{Action: ActPlug, Verdict: Missing, A: Where{End: missing.A.String()}, B: Where{End: missing.B.String()}})}},
		{"unexpected cable", func(t *testing.T, f *fabric.Spec, rn map[string]string) {
			f.Cables = append(f.Cables, fabric.Cable{A: e(rn["leaf06"], 9), B: e(rn["leaf08"], 11)})
		}, []string{"unplug leaf06:9 leaf08:11 unexpected"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			floor, rn := ownNames(design)
			c.fault(t, floor, rn)
			got := discover(t, floor)
			if n := len(got.Floor.Spec.Cables); n != len(floor.Cables) {
				t.Fatalf("ibnetdiscover saw %d cables of %d", n, len(floor.Cables))
			}
			r := validateFit(t, gen, design, got.Floor.Spec, Input{})
			want := append([]string(nil), c.rows...)
			sort.Strings(want)
			if k := keys(r.Rows); strings.Join(k, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s\nreport:\n%s", strings.Join(k, "\n"), strings.Join(want, "\n"), Report(r.Summary, r.Rows))
			}
			if r.Summary.Passed() != (len(want) == 0) || r.Summary.Expected != len(design.Cables) {
				t.Errorf("summary %+v", r.Summary)
			}
		})
	}
}
