package policy

import (
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
)

func TestEffectiveBisectionRule(t *testing.T) {
	p := Policy{MinEffectiveBisectionRatio: f64(0.5)}
	with := func(e *analysis.Effective) analysis.Result {
		r := twoTier(8, 8, 32, 32)
		r.Effective = e
		return r
	}

	t.Run("minhop below the limit", func(t *testing.T) {
		r := with(&analysis.Effective{RoutingEngine: "minhop", RatioMean: 0.3071, RatioP05: 0.2811, Samples: 100})
		v := only(t, Evaluate(nil, r, p, nil), "effective-bisection/error")[0]
		want := "effective-bisection: under minhop routing, random bisection patterns get 0.3071 of full bisection on average " +
			"(5th percentile 0.2811, 100 patterns), below the 0.5 that policy.min_effective_bisection_ratio requires; the capacity ratio is 1. " +
			"Static routing loses bandwidth to flows that share a link: minhop balances each switch on its own, so it depends on the cabling " +
			"(a leaf's links to one spine on consecutive ports suit it, uplinks dealt round-robin over the spines do not); " +
			"ftree spreads the destinations of every leaf over distinct uplinks whatever the cabling"
		if v.Message != want {
			t.Errorf("message\n got %s\nwant %s", v.Message, want)
		}
		if v.Measured != "0.3071" || v.Required != "at least 0.5" || v.Witness != "routing_engine minhop" {
			t.Errorf("parts = %q %q %q", v.Measured, v.Required, v.Witness)
		}
	})

	t.Run("ftree above and at the limit passes", func(t *testing.T) {
		only(t, Evaluate(nil, with(&analysis.Effective{RoutingEngine: "ftree", RatioMean: 0.6849, RatioP05: 0.6582, Samples: 100}), p, nil))
		only(t, Evaluate(nil, with(&analysis.Effective{RoutingEngine: "ftree", RatioMean: 0.5, RatioP05: 0.45, Samples: 100}), p, nil))
	})

	t.Run("no limit, no rule", func(t *testing.T) {
		only(t, Evaluate(nil, with(&analysis.Effective{RoutingEngine: "minhop", RatioMean: 0.1, RatioP05: 0.1, Samples: 100}), Policy{}, nil))
	})

	t.Run("not modelled is an error, not a pass", func(t *testing.T) {
		r := with(nil)
		r.EffectiveWhyNot = "the routes of torus-2QoS are not modelled"
		v := only(t, Evaluate(nil, r, p, nil), "effective-bisection/error")[0]
		contains(t, v.Message, "policy.min_effective_bisection_ratio requires an effective bisection ratio of at least 0.5",
			"cannot be checked: the routes of torus-2QoS are not modelled", "route with ftree, updn or minhop")
	})

	t.Run("routing unknown at plan waits for apply", func(t *testing.T) {
		r := with(nil)
		r.EffectivePending, r.EffectiveWhyNot = true, "subnet_manager is not known until apply"
		v := only(t, Evaluate(nil, r, p, nil), "effective-bisection/unknown")[0]
		contains(t, v.Message, "checked again at apply")
	})

	t.Run("a configured engine that fails is a warning", func(t *testing.T) {
		r := with(&analysis.Effective{RoutingEngine: "minhop", RatioMean: 0.6, RatioP05: 0.55, Samples: 100,
			Fallbacks: []string{"ftree: HCAs hang on switches of rank 1 and 0; every compute node must hang on the leaf rank"}})
		v := only(t, Evaluate(nil, r, Policy{}, nil), "effective-bisection/warning")[0]
		contains(t, v.Message, "the configured routing engine would fail on this fabric (ftree: HCAs hang on switches of rank 1 and 0",
			"OpenSM would route with minhop instead")
	})

	t.Run("limit out of range", func(t *testing.T) {
		v := only(t, Evaluate(nil, with(nil), Policy{MinEffectiveBisectionRatio: f64(1.5)}, nil), "policy/error")[0]
		contains(t, v.Message, "policy.min_effective_bisection_ratio must be in (0, 1]", "got 1.5")
	})
}
