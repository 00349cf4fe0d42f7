package policy

import (
	"fmt"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
)

// bigFabric is the analysis of a 65,536-endpoint non-blocking 3-tier fat tree of 64-port
// switches: 2,048 leaves, 2,048 spines and 1,024 cores, 5,120 switches.
func bigFabric() analysis.Result {
	r := analysis.Result{Endpoints: 65536, Switches: 5120, Links: 65536 * 3, Tiers: 3, PortRateGbps: rate,
		FullBisectionGbps: 32768 * rate, BisectionLowerGbps: 32768 * rate, BisectionUpperGbps: 32768 * rate, BisectionRatio: 1,
		MaxSwitchHops: 4}
	add := func(prefix, tier string, level, n, down, up int) {
		for i := 1; i <= n; i++ {
			o := 0.0
			if up > 0 {
				o = float64(down) / float64(up)
			}
			r.PerSwitch = append(r.PerSwitch, analysis.SwitchLoad{Name: fmt.Sprintf("%s%04d", prefix, i), Role: tier, Tier: tier,
				Level: level, Ports: 64, UsedPorts: down + up, FreePorts: 64 - down - up,
				DownGbps: float64(down) * rate, UpGbps: float64(up) * rate, Oversubscription: o})
		}
	}
	add("leaf", "leaf", 1, 2048, 32, 32)
	add("spine", "spine", 2, 2048, 32, 32)
	add("core", "core", 3, 1024, 40, 0) // 24 of 64 free: 37.5%
	refresh(&r)
	return r
}

// The design guide's headroom rule plus a tier rule on the largest fabric the provider targets: the values are
// built once and the for expressions run over 5,120 switches (how fast: BenchmarkEvaluateLargest).
func TestScaleRulesOnLargestFabric(t *testing.T) {
	r := bigFabric()
	rules := mustParse(t, headroomRule+`
rule "core-headroom" {
  condition     = alltrue([for s in fabric.switches : s.free_ports >= 0.4 * s.ports if s.tier == "core"])
  error_message = "cores keep 40% free"
}
rule "tiers" {
  condition     = alltrue([for t in fabric.tiers : t.oversubscription <= 1])
  error_message = "non-blocking"
}`)
	vs := Evaluate(nil, r, Policy{Preset: PresetTrainingLarge}, rules)
	vs = only(t, vs, "spine-headroom/error", "core-headroom/error")
	contains(t, vs[0].Message, "Failing: 2048 of 2048: spine0001, spine0002, spine0003, spine0004, spine0005 and 2043 more.")
	contains(t, vs[1].Message, "Failing: 1024 of 1024: core0001, core0002, core0003, core0004, core0005 and 1019 more.")
}

func BenchmarkEvaluateLargest(b *testing.B) {
	r := bigFabric()
	rules, err := ParseRules("p.hcl", []byte(headroomRule))
	if err != nil {
		b.Fatal(err)
	}
	p := Policy{Preset: PresetTrainingLarge}
	b.ReportAllocs()
	for b.Loop() {
		Evaluate(nil, r, p, rules)
	}
}

func BenchmarkEvaluateBuiltinOnly(b *testing.B) {
	r := bigFabric()
	p := Policy{Preset: PresetTrainingLarge}
	b.ReportAllocs()
	for b.Loop() {
		Evaluate(nil, r, p, nil)
	}
}
