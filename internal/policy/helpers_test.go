package policy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
)

const rate = 400.0

func f64(v float64) *float64 { return &v }
func intp(v int) *int        { return &v }

// twoTier builds by hand the analysis of a 2-tier fat tree of QM9700s: every leaf has `down`
// endpoint ports and `up` uplinks spread evenly over the spines. It stands in for
// analysis.Analyze, which this package codes against only through the Result type.
func twoTier(leaves, spines, down, up int) analysis.Result {
	r := analysis.Result{
		Endpoints:        leaves * down,
		Switches:         leaves + spines,
		Links:            leaves*down + leaves*up,
		Tiers:            2,
		PortRateGbps:     rate,
		Oversubscription: map[string]float64{},
		Worst:            map[string]analysis.SwitchLoad{},
		MaxSwitchHops:    2,
		HopsWitness:      [2]string{"gpu001/mlx5_0", fmt.Sprintf("gpu%03d/mlx5_0", leaves*down/8)},
	}
	for i := 1; i <= leaves; i++ {
		s := analysis.SwitchLoad{Name: fmt.Sprintf("leaf%02d", i), Role: "leaf", Tier: "leaf", Level: 1,
			Ports: 64, UsedPorts: down + up, FreePorts: 64 - down - up,
			DownGbps: float64(down) * rate, UpGbps: float64(up) * rate, Oversubscription: float64(down) / float64(up)}
		r.PerSwitch = append(r.PerSwitch, s)
	}
	perSpine := leaves * up / spines
	for i := 1; i <= spines; i++ {
		r.PerSwitch = append(r.PerSwitch, analysis.SwitchLoad{Name: fmt.Sprintf("spine%02d", i), Role: "spine", Tier: "spine", Level: 2,
			Ports: 64, UsedPorts: perSpine, FreePorts: 64 - perSpine, DownGbps: float64(perSpine) * rate})
	}
	refresh(&r)
	full := float64(r.Endpoints) / 2 * rate
	cut := float64(leaves*up) / 2 * rate
	if cut > full {
		cut = full
	}
	r.FullBisectionGbps, r.BisectionLowerGbps, r.BisectionUpperGbps = full, cut, cut
	r.BisectionRatio = cut / full
	var a, b []string
	for i := 1; i <= leaves; i++ {
		if i <= leaves/2 {
			a = append(a, fmt.Sprintf("leaf%02d", i))
		} else {
			b = append(b, fmt.Sprintf("leaf%02d", i))
		}
	}
	r.Cut = analysis.Cut{CapacityGbps: cut, SwitchesA: a, SwitchesB: b, EndpointsA: r.Endpoints / 2,
		EndpointsB: r.Endpoints - r.Endpoints/2, CrossingLinks: leaves * up / 2, Method: "pod split"}
	return r
}

// refresh recomputes the per-tier figures from PerSwitch, as the analysis does: the worst ratio
// of each tier whose switches have links up, and its witness.
func refresh(r *analysis.Result) {
	r.Oversubscription = map[string]float64{}
	r.Worst = map[string]analysis.SwitchLoad{}
	r.MaxOversubscription = 0
	for _, s := range r.PerSwitch {
		if s.UpGbps == 0 {
			continue
		}
		if w, ok := r.Worst[s.Tier]; !ok || s.Oversubscription > w.Oversubscription {
			r.Worst[s.Tier] = s
			r.Oversubscription[s.Tier] = s.Oversubscription
		}
		if s.Oversubscription > r.MaxOversubscription {
			r.MaxOversubscription = s.Oversubscription
		}
	}
}

// setLeaf changes one leaf's port split.
func setLeaf(r *analysis.Result, name string, down, up int) {
	for i := range r.PerSwitch {
		s := &r.PerSwitch[i]
		if s.Name == name {
			s.DownGbps, s.UpGbps = float64(down)*rate, float64(up)*rate
			s.UsedPorts, s.FreePorts = down+up, s.Ports-down-up
			s.Oversubscription = float64(down) / float64(up)
		}
	}
	refresh(r)
}

// only asserts that exactly the given rules fired (in order) and returns the violations.
func only(t *testing.T, vs []Violation, rules ...string) []Violation {
	t.Helper()
	var got []string
	for _, v := range vs {
		got = append(got, v.Rule+"/"+string(v.Severity))
	}
	if strings.Join(got, " ") != strings.Join(rules, " ") {
		t.Fatalf("violations = %v, want %v\n%s", got, rules, dump(vs))
	}
	return vs
}

func dump(vs []Violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "  [%s %s] %s\n", v.Rule, v.Severity, v.Message)
	}
	return b.String()
}

func contains(t *testing.T, s string, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(s, p) {
			t.Errorf("message lacks %q:\n%s", p, s)
		}
	}
}
