package policy

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
)

func TestTrainingLarge(t *testing.T) {
	p := Policy{Preset: PresetTrainingLarge}

	t.Run("non-blocking fat tree passes", func(t *testing.T) {
		only(t, Evaluate(nil, twoTier(8, 8, 32, 32), p, nil))
	})

	t.Run("one leaf short of uplinks", func(t *testing.T) {
		r := twoTier(8, 8, 32, 32)
		setLeaf(&r, "leaf03", 32, 24)
		v := only(t, Evaluate(nil, r, p, nil), "oversubscription/error")[0]
		want := "oversubscription: tier leaf is 1.33:1 at leaf03 (32 x 400 Gb/s down, 24 x 400 Gb/s up); training-large allows at most 1:1. " +
			"Nearest settings that pass: policy.tier_limits.leaf = 1.3334 (tier leaf alone; the rest of training-large stays; 4/3 rounded up), " +
			"or policy.max_oversubscription = 1.3334 (every tier; 4/3 rounded up); or, at 1:1, leaf03 needs 32 uplinks of 400 Gb/s (8 more; it has 8 free ports)"
		if v.Message != want {
			t.Errorf("message\n got %s\nwant %s", v.Message, want)
		}
		if v.Measured != "1.33:1" || v.Required != "at most 1:1" || v.Witness != "leaf03" {
			t.Errorf("parts = %q %q %q", v.Measured, v.Required, v.Witness)
		}
	})

	t.Run("every leaf short: all listed, bisection refuted by the cut", func(t *testing.T) {
		vs := only(t, Evaluate(nil, twoTier(8, 8, 32, 24), p, nil), "oversubscription/error", "bisection/error")
		want := "oversubscription: tier leaf is 1.33:1 at leaf01 (32 x 400 Gb/s down, 24 x 400 Gb/s up); " +
			"8 of 8 leaf switches are above 1:1: leaf01, leaf02, leaf03, leaf04, leaf05 and 3 more; training-large allows at most 1:1. " +
			"Nearest settings that pass: policy.tier_limits.leaf = 1.3334 (tier leaf alone; the rest of training-large stays; 4/3 rounded up), " +
			"or policy.max_oversubscription = 1.3334 (every tier; 4/3 rounded up); or, at 1:1, leaf01 needs 32 uplinks of 400 Gb/s (8 more; it has 8 free ports)"
		if vs[0].Message != want {
			t.Errorf("message\n got %s\nwant %s", vs[0].Message, want)
		}
		if vs[0].Witness != "leaf01, leaf02, leaf03, leaf04, leaf05 and 3 more (8 of 8 leaf switches)" {
			t.Errorf("witness = %q", vs[0].Witness)
		}
		want = "bisection: ratio is 0.75 (38400 Gb/s of 51200 Gb/s full bisection); training-large requires at least 1 (51200 Gb/s). " +
			"Witness: a balanced cut (pod split) of 38400 Gb/s across 96 links, between 128 endpoints behind 4 switches " +
			"(leaf01, leaf02, leaf03, leaf04) and 128 endpoints behind 4 switches (leaf05, leaf06, leaf07, leaf08). " +
			"Nearest setting that passes: policy.min_bisection_ratio = 0.75 (the proved ratio)"
		if vs[1].Message != want {
			t.Errorf("message\n got %s\nwant %s", vs[1].Message, want)
		}
		if vs[1].Measured != "0.75" || vs[1].Required != "at least 1" || !strings.Contains(vs[1].Witness, "leaf05") {
			t.Errorf("parts = %q %q %q", vs[1].Measured, vs[1].Required, vs[1].Witness)
		}
	})

	t.Run("a proved ratio is printed as the analysis has it, never rounded up", func(t *testing.T) {
		r := twoTier(2, 1, 32, 32)
		r.BisectionLowerGbps, r.BisectionUpperGbps, r.Cut.CapacityGbps = 12400, 12400, 12400
		r.BisectionRatio = 0.96875 // 31/32: 12,400 of 12,800 Gb/s
		v := only(t, Evaluate(nil, r, p, nil), "bisection/error", "spine-headroom/warning")[0]
		contains(t, v.Message, "ratio is 0.96875 (12400 Gb/s of 12800 Gb/s full bisection)")
		if v.Measured != "0.96875" {
			t.Errorf("measured %q", v.Measured)
		}
	})

	t.Run("bisection not proved is still a violation", func(t *testing.T) {
		r := twoTier(8, 8, 32, 32)
		r.BisectionLowerGbps = 0.9 * r.FullBisectionGbps
		r.BisectionRatio = 0.9
		v := only(t, Evaluate(nil, r, p, nil), "bisection/error")[0]
		contains(t, v.Message, "a ratio of at least 1 is not proved", "lower bound is 0.9 (46080 Gb/s of 51200 Gb/s",
			"smallest balanced cut found is 1 (51200 Gb/s)", "training-large requires a proved 1", "leaf01")
	})

	t.Run("a tolerance for float sums", func(t *testing.T) {
		r := twoTier(8, 8, 32, 32)
		r.PerSwitch[0].Oversubscription = 1 + 1e-12
		refresh(&r)
		only(t, Evaluate(nil, r, p, nil))
	})

	t.Run("barely over prints enough digits", func(t *testing.T) {
		r := twoTier(8, 8, 32, 32)
		r.PerSwitch[0].Oversubscription = 1.001
		refresh(&r)
		v := only(t, Evaluate(nil, r, p, nil), "oversubscription/error")[0]
		if v.Measured != "1.001:1" {
			t.Errorf("measured = %q", v.Measured)
		}
	})
}

// threeTier adds a core layer above twoTier(8, 8, 32, 16): each spine sends `spineUp` of its 16
// leaf-facing links' worth up to 4 cores.
func threeTier(spineUp int) analysis.Result {
	r := twoTier(8, 8, 32, 16)
	r.Tiers = 3
	for i := range r.PerSwitch {
		s := &r.PerSwitch[i]
		if s.Tier == "spine" {
			s.UpGbps = float64(spineUp) * rate
			s.UsedPorts += spineUp
			s.FreePorts -= spineUp
			s.Oversubscription = s.DownGbps / s.UpGbps
		}
	}
	perCore := 8 * spineUp / 4
	for _, n := range []string{"core01", "core02", "core03", "core04"} {
		r.PerSwitch = append(r.PerSwitch, analysis.SwitchLoad{Name: n, Role: "core", Tier: "core", Level: 3,
			Ports: 64, UsedPorts: perCore, FreePorts: 64 - perCore, DownGbps: float64(perCore) * rate})
	}
	r.MaxSwitchHops = 4
	refresh(&r)
	return r
}

func TestTrainingSmall(t *testing.T) {
	p := Policy{Preset: PresetTrainingSmall}
	t.Run("2:1 leaf passes", func(t *testing.T) {
		only(t, Evaluate(nil, twoTier(8, 8, 32, 16), p, nil))
	})
	t.Run("3:1 leaf fails", func(t *testing.T) {
		v := only(t, Evaluate(nil, twoTier(8, 8, 36, 12), p, nil), "oversubscription/error")[0]
		contains(t, v.Message, "tier leaf is 3:1 at leaf01 (36 x 400 Gb/s down, 12 x 400 Gb/s up)", "8 of 8 leaf switches are above 2:1",
			"training-small allows at most 2:1")
	})
	t.Run("above the leaf 1:1", func(t *testing.T) {
		only(t, Evaluate(nil, threeTier(16), p, nil))
		v := only(t, Evaluate(nil, threeTier(8), p, nil), "oversubscription/error")[0]
		want := "oversubscription: tier spine is 2:1 at spine01 (16 x 400 Gb/s down, 8 x 400 Gb/s up); " +
			"8 of 8 spine switches are above 1:1: spine01, spine02, spine03, spine04, spine05 and 3 more; training-small allows at most 1:1. " +
			"Nearest settings that pass: policy.tier_limits.spine = 2 (tier spine alone; the rest of training-small stays), " +
			"or policy.max_oversubscription = 2 (every tier: the highest of leaf, spine); or, at 1:1, spine01 needs 16 uplinks of 400 Gb/s (8 more; it has 40 free ports)"
		if v.Message != want {
			t.Errorf("message\n got %s\nwant %s", v.Message, want)
		}
	})
}

func TestInference(t *testing.T) {
	p := Policy{Preset: PresetInference}
	only(t, Evaluate(nil, twoTier(8, 8, 40, 4), p, nil))
	v := only(t, Evaluate(nil, twoTier(8, 8, 44, 4), p, nil), "oversubscription/error")[0]
	contains(t, v.Message, "tier leaf is 11:1", "44 x 400 Gb/s down, 4 x 400 Gb/s up", "inference allows at most 10:1")
}

// dragonfly builds a dragonfly+ analysis: two groups of 4 leaves and 4 spines; the group tier's
// witness is the group (as the analysis reports it), not a single switch.
func dragonfly(groupRatio float64, hops int) analysis.Result {
	r := twoTier(8, 8, 32, 32)
	for i := range r.PerSwitch {
		s := &r.PerSwitch[i]
		s.Group = "a"
		if (s.Tier == "leaf" && i >= 4) || (s.Tier == "spine" && i >= 12) {
			s.Group = "b"
		}
	}
	r.Oversubscription["group"] = groupRatio
	// As analysis reports it: the group's name in Name and Group, Role "group".
	r.Worst["group"] = analysis.SwitchLoad{Name: "a", Role: "group", Tier: "group", Group: "a", DownGbps: 128 * rate,
		UpGbps: 128 / groupRatio * rate, LateralGbps: 64 * rate, Oversubscription: groupRatio}
	r.MaxSwitchHops = hops
	r.HopsWitness = [2]string{"gpu001/mlx5_0", "gpu032/mlx5_7"}
	return r
}

func TestDragonflyPlus(t *testing.T) {
	p := Policy{Preset: PresetDragonflyPlus}
	t.Run("2:1 groups, 3 hops pass", func(t *testing.T) {
		only(t, Evaluate(nil, dragonfly(2, 3), p, nil))
	})
	t.Run("4:1 group fails with the group as witness", func(t *testing.T) {
		v := only(t, Evaluate(nil, dragonfly(4, 3), p, nil), "oversubscription/error")[0]
		want := "oversubscription: tier group is 4:1 at group a (128 x 400 Gb/s from endpoints, 32 x 400 Gb/s of global links); dragonfly-plus allows at most 2:1. " +
			"Nearest settings that pass: policy.tier_limits.group = 4 (tier group alone; the rest of dragonfly-plus stays), " +
			"or policy.max_oversubscription = 4 (every tier: the highest of leaf, group)"
		if v.Message != want {
			t.Errorf("message\n got %s\nwant %s", v.Message, want)
		}
		if v.Witness != "group a" || v.Measured != "4:1" || v.Required != "at most 2:1" {
			t.Errorf("parts = %q %q %q", v.Measured, v.Required, v.Witness)
		}
	})
	t.Run("5 hops fail with the endpoints", func(t *testing.T) {
		v := only(t, Evaluate(nil, dragonfly(2, 5), p, nil), "switch-hops/error")[0]
		want := "switch-hops: the worst shortest path takes 5 switch-to-switch hops (gpu001/mlx5_0 to gpu032/mlx5_7); dragonfly-plus allows at most 3"
		if v.Message != want {
			t.Errorf("message\n got %s\nwant %s", v.Message, want)
		}
		if v.Measured != "5" || v.Required != "at most 3" || v.Witness != "gpu001/mlx5_0 to gpu032/mlx5_7" {
			t.Errorf("parts = %q %q %q", v.Measured, v.Required, v.Witness)
		}
	})
	t.Run("no groups declared: the group limit is not silently passed", func(t *testing.T) {
		v := only(t, Evaluate(nil, twoTier(8, 8, 32, 32), p, nil), "oversubscription/warning")[0]
		contains(t, v.Message, "dragonfly-plus limits tier group to 2:1", "no switch declares a dragonfly group")
	})
}

func TestOverridePrecedence(t *testing.T) {
	cases := []struct {
		name string
		r    analysis.Result
		p    Policy
		want []string // rules fired
		msg  string   // part of the first message
	}{
		{"max_oversubscription loosens the preset", twoTier(8, 8, 32, 24),
			Policy{Preset: PresetTrainingLarge, MaxOversubscription: f64(1.5), MinBisectionRatio: f64(0.75)}, nil, ""},
		{"min_bisection_ratio overrides the preset", twoTier(8, 8, 32, 24),
			Policy{Preset: PresetTrainingLarge, MaxOversubscription: f64(1.5), MinBisectionRatio: f64(0.8)},
			[]string{"bisection/error"}, "policy.min_bisection_ratio requires at least 0.8 (40960 Gb/s)"},
		{"max_oversubscription tightens the preset's leaf", twoTier(8, 8, 32, 16),
			Policy{Preset: PresetTrainingSmall, MaxOversubscription: f64(1.5)},
			[]string{"oversubscription/error"}, "tier leaf is 2:1 at leaf01 (32 x 400 Gb/s down, 16 x 400 Gb/s up); 8 of 8 leaf switches are above 1.5:1"},
		{"tier_limits beat the preset", twoTier(8, 8, 32, 16),
			Policy{Preset: PresetTrainingSmall, TierLimits: map[string]float64{"leaf": 1.2}},
			[]string{"oversubscription/error"}, "policy.tier_limits.leaf allows at most 1.2:1"},
		{"tier_limits beat max_oversubscription", threeTier(8),
			Policy{Preset: PresetTrainingSmall, MaxOversubscription: f64(3), TierLimits: map[string]float64{"spine": 1}},
			[]string{"oversubscription/error"}, "tier spine is 2:1 at spine01"},
		{"tier_limits loosen one tier only", threeTier(8),
			Policy{Preset: PresetTrainingLarge, TierLimits: map[string]float64{"spine": 2, "leaf": 2}, MinBisectionRatio: f64(0.5)}, nil, ""},
		{"no preset, flat limit", twoTier(8, 8, 32, 24),
			Policy{MaxOversubscription: f64(1)}, []string{"oversubscription/error"}, "policy.max_oversubscription allows at most 1:1"},
		{"max_switch_hops overrides dragonfly-plus", dragonfly(2, 5),
			Policy{Preset: PresetDragonflyPlus, MaxSwitchHops: intp(5)}, nil, ""},
		{"max_switch_hops without a preset", threeTier(16),
			Policy{MaxSwitchHops: intp(2)}, []string{"switch-hops/error"}, "policy.max_switch_hops allows at most 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := only(t, Evaluate(nil, c.r, c.p, nil), c.want...)
			if c.msg != "" {
				contains(t, vs[0].Message, c.msg)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	cases := []struct {
		p    Policy
		want string
	}{
		{Policy{Preset: "training"}, `unknown policy preset "training"; valid presets: dragonfly-plus, inference, training-large, training-small`},
		{Policy{MaxOversubscription: f64(0)}, "policy.max_oversubscription must be a positive number"},
		{Policy{MaxOversubscription: f64(-1)}, "policy.max_oversubscription must be a positive number"},
		{Policy{TierLimits: map[string]float64{"spines": 1}}, `policy.tier_limits names tier "spines"; valid tiers: leaf, spine, core, group`},
		{Policy{TierLimits: map[string]float64{"leaf": -2}}, "policy.tier_limits.leaf must be a positive number"},
		{Policy{MinBisectionRatio: f64(1.5)}, "policy.min_bisection_ratio must be in (0, 1]"},
		{Policy{MaxSwitchHops: intp(-1)}, "policy.max_switch_hops must be 0 or more"},
		{Policy{SpineHeadroom: f64(1)}, "policy.spine_headroom must be in [0, 1)"},
		{Policy{MaxAllReduceSeconds: f64(0)}, "policy.max_allreduce_seconds must be a positive number"},
		{Policy{Transport: "ethernet"}, `unknown transport "ethernet"; valid transports: infiniband, roce`},
		{Policy{GPUs: -8}, "gpus must be 0 or more"},
	}
	for _, c := range cases {
		err := c.p.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err = %v, want %q", c.p, err, c.want)
		}
	}
	for _, name := range Presets() {
		if err := (Policy{Preset: name}).Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
}

// An invalid policy fails the plan, and the valid rest of it is still judged, so one run shows
// every problem.
func TestInvalidPolicyStillJudgesTheRest(t *testing.T) {
	p := Policy{Preset: "training", MaxOversubscription: f64(1)}
	vs := only(t, Evaluate(nil, twoTier(8, 8, 32, 24), p, nil), "policy/error", "oversubscription/error")
	contains(t, vs[0].Message, `policy: unknown policy preset "training"; valid presets: dragonfly-plus, inference, training-large, training-small`)
}

func TestRoCE(t *testing.T) {
	r := twoTier(8, 8, 32, 32) // 256 endpoints
	cases := []struct {
		name string
		p    Policy
		want []string
		msg  string
	}{
		{"64 GPUs with PFC", Policy{Transport: "roce", PFC: true, GPUs: 64}, nil, ""},
		{"65 GPUs", Policy{Transport: "roce", PFC: true, GPUs: 65}, []string{"roce-gpus/error"},
			`roce-gpus: transport roce (RoCEv2) is allowed only up to 64 GPUs, but this fabric has 65 GPUs; use transport = "infiniband" for a fabric of this size`},
		{"GPUs counted from endpoints", Policy{Transport: "roce", PFC: true}, []string{"roce-gpus/error"},
			"this fabric has 256 GPUs (counted as one per endpoint; set gpus to override)"},
		{"no PFC", Policy{Transport: "roce", GPUs: 16}, []string{"roce-pfc/error"},
			`roce-pfc: transport roce (RoCEv2) needs lossless Ethernet, but pfc is false; set pfc = true (priority flow control on the GPU traffic class) or use transport = "infiniband"`},
		{"both", Policy{Transport: "roce", GPUs: 128}, []string{"roce-gpus/error", "roce-pfc/error"}, "128 GPUs"},
		{"infiniband has no such limits", Policy{Transport: "infiniband", GPUs: 4096}, nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := only(t, Evaluate(nil, r, c.p, nil), c.want...)
			if c.msg != "" {
				contains(t, vs[0].Message, c.msg)
			}
		})
	}
}

func TestSpineHeadroom(t *testing.T) {
	full := twoTier(16, 8, 32, 32) // every spine port used
	t.Run("warning by default", func(t *testing.T) {
		vs := only(t, Evaluate(nil, full, Policy{Preset: PresetTrainingLarge}, nil), "spine-headroom/warning")
		want := "spine-headroom: top tier spine has 0% free ports at spine01 (0 of 64 free, 64 used); " +
			"8 of 8 spine switches are below 30%: spine01, spine02, spine03, spine04, spine05 and 3 more; " +
			"the default spine headroom (policy.spine_headroom) requires 30% free ports (20 of 64) on every top-tier switch for growth"
		if vs[0].Message != want {
			t.Errorf("message\n got %s\nwant %s", vs[0].Message, want)
		}
		if HasErrors(vs) {
			t.Error("a headroom warning must not fail the plan")
		}
	})
	t.Run("error when the policy says so", func(t *testing.T) {
		vs := only(t, Evaluate(nil, full, Policy{SpineHeadroomIsError: true}, nil), "spine-headroom/error")
		if !HasErrors(vs) {
			t.Error("HasErrors = false")
		}
	})
	t.Run("custom share", func(t *testing.T) {
		r := twoTier(8, 8, 32, 32) // 32 of 64 free
		only(t, Evaluate(nil, r, Policy{SpineHeadroom: f64(0.5)}, nil))
		r.PerSwitch[9].FreePorts, r.PerSwitch[9].UsedPorts = 30, 34
		v := only(t, Evaluate(nil, r, Policy{SpineHeadroom: f64(0.5)}, nil), "spine-headroom/warning")[0]
		want := "spine-headroom: top tier spine has 46.9% free ports at spine02 (30 of 64 free, 34 used); " +
			"policy.spine_headroom requires 50% free ports (32 of 64) on every top-tier switch for growth"
		if v.Message != want || v.Witness != "spine02" || v.Measured != "46.9% free (30 of 64 ports)" || v.Required != "at least 50% free" {
			t.Errorf("got %+v", v)
		}
	})
	t.Run("zero turns it off", func(t *testing.T) {
		only(t, Evaluate(nil, full, Policy{SpineHeadroom: f64(0)}, nil))
	})
	t.Run("top tier of a 3-tier fabric is the core", func(t *testing.T) {
		r := threeTier(16) // cores: 32 of 64 used
		only(t, Evaluate(nil, r, Policy{}, nil))
		v := only(t, Evaluate(nil, r, Policy{SpineHeadroom: f64(0.6)}, nil), "spine-headroom/warning")[0]
		contains(t, v.Message, "top tier core has 50% free ports at core01", "4 of 4 core switches")
	})
	t.Run("single switch has no spine tier", func(t *testing.T) {
		r := analysis.Result{Endpoints: 64, Switches: 1, Tiers: 1, PerSwitch: []analysis.SwitchLoad{
			{Name: "leaf01", Role: "leaf", Tier: "leaf", Level: 1, Ports: 64, UsedPorts: 64, DownGbps: 64 * rate}}}
		only(t, Evaluate(nil, r, Policy{}, nil))
	})
}

func TestAllReduce(t *testing.T) {
	r := twoTier(8, 8, 32, 32)
	p := Policy{MaxAllReduceSeconds: f64(1)}
	t.Run("no workload is an error, not a pass", func(t *testing.T) {
		v := only(t, Evaluate(nil, r, p, nil), "allreduce-time/error")[0]
		contains(t, v.Message, "policy.max_allreduce_seconds is 1 s but the fabric has no workload", "set workload")
	})
	r.AllReduce = &analysis.AllReduce{RingSeconds: 2, HierarchicalSeconds: 1.5, BottleneckGbps: 200}
	t.Run("too slow", func(t *testing.T) {
		v := only(t, Evaluate(nil, r, p, nil), "allreduce-time/error")[0]
		want := "allreduce-time: the estimated gradient all-reduce takes 1.5 s (hierarchical; ring 2 s, hierarchical 1.5 s, " +
			"200 Gb/s per GPU at the bottleneck); policy.max_allreduce_seconds allows at most 1 s"
		if v.Message != want {
			t.Errorf("message\n got %s\nwant %s", v.Message, want)
		}
	})
	t.Run("fast enough", func(t *testing.T) {
		only(t, Evaluate(nil, r, Policy{MaxAllReduceSeconds: f64(1.5)}, nil))
	})
}

// Violations come in a fixed order, and the same inputs give the same output.
func TestOrderAndDeterminism(t *testing.T) {
	r := threeTier(4) // spines 4:1
	setLeaf(&r, "leaf02", 40, 8)
	r.MaxSwitchHops = 6
	r.BisectionRatio, r.BisectionLowerGbps = 0.5, r.FullBisectionGbps/2
	for i := range r.PerSwitch {
		if r.PerSwitch[i].Tier == "core" {
			r.PerSwitch[i].FreePorts, r.PerSwitch[i].UsedPorts = 0, 64
		}
	}
	rules, err := ParseRules("p.hcl", []byte(`
rule "z-first-declared" {
  condition     = analysis.tiers == 2
  error_message = "two tiers"
}
rule "a-second" {
  condition     = analysis.endpoints < 10
  error_message = "small"
}`))
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Preset: "bogus", MaxOversubscription: f64(1), MinBisectionRatio: f64(1), MaxSwitchHops: intp(4), Transport: "roce", GPUs: 256}
	first := Evaluate(nil, r, p, rules)
	only(t, first, "policy/error", "roce-gpus/error", "roce-pfc/error", "oversubscription/error", "oversubscription/error",
		"bisection/error", "switch-hops/error", "spine-headroom/warning", "z-first-declared/error", "a-second/error")
	if !strings.Contains(first[3].Message, "tier leaf") || !strings.Contains(first[4].Message, "tier spine") {
		t.Errorf("tiers not bottom up:\n%s", dump(first))
	}
	for i := 0; i < 5; i++ {
		if again := Evaluate(nil, r, p, rules); !reflect.DeepEqual(first, again) {
			t.Fatalf("run %d differs:\n%s\nvs\n%s", i, dump(first), dump(again))
		}
	}
}
