package policy

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Policy is the `policy` attribute of gpucluster_fabric plus the fabric's transport settings.
// Every number is optional: nil (or empty) takes the preset's value, and a set value overrides
// the preset. Field comments give the Terraform attribute names that messages refer to, so a
// user can find what to change.
type Policy struct {
	Preset string // preset: "", "training-large", "training-small", "inference", "dragonfly-plus"

	// MaxOversubscription (max_oversubscription) is a down:up limit for every tier; it replaces
	// all of the preset's tier limits.
	MaxOversubscription *float64
	// TierLimits (tier_limits) are down:up limits per tier name (leaf, spine, core, group); they
	// override both the preset and MaxOversubscription for their tier.
	TierLimits map[string]float64
	// MinBisectionRatio (min_bisection_ratio): proved bisection / full bisection, in (0, 1].
	MinBisectionRatio *float64
	// MinEffectiveBisectionRatio (min_effective_bisection_ratio): the mean share of full
	// bisection that random bisection patterns get under the subnet manager's static routes
	// (analysis.effective_bisection.ratio_mean), in (0, 1].
	MinEffectiveBisectionRatio *float64
	// MaxSwitchHops (max_switch_hops): switch-to-switch links on the worst shortest path.
	MaxSwitchHops *int
	// SpineHeadroom (spine_headroom): the share of free ports every top-tier switch keeps for
	// growth, in [0, 1); nil means DefaultSpineHeadroom, 0 turns the rule off.
	SpineHeadroom *float64
	// SpineHeadroomIsError (spine_headroom_is_error) makes a headroom shortfall an error; it is
	// a warning otherwise, because a full spine is legal today and only blocks tomorrow.
	SpineHeadroomIsError bool
	// MaxAllReduceSeconds (max_allreduce_seconds) limits the estimated gradient all-reduce
	// time; it needs the fabric's workload.
	MaxAllReduceSeconds *float64

	// Degraded (degraded) holds the thresholds for the fabric as it runs with failed cables
	// (degraded.go); Resolve checks them, JudgeDegraded applies them.
	Degraded Degraded

	Transport string // transport: "" or "infiniband" (the default), or "roce"
	PFC       bool   // pfc: priority flow control on the RoCE fabric
	GPUs      int    // GPUs on the fabric; 0: one per endpoint (a DGX H100 has one HCA per GPU)
}

// Severity of a Violation. Unknown is for custom rules whose condition depends on values not
// known yet: the caller must not treat it as a pass but defer the check to apply.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Unknown Severity = "unknown"
)

// Preset names.
const (
	PresetTrainingLarge = "training-large"
	PresetTrainingSmall = "training-small"
	PresetInference     = "inference"
	PresetDragonflyPlus = "dragonfly-plus"
)

// Transports.
const (
	TransportInfiniBand = "infiniband"
	TransportRoCE       = "roce"
)

// Tier names that limits may name. The analysis keys its oversubscription map by these.
const (
	TierLeaf  = "leaf"
	TierSpine = "spine"
	TierCore  = "core"
	TierGroup = "group"
)

// DefaultSpineHeadroom is the share of free ports kept on the top tier when the policy says
// nothing: the origin document's rule (fabric.DefaultSpineHeadroom, which the generator's note
// reads too).
const DefaultSpineHeadroom = fabric.DefaultSpineHeadroom

// MaxRoCEGPUs is the largest fabric RoCEv2 is allowed on: beyond it, congestion control on
// lossless Ethernet is the field's known weak point and InfiniBand is the supported choice.
const MaxRoCEGPUs = 64

// preset holds the field's rules of thumb, the table of the design guide's "Policy" section.
type preset struct {
	tiers        map[string]float64 // limits of named tiers
	otherTiers   float64            // limit of every other tier; 0: none
	minBisection float64            // 0: none
	maxHops      int                // 0: none
}

var presets = map[string]preset{
	// Large models are bandwidth bound in every collective: no oversubscription anywhere and a
	// proved full bisection.
	PresetTrainingLarge: {otherTiers: 1, minBisection: 1},
	// Smaller models tolerate a 2:1 leaf (most traffic stays in the rail or the leaf) but the
	// spine layer must not add a second bottleneck.
	PresetTrainingSmall: {tiers: map[string]float64{TierLeaf: 2}, otherTiers: 1},
	PresetInference:     {otherTiers: 10},
	// Dragonfly+ trades global bandwidth for reach; minimal routing crosses at most
	// leaf-spine-spine-leaf, three switch-to-switch links.
	PresetDragonflyPlus: {tiers: map[string]float64{TierGroup: 2}, maxHops: 3},
}

// Presets returns the valid preset names, sorted.
func Presets() []string {
	out := make([]string, 0, len(presets))
	for k := range presets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Tiers returns the tier names that tier limits may name, bottom up.
func Tiers() []string { return []string{TierLeaf, TierSpine, TierCore, TierGroup} }

// Transports returns the valid transports.
func Transports() []string { return []string{TransportInfiniBand, TransportRoCE} }

// Limit is one resolved number and where it came from: a preset name ("training-large"), an
// attribute ("policy.max_oversubscription") or "default". Messages quote Source so the user
// knows which setting to change.
type Limit struct {
	Value  float64
	Source string
}

// Resolved is a Policy with the preset applied and every value checked.
type Resolved struct {
	Preset string
	// TierLimits are the limits of named tiers; OtherTiers, when set, is the limit of every tier
	// not named (for training-small: "above the leaf").
	TierLimits                 map[string]Limit
	OtherTiers                 *Limit
	MinBisectionRatio          *Limit
	MinEffectiveBisectionRatio *Limit
	MaxSwitchHops              *Limit
	SpineHeadroom              Limit // Value 0: rule off
	HeadroomSeverity           Severity
	MaxAllReduceSeconds        *Limit
	Transport                  string
	PFC                        bool
	GPUs                       int
}

// TierLimit returns the limit that applies to a tier, if any.
func (r *Resolved) TierLimit(tier string) (Limit, bool) {
	if l, ok := r.TierLimits[tier]; ok {
		return l, true
	}
	if r.OtherTiers != nil {
		return *r.OtherTiers, true
	}
	return Limit{}, false
}

// Resolve applies the preset and the overrides. Precedence, highest first: tier_limits[tier],
// max_oversubscription (every tier), the preset's limit for the tier, the preset's limit for
// other tiers. An invalid value is reported in the error and left out of the result (the preset's
// value, if any, stays), so the caller can still judge the fabric with the valid rest; the
// returned Resolved is always usable.
func (p Policy) Resolve() (Resolved, error) {
	r, errs := p.resolve()
	return r, errors.Join(errs...)
}

func (p Policy) resolve() (Resolved, []error) {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	r := Resolved{
		Preset:           p.Preset,
		TierLimits:       map[string]Limit{},
		SpineHeadroom:    Limit{Value: DefaultSpineHeadroom, Source: "default"},
		HeadroomSeverity: Warning,
		PFC:              p.PFC,
	}
	if p.Preset != "" {
		pr, ok := presets[p.Preset]
		if !ok {
			bad("unknown policy preset %q; valid presets: %s", p.Preset, strings.Join(Presets(), ", "))
		} else {
			for t, v := range pr.tiers {
				r.TierLimits[t] = Limit{v, p.Preset}
			}
			if pr.otherTiers > 0 {
				r.OtherTiers = &Limit{pr.otherTiers, p.Preset}
			}
			if pr.minBisection > 0 {
				r.MinBisectionRatio = &Limit{pr.minBisection, p.Preset}
			}
			if pr.maxHops > 0 {
				r.MaxSwitchHops = &Limit{float64(pr.maxHops), p.Preset}
			}
		}
	}

	if v := p.MaxOversubscription; v != nil {
		if !positive(*v) {
			bad("policy.max_oversubscription must be a positive number (down:up, e.g. 1 for 1:1), got %v", *v)
		} else {
			// A flat limit replaces the preset's per-tier limits too, or "max 1.5:1" would
			// still leave training-small's leaf at 2:1.
			r.TierLimits = map[string]Limit{}
			r.OtherTiers = &Limit{*v, "policy.max_oversubscription"}
		}
	}
	tiers := make([]string, 0, len(p.TierLimits))
	for t := range p.TierLimits {
		tiers = append(tiers, t)
	}
	sort.Strings(tiers)
	for _, t := range tiers {
		v := p.TierLimits[t]
		switch {
		case !validTier(t):
			bad("policy.tier_limits names tier %q; valid tiers: %s", t, strings.Join(Tiers(), ", "))
		case !positive(v):
			bad("policy.tier_limits.%s must be a positive number (down:up), got %v", t, v)
		default:
			r.TierLimits[t] = Limit{v, "policy.tier_limits." + t}
		}
	}
	if v := p.MinBisectionRatio; v != nil {
		if !positive(*v) || *v > 1 {
			bad("policy.min_bisection_ratio must be in (0, 1] (a share of full bisection), got %v", *v)
		} else {
			r.MinBisectionRatio = &Limit{*v, "policy.min_bisection_ratio"}
		}
	}
	if v := p.MinEffectiveBisectionRatio; v != nil {
		if !positive(*v) || *v > 1 {
			bad("policy.min_effective_bisection_ratio must be in (0, 1] (a share of full bisection), got %v", *v)
		} else {
			r.MinEffectiveBisectionRatio = &Limit{*v, "policy.min_effective_bisection_ratio"}
		}
	}
	if v := p.MaxSwitchHops; v != nil {
		if *v < 0 {
			bad("policy.max_switch_hops must be 0 or more, got %d", *v)
		} else {
			r.MaxSwitchHops = &Limit{float64(*v), "policy.max_switch_hops"}
		}
	}
	if v := p.SpineHeadroom; v != nil {
		if math.IsNaN(*v) || *v < 0 || *v >= 1 {
			bad("policy.spine_headroom must be in [0, 1) (a share of ports, e.g. 0.3), got %v", *v)
		} else {
			r.SpineHeadroom = Limit{*v, "policy.spine_headroom"}
		}
	}
	if p.SpineHeadroomIsError {
		r.HeadroomSeverity = Error
	}
	if v := p.MaxAllReduceSeconds; v != nil {
		if !positive(*v) {
			bad("policy.max_allreduce_seconds must be a positive number, got %v", *v)
		} else {
			r.MaxAllReduceSeconds = &Limit{*v, "policy.max_allreduce_seconds"}
		}
	}
	if err := p.Degraded.Validate(); err != nil {
		errs = append(errs, err)
	}
	switch p.Transport {
	case "", TransportInfiniBand:
		r.Transport = TransportInfiniBand
	case TransportRoCE:
		r.Transport = TransportRoCE
	default:
		// Judge the rest as InfiniBand; the error already fails the plan.
		r.Transport = TransportInfiniBand
		bad("unknown transport %q; valid transports: %s", p.Transport, strings.Join(Transports(), ", "))
	}
	if p.GPUs < 0 {
		bad("gpus must be 0 or more, got %d", p.GPUs)
	} else {
		r.GPUs = p.GPUs
	}
	return r, errs
}

// Validate reports what Resolve would reject, for the provider's ValidateConfig.
func (p Policy) Validate() error {
	_, err := p.Resolve()
	return err
}

func positive(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

func validTier(t string) bool {
	for _, v := range Tiers() {
		if v == t {
			return true
		}
	}
	return false
}
