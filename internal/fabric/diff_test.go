package fabric

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// diffSpec is a two-tier fabric of `nodes` DGX H100 (rails 0-3 on leaf01, 4-7 on leaf02, as in
// examples/clusters/small) with 4*nodes uplinks per leaf to spine01.
func diffSpec(nodes int) *Spec {
	s := &Spec{Switches: []Switch{{Name: "leaf01", Model: "QM9700"}, {Name: "leaf02", Model: "QM9700"}, {Name: "spine01", Model: "QM9700"}}}
	for n := 0; n < nodes; n++ {
		node := fmt.Sprintf("gpu%03d", n+1)
		s.Nodes = append(s.Nodes, Node{Name: node, Model: "DGX-H100"})
		for r := 0; r < 8; r++ {
			dev := fmt.Sprintf("mlx5_%d", r)
			s.HCAs = append(s.HCAs, HCA{Name: HCAName(node, dev), Node: node, Device: dev, Rail: r})
			leaf := "leaf01"
			if r >= 4 {
				leaf = "leaf02"
			}
			s.Cables = append(s.Cables, Cable{A: End{leaf, n*4 + r%4 + 1}, B: End{HCAName(node, dev), 1}})
		}
	}
	for l, leaf := range []string{"leaf01", "leaf02"} {
		for p := 0; p < 4*nodes; p++ {
			s.Cables = append(s.Cables, Cable{A: End{leaf, 33 + p}, B: End{"spine01", l*32 + p + 1}})
		}
	}
	return s
}

func build(t *testing.T, s *Spec) *Graph {
	t.Helper()
	g, ps := Build(s, catalog.Default())
	if HasErrors(ps) {
		t.Fatalf("unexpected problems: %v", ps)
	}
	return g
}

func tierOf(d Diff, tier string) TierChange {
	for _, c := range d.Links {
		if c.Tier == tier {
			return c
		}
	}
	return TierChange{Tier: tier}
}

func TestCompareSameWiringIsNoChange(t *testing.T) {
	a := diffSpec(4)
	b := diffSpec(4)
	// The same links declared in reverse order, with their ends swapped.
	for i, j := 0, len(b.Cables)-1; i < j; i, j = i+1, j-1 {
		b.Cables[i], b.Cables[j] = b.Cables[j], b.Cables[i]
	}
	for i := range b.Cables {
		b.Cables[i].A, b.Cables[i].B = b.Cables[i].B, b.Cables[i].A
	}
	if d := Compare(build(t, a), build(t, b)); !d.Empty() {
		t.Errorf("same wiring: %+v", d)
	}
}

// Two HCAs of one node swap their leaf ports: two rewired node-leaf links, nothing added or
// removed, the HCA end named as the end that stayed.
func TestCompareTwoCableRewire(t *testing.T) {
	prior := build(t, diffSpec(4))
	s := diffSpec(4)
	s.Cables[0].A.Port, s.Cables[1].A.Port = 2, 1 // gpu001/mlx5_0 -> leaf01:2, mlx5_1 -> leaf01:1
	d := Compare(prior, build(t, s))
	if len(d.Devices) != 0 {
		t.Errorf("devices changed: %+v", d.Devices)
	}
	want := []TierChange{{Tier: "node-leaf", Rewired: 2, RewiredExamples: []string{
		"gpu001/mlx5_0:1 leaf01:1 -> leaf01:2", "gpu001/mlx5_1:1 leaf01:2 -> leaf01:1",
	}}}
	if !reflect.DeepEqual(d.Links, want) {
		t.Errorf("links = %+v, want %+v", d.Links, want)
	}
	if a, r, w := d.LinkTotals(); a != 0 || r != 0 || w != 2 {
		t.Errorf("totals %d %d %d", a, r, w)
	}
}

// An uplink moved to another spine port keeps its leaf end; an uplink unplugged is removed.
func TestCompareUplinkMovedAndRemoved(t *testing.T) {
	prior := build(t, diffSpec(2))
	s := diffSpec(2)
	last := len(s.Cables) - 1
	s.Cables[last].B.Port = 64            // leaf02:40 from spine01:40 to spine01:64
	s.Cables = s.Cables[:len(s.Cables)-2] // ... and then it, with leaf02:39, is unplugged
	s.Cables = append(s.Cables, Cable{A: End{"leaf02", 40}, B: End{"spine01", 64}})
	d := Compare(prior, build(t, s))
	got := tierOf(d, "leaf-spine")
	if got.Rewired != 1 || got.Removed != 1 || got.Added != 0 {
		t.Fatalf("leaf-spine = %+v", got)
	}
	if got.RewiredExamples[0] != "leaf02:40 spine01:40 -> spine01:64" || got.RemovedExamples[0] != "leaf02:39 - spine01:39" {
		t.Errorf("examples %q %q", got.RewiredExamples, got.RemovedExamples)
	}
}

// Growing from 2 to 4 nodes adds nodes, HCAs and links, and names a few of them; shrinking back
// removes exactly as many.
func TestCompareExpansion(t *testing.T) {
	two, four := build(t, diffSpec(2)), build(t, diffSpec(4))
	d := Compare(two, four)
	wantDev := []DeviceChange{
		{Role: "node", Added: 2, AddedExamples: []string{"gpu003", "gpu004"}},
		{Role: "hca", Added: 16, AddedExamples: []string{"gpu003/mlx5_0", "gpu003/mlx5_1"}},
	}
	if !reflect.DeepEqual(d.Devices, wantDev) {
		t.Errorf("devices = %+v", d.Devices)
	}
	if nl, ls := tierOf(d, "node-leaf"), tierOf(d, "leaf-spine"); nl.Added != 16 || ls.Added != 16 || nl.Removed+ls.Removed+nl.Rewired+ls.Rewired != 0 {
		t.Errorf("node-leaf %+v leaf-spine %+v", nl, ls)
	}
	if a := tierOf(d, "leaf-spine").AddedExamples; len(a) != MaxExamples || a[0] != "leaf01:41 - spine01:9" {
		t.Errorf("leaf-spine examples %q", a)
	}
	back := Compare(four, two)
	if a, r, w := back.LinkTotals(); a != 0 || r != 32 || w != 0 || back.Devices[1].Removed != 16 {
		t.Errorf("shrink: %d %d %d %+v", a, r, w, back.Devices)
	}
}

// A create compares with nothing: every device and link is added; a 3-tier fabric names its
// spine-core tier.
func TestCompareCreateAndTiers(t *testing.T) {
	s := &Spec{Switches: []Switch{{Name: "leaf", Model: "QM9700"}, {Name: "spine", Model: "QM9700"}, {Name: "core", Model: "QM9700"}},
		Nodes: []Node{{Name: "n1", Model: "DGX-H100"}}, HCAs: []HCA{{Name: "n1/mlx5_0", Node: "n1", Device: "mlx5_0", Rail: -1}},
		Cables: []Cable{{A: End{"n1/mlx5_0", 1}, B: End{"leaf", 1}}, {A: End{"spine", 1}, B: End{"leaf", 2}}, {A: End{"spine", 2}, B: End{"core", 1}}}}
	d := Compare(nil, build(t, s))
	var tiers []string
	for _, c := range d.Links {
		tiers = append(tiers, c.Tier)
		if c.Added != 1 {
			t.Errorf("%s added %d", c.Tier, c.Added)
		}
	}
	if want := []string{"node-leaf", "leaf-spine", "spine-core"}; !reflect.DeepEqual(tiers, want) {
		t.Errorf("tiers %q, want %q", tiers, want)
	}
	var roles []string
	for _, c := range d.Devices {
		roles = append(roles, c.Role)
	}
	if want := []string{"node", "hca", "leaf", "spine", "core"}; !reflect.DeepEqual(roles, want) {
		t.Errorf("roles %q, want %q", roles, want)
	}
	if !Compare(nil, nil).Empty() {
		t.Error("nil to nil is not empty")
	}
}

// At 16,384 endpoints the diff stays small: counts and at most MaxExamples names per count.
func TestCompareStaysShort(t *testing.T) {
	big := &Spec{}
	for l := 0; l < 256; l++ {
		big.Switches = append(big.Switches, Switch{Name: fmt.Sprintf("leaf%03d", l), Model: "QM9700"})
	}
	for h := 0; h < 256*64; h++ {
		name := fmt.Sprintf("h%05d", h)
		big.Nodes = append(big.Nodes, Node{Name: name, Model: "DGX-H100", ComputeHCAs: 1})
		big.HCAs = append(big.HCAs, HCA{Name: name + "/mlx5_0", Node: name, Device: "mlx5_0", Rail: -1})
		big.Cables = append(big.Cables, Cable{A: End{name + "/mlx5_0", 1}, B: End{fmt.Sprintf("leaf%03d", h/64), h%64 + 1}})
	}
	// 256 disconnected leaves: Build reports that, but the graph holds every link.
	g, _ := Build(big, catalog.Default())
	d := Compare(nil, g)
	for _, c := range d.Devices {
		if len(c.AddedExamples) > MaxExamples {
			t.Errorf("%s: %d examples", c.Role, len(c.AddedExamples))
		}
	}
	if nl := tierOf(d, "node-leaf"); nl.Added != 16384 || len(nl.AddedExamples) != MaxExamples {
		t.Errorf("node-leaf %+v", nl)
	}
}
