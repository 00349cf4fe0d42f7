package opensm

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The simulated cluster's fabric as ibsim loads it (ExpectedTopology), with LIDs given to its
// nodes as an SM would, and one cable unplugged: every designed cable is located by GUID, labelled
// as the design labels it, up except the unplugged one.
func TestLocateCables(t *testing.T) {
	d, g := testrig.Generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2})
	net := ExpectedTopology(g)
	// Unplug leaf01:40 <-> spine01:8: drop its port lines at both ends.
	var kept []string
	for _, l := range strings.Split(net, "\n") {
		if strings.HasPrefix(l, "[40]\t\"spine01\"[8]") || strings.HasPrefix(l, "[8]\t\"leaf01\"[40]") {
			continue
		}
		kept = append(kept, l)
	}
	disc, err := ParseTopology(strings.Join(kept, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range disc.Nodes {
		disc.Nodes[i].LID = 100 + i
	}
	cables := LocateCables(g, disc)
	if len(cables) != len(d.Cables) || len(cables) != 128 {
		t.Fatalf("%d cables located, design has %d", len(cables), len(d.Cables))
	}
	lidOf := map[string]int{}
	for i, n := range disc.Nodes {
		lidOf[strings.ReplaceAll(n.Desc, " ", "/")] = 100 + i
	}
	down := 0
	for _, c := range cables {
		want, ok := d.Cables[strings.Split(c.Label, " <-> ")[0]]
		if !ok || c.Label != fmt.Sprintf("%s:%d <-> %s:%d", want.A.Device, want.A.Port, want.B.Device, want.B.Port) {
			t.Fatalf("label %q not the design's", c.Label)
		}
		if c.A.Name != fmt.Sprintf("%s:%d", want.A.Device, want.A.Port) || c.B.Name != fmt.Sprintf("%s:%d", want.B.Device, want.B.Port) {
			t.Errorf("%s: ends %s, %s", c.Label, c.A.Name, c.B.Name)
		}
		for _, e := range []CablePort{c.A, c.B} {
			dev, _, _ := strings.Cut(e.Name, ":")
			if e.LID != lidOf[dev] || e.Switch == strings.Contains(dev, "/") || e.GUID == 0 {
				t.Errorf("%s: LID %d (want %d), switch %v", e.Name, e.LID, lidOf[dev], e.Switch)
			}
		}
		if c.RateGbps != 400 {
			t.Errorf("%s at %v Gb/s", c.Label, c.RateGbps)
		}
		if !c.Up {
			down++
			if c.Label != "leaf01:40 <-> spine01:8" {
				t.Errorf("%s down", c.Label)
			}
		}
	}
	if down != 1 {
		t.Errorf("%d cables down, want 1", down)
	}

	qs := CableQueries(cables, false)
	if len(qs) != 3+64 {
		t.Fatalf("%d queries, want 3 switches + 64 HCA ports", len(qs))
	}
	byName := map[string]PerfQuery{}
	for _, q := range qs {
		byName[q.Name] = q
	}
	var ports []int
	for p := range byName["spine01"].Linked {
		ports = append(ports, p)
	}
	sort.Ints(ports)
	if len(ports) != 64 || !reflect.DeepEqual(byName["spine01"].Args, []string{"-l", fmt.Sprint(lidOf["spine01"]), "255"}) {
		t.Errorf("spine01: ports %v, args %v", ports, byName["spine01"].Args)
	}
	if q := byName["gpu001/mlx5_0:1"]; !reflect.DeepEqual(q.Args, []string{fmt.Sprint(lidOf["gpu001/mlx5_0"]), "1"}) || q.Linked != nil {
		t.Errorf("gpu001/mlx5_0:1: %+v", q)
	}
}

// Without a design, the links ibnetdiscover shows are labelled from descriptions, HCA end first;
// the 2-leaf capture's switches are unmanaged (their names are their descriptions).
func TestDiscoveredCables(t *testing.T) {
	disc, err := ParseTopology(readTestdata(t, "ibnetdiscover-2leaf.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cables := DiscoveredCables(disc)
	if len(cables) != len(disc.Links) {
		t.Fatalf("%d cables, %d links", len(cables), len(disc.Links))
	}
	for _, c := range cables {
		if !c.Up || !strings.Contains(c.Label, " <-> ") || (c.B.Switch == false && c.A.Switch) {
			t.Errorf("%+v", c)
		}
	}
	t.Logf("%s", cables[0].Label)
}

// TestEndLIDs: every end of every cable by its label, a device off the fabric at 0, and an end
// named by two cables (two discovered devices with one description) at its last cable's LID.
func TestEndLIDs(t *testing.T) {
	cables := []FabricCable{
		{Label: "leaf01:40 <-> spine01:8", A: CablePort{Name: "leaf01:40", LID: 2}, B: CablePort{Name: "spine01:8", LID: 3}},
		{Label: "leaf01:41 <-> spine02:8", A: CablePort{Name: "leaf01:41", LID: 2}, B: CablePort{Name: "spine02:8"}},
		{Label: "leaf01:40 <-> spine03:1", A: CablePort{Name: "leaf01:40", LID: 9}, B: CablePort{Name: "spine03:1", LID: 4}},
	}
	want := map[string]int{"leaf01:40": 9, "spine01:8": 3, "leaf01:41": 2, "spine02:8": 0, "spine03:1": 4}
	if got := EndLIDs(cables); !reflect.DeepEqual(got, want) {
		t.Errorf("EndLIDs = %v, want %v", got, want)
	}
}
