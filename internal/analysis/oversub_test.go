package analysis

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Down, up and lateral capacity; a switch without links up has no ratio. (A loopback cable is
// refused by fabric.Build, so none reaches the analysis.)
func TestOversubscriptionPerSwitch(t *testing.T) {
	b := newSpecBuilder()
	b.sw("leaf1", "", "")
	b.sw("leaf2", "", "")
	b.sw("spine1", "", "")
	for i := 0; i < 6; i++ {
		b.cable(b.hca(), "leaf1")
	}
	b.cable(b.hca(), "leaf2")
	b.cable("leaf1", "spine1")
	b.cable("leaf1", "spine1")
	b.cable("leaf1", "leaf2") // lateral
	b.cable("leaf2", "spine1")
	_, r := analyze(t, &b.spec)
	by := map[string]SwitchLoad{}
	for _, s := range r.PerSwitch {
		by[s.Name] = s
	}
	l1, l2, sp := by["leaf1"], by["leaf2"], by["spine1"]
	if l1.DownGbps != 6*B || l1.UpGbps != 2*B || l1.LateralGbps != B || l1.Oversubscription != 3 || l1.UsedPorts != 9 || l1.FreePorts != 55 || l1.Tier != "leaf" || l1.Level != 1 {
		t.Errorf("leaf1 %+v", l1)
	}
	if l2.Oversubscription != 1 {
		t.Errorf("leaf2 %+v", l2)
	}
	if sp.DownGbps != 3*B || sp.UpGbps != 0 || sp.LateralGbps != 0 || sp.UsedPorts != 3 || sp.Oversubscription != 0 || sp.Role != "spine" {
		t.Errorf("spine1 %+v", sp)
	}
	if r.Oversubscription["leaf"] != 3 || r.Worst["leaf"].Name != "leaf1" || len(r.Oversubscription) != 1 || r.MaxOversubscription != 3 {
		t.Errorf("tiers %v worst %v", r.Oversubscription, r.Worst)
	}
}

// Three tiers: the spine tier gets its own ratio and witness.
func TestOversubscriptionSpineTier(t *testing.T) {
	// Spines 32 down, 16 up: 2:1 above a non-blocking leaf tier.
	_, r := analyze(t, fatTree(treeParams{pods: 2, podLeaves: 4, podSpines: 4, hostsPerLeaf: 32, leafUp: 32, cores: 4, spineUp: 16}))
	if r.Oversubscription["leaf"] != 1 || r.Oversubscription["spine"] != 2 || r.MaxOversubscription != 2 || r.Worst["spine"].Name != "spine0001" {
		t.Errorf("tiers %v, spine witness %q", r.Oversubscription, r.Worst["spine"].Name)
	}
	// 256 endpoints, each pod of 128 has 4 x 16 links up: the pod split crosses 64 links.
	if r.BisectionUpperGbps != 64*B || r.BisectionLowerGbps != 64*B {
		t.Errorf("lower %g upper %g, want %g", r.BisectionLowerGbps, r.BisectionUpperGbps, 64*B)
	}
}

// Dragonfly+ groups: endpoint capacity over global capacity, per group, worst first in order.
func TestOversubscriptionGroups(t *testing.T) {
	_, r := analyze(t, dragonflyPlus(5, 2, 3))
	// 2 leaves x 3 endpoints = 6 per group; 4 global links each.
	if got := r.Oversubscription[TierGroup]; got != 6.0/4 {
		t.Errorf("group ratio %g, want 1.5", got)
	}
	w := r.Worst[TierGroup]
	if w.Name != "g00" || w.Group != "g00" || w.Ports != 4*64 || w.UsedPorts != 2*(3+2)+2*2+4 || w.LateralGbps != 8*B {
		t.Errorf("witness %+v", w)
	}
	// Leaves: 3 down, 2 up.
	if r.Oversubscription["leaf"] != 1.5 {
		t.Errorf("leaf ratio %g", r.Oversubscription["leaf"])
	}
}

// A torus is one tier of leaves: no tier has links up, so the oversubscription map is empty,
// also when some switches have no node yet (they are 2 or more links from an HCA, and by level
// alone would look like spines above their neighbours: issue 10).
func TestOversubscriptionTorus(t *testing.T) {
	for _, empty := range []int{0, 3} {
		b := newSpecBuilder()
		const k = 3
		name := func(x, y, z int) string { return fmt.Sprintf("sw%d%d%d", x%k, y%k, z%k) }
		for i := 0; i < k*k*k; i++ {
			b.sw(name(i%k, i/k%k, i/(k*k)), "leaf", "")
		}
		for i := 0; i < k*k*k; i++ {
			x, y, z := i%k, i/k%k, i/(k*k)
			if i < k*k*k-empty {
				for h := 0; h < 8; h++ {
					b.cable(b.hca(), name(x, y, z))
				}
			}
			b.cable(name(x, y, z), name(x+1, y, z))
			b.cable(name(x, y, z), name(x, y+1, z))
			b.cable(name(x, y, z), name(x, y, z+1))
		}
		_, r := analyze(t, &b.spec)
		if r.Tiers != 1 || len(r.Oversubscription) != 0 || r.MaxOversubscription != 0 {
			t.Errorf("%d empty switches: tiers %d, oversubscription %v (max %g); want 1 tier, none", empty, r.Tiers, r.Oversubscription, r.MaxOversubscription)
		}
	}
}

// No label lowers a measured oversubscription (issue 22): on a three-tier tree that is 2:1 at
// the leaves and 2:1 at the spines, every one of the 4^5 ways to label its five switches (unset,
// leaf, spine, core) either gets a role error from fabric.Build or gives every switch at least
// the down:up ratio it has unlabelled, the reading of the cabling alone. The one labelling the
// cabling cannot refute is left out and named: a core labelled leaf is what a leaf whose nodes
// are not cabled yet looks like (fabric.checkRoles).
func TestNoLabelLowersOversubscription(t *testing.T) {
	names := []string{"l1", "l2", "s1", "s2", "c1"}
	spec := func(roles []string) *fabric.Spec {
		b := newSpecBuilder()
		for i, n := range names {
			b.sw(n, roles[i], "")
		}
		for i := 0; i < 8; i++ {
			b.cable(b.hca(), names[i/4])
		}
		for _, l := range []string{"l1", "l2"} {
			b.cable(l, "s1")
			b.cable(l, "s2")
		}
		b.cable("s1", "c1")
		b.cable("s2", "c1")
		return &b.spec
	}
	ratios := func(r Result) map[string]float64 {
		m := map[string]float64{}
		for _, s := range r.PerSwitch {
			m[s.Name] = s.Oversubscription
		}
		return m
	}
	_, base := analyze(t, spec(make([]string, 5)))
	measured := ratios(base)
	if measured["l1"] != 2 || measured["s1"] != 2 || base.MaxOversubscription != 2 {
		t.Fatalf("unlabelled: %v (max %g); want 2:1 at leaves and spines", measured, base.MaxOversubscription)
	}
	labels := []string{"", fabric.RoleLeaf, fabric.RoleSpine, fabric.RoleCore}
	refused, passed := 0, 0
	for code := 0; code < 1<<10; code++ {
		roles := make([]string, 5)
		for i := range roles {
			roles[i] = labels[code>>(2*i)&3]
		}
		if roles[4] == fabric.RoleLeaf {
			continue // a leaf waiting for its nodes, below the spines: see above
		}
		g, ps := fabric.Build(spec(roles), catalog.Default())
		if hasRule(ps, fabric.RuleRole) {
			refused++
			continue
		}
		passed++
		r := Analyze(g, nil)
		got := ratios(r)
		for _, n := range names {
			if got[n] < measured[n] {
				t.Errorf("roles %q pass fabric.Build, yet %s reads %g:1 where the cabling gives %g:1", roles, n, got[n], measured[n])
			}
		}
		if r.MaxOversubscription < base.MaxOversubscription {
			t.Errorf("roles %q: max oversubscription %g, cabling %g", roles, r.MaxOversubscription, base.MaxOversubscription)
		}
	}
	t.Logf("%d labellings refused, %d pass with the measured ratios", refused, passed)
	if passed == 0 || refused == 0 {
		t.Errorf("refused %d, passed %d: the enumeration tests nothing", refused, passed)
	}
}

func hasRule(ps []fabric.Problem, rule string) bool {
	for _, p := range ps {
		if p.Rule == rule && p.Severity == fabric.Error {
			return true
		}
	}
	return false
}

// A gradient of more bytes than a float64 holds (issue 22: workload numbers past float range gave
// a null estimate without a word) is refused on workload.parameters; the largest that fits passes.
func TestCheckWorkloadOverflow(t *testing.T) {
	g := mustBuild(t, fatTree(treeParams{pods: 1, podLeaves: 2, podSpines: 1, hostsPerLeaf: 8, leafUp: 8}))
	var we *WorkloadError
	for _, w := range []Workload{{Parameters: 1e308, GradientBytesPerParam: 2}, {Parameters: 1e308}, {Parameters: math.MaxFloat64, GradientBytesPerParam: 8}} {
		err := CheckWorkload(g, &w)
		if !errors.As(err, &we) || we.Attribute != "parameters" || !strings.Contains(we.Reason, "more bytes than the provider computes with") {
			t.Errorf("%+v: %v", w, err)
		}
	}
	w := Workload{Parameters: math.MaxFloat64 / 2, GradientBytesPerParam: 2}
	if err := CheckWorkload(g, &w); err != nil {
		t.Errorf("%+v: %v", w, err)
	}
	if r := Analyze(g, &w); r.AllReduce == nil || math.IsInf(r.AllReduce.RingSeconds, 0) || math.IsNaN(r.AllReduce.RingSeconds) {
		t.Errorf("the largest gradient that fits: %+v", r.AllReduce)
	}
}
