package policy

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
)

// The nearest settings that pass. A limit violation ends with the value of each setting that
// would make it pass and nothing looser: the measured value itself, exact where it is a short
// decimal (42/21 gives 2, 24/16 gives 1.5) and otherwise rounded in the direction that keeps
// the suggestion passing (an upper limit up, 4/3 gives 1.3334; a lower limit down, 1014/1015
// gives 0.999), with the exact fraction beside it. The numbers come from the analysis'
// capacities as exact rationals (math/big.Rat of the float64 values, which are whole numbers of
// Gb/s in practice), never from a rounded ratio, so a suggestion cannot fail by its rounding.
// Which settings exist and which one wins is Resolve's precedence: tier_limits[tier], then
// max_oversubscription, then the preset.

// suggestPlaces and exactSuggestPlaces follow the analysis' rule for ratios (analysis/exact.go:
// exact within 6 decimals, else 4).
const (
	suggestPlaces      = 4
	exactSuggestPlaces = 6
)

// ratOf is the exact value of a float64; nil for NaN or an infinity.
func ratOf(x float64) *big.Rat {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return new(big.Rat).SetFloat64(x)
}

// decimal writes r as a decimal: exactly when its expansion ends within exactSuggestPlaces
// places, else at suggestPlaces places rounded up (up) or down; exact reports which.
func decimal(r *big.Rat, up bool) (text string, exact bool) {
	if s := r.FloatString(exactSuggestPlaces); ratEqualsText(r, s) {
		return trimZeros(s), true
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(suggestPlaces), nil)
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(scale))
	k, m := new(big.Int).QuoRem(scaled.Num(), scaled.Denom(), new(big.Int))
	if m.Sign() != 0 && up == (r.Sign() > 0) {
		// QuoRem truncates towards zero: one step away from zero for up on a positive value
		// (and for down on a negative one, which limits never are).
		k.Add(k, big.NewInt(int64(r.Sign())))
	}
	return trimZeros(new(big.Rat).SetFrac(k, scale).FloatString(suggestPlaces)), false
}

// ratEqualsText reports whether the decimal text s is exactly r.
func ratEqualsText(r *big.Rat, s string) bool {
	v, ok := new(big.Rat).SetString(s)
	return ok && v.Cmp(r) == 0
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// limitText writes a limit value for a suggestion and, when it is not exact, the fraction it
// stands for: ("1.5", ""), ("1.3334", "4/3 rounded up").
func limitText(r *big.Rat, up bool) (value, note string) {
	s, exact := decimal(r, up)
	if exact {
		return s, ""
	}
	dir := "down"
	if up {
		dir = "up"
	}
	return s, fmt.Sprintf("%s rounded %s", r.RatString(), dir)
}

// setting writes "NAME = VALUE (SCOPE; NOTE)", leaving out what is empty.
func setting(name string, r *big.Rat, up bool, scope string) string {
	v, note := limitText(r, up)
	var par []string
	for _, p := range []string{scope, note} {
		if p != "" {
			par = append(par, p)
		}
	}
	s := name + " = " + v
	if len(par) > 0 {
		s += " (" + strings.Join(par, "; ") + ")"
	}
	return s
}

// typedRat is a limit as the user typed it: the shortest decimal that reads back as the float
// (1.2 is 6/5, not the binary fraction just below it), nil for NaN or an infinity.
func typedRat(x float64) *big.Rat {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	if !ok {
		return ratOf(x)
	}
	return r
}

// switchRatio is a switch's down:up ratio as an exact rational; nil without links up.
func switchRatio(s *analysis.SwitchLoad) *big.Rat {
	d, u := ratOf(s.DownGbps), ratOf(s.UpGbps)
	if d == nil || u == nil || u.Sign() <= 0 {
		return nil
	}
	return d.Quo(d, u)
}

// tierRatio is the exact ratio behind the measured value of a tier: the worst switch's down:up
// when the measured value is its ratio (rounded up to print), else the measured float itself.
func tierRatio(measured float64, worst *analysis.SwitchLoad) *big.Rat {
	if worst != nil {
		if r := switchRatio(worst); r != nil {
			if f, _ := r.Float64(); !exceeds(measured, roundUpFloat(f)) && !below(measured, f) {
				return r
			}
		}
	}
	return ratOf(measured)
}

// roundUpFloat is f rounded up at suggestPlaces, as the analysis prints an oversubscription.
func roundUpFloat(f float64) float64 {
	p := math.Pow10(suggestPlaces)
	return math.Ceil(f*p*(1-1e-12)) / p
}

// nearestOversubscription is the end of an oversubscription violation of tier t: the settings
// that pass it and, at the limit as it stands, what the worst switch needs to pass.
func (c *checker) nearestOversubscription(t string, lim Limit, measured float64, worst *analysis.SwitchLoad) string {
	exact := tierRatio(measured, worst)
	if exact == nil {
		return ""
	}
	tierLimit := "policy.tier_limits." + t
	var settings []string
	if lim.Source == tierLimit {
		settings = append(settings, setting(tierLimit, exact, true, ""))
	} else {
		// A flat limit must hold every tier it would judge: every tier the analysis measured
		// except those a tier limit of the user's own keeps (Resolve's precedence).
		flat, tiers := c.flatLimit()
		scope := "every tier"
		if len(tiers) > 1 {
			scope += ": the highest of " + strings.Join(tiers, ", ")
		}
		all := setting("policy.max_oversubscription", flat, true, scope)
		if lim.Source == "policy.max_oversubscription" {
			settings = append(settings, all, setting(tierLimit, exact, true, "tier "+t+" alone"))
		} else {
			settings = append(settings, setting(tierLimit, exact, true, "tier "+t+" alone; the rest of "+lim.Source+" stays"), all)
		}
	}
	s := ". Nearest settings that pass: " + strings.Join(settings, ", or ")
	if worst != nil && !isGroup(worst) {
		s += c.uplinksNeeded(worst, lim)
	}
	return s
}

// flatLimit is the least max_oversubscription under which every tier it would judge passes,
// and those tiers in order.
func (c *checker) flatLimit() (*big.Rat, []string) {
	best := new(big.Rat)
	var tiers []string
	for _, t := range c.tierOrder() {
		if _, own := c.p.TierLimits[t]; own && strings.HasPrefix(c.p.TierLimits[t].Source, "policy.tier_limits.") {
			continue
		}
		var worst *analysis.SwitchLoad
		if w, ok := c.r.Worst[t]; ok {
			worst = &w
		}
		for i := range c.r.PerSwitch {
			s := &c.r.PerSwitch[i]
			if s.Tier == t && s.UpGbps > 0 && (worst == nil || s.Oversubscription > worst.Oversubscription) {
				worst = s
			}
		}
		measured := c.r.Oversubscription[t]
		if worst != nil && worst.Oversubscription > measured {
			measured = worst.Oversubscription
		}
		r := tierRatio(measured, worst)
		if r == nil {
			continue
		}
		tiers = append(tiers, t)
		if r.Cmp(best) > 0 {
			best = r
		}
	}
	return best, tiers
}

// uplinksNeeded says how many uplinks the switch needs for the limit as it stands: the least
// whole number of ports u at its rate with down / (u x rate) <= limit, in exact rationals.
func (c *checker) uplinksNeeded(s *analysis.SwitchLoad, lim Limit) string {
	rate := ratOf(c.rateOf(s.Name))
	down, up, l := ratOf(s.DownGbps), ratOf(s.UpGbps), typedRat(lim.Value)
	if rate == nil || rate.Sign() <= 0 || down == nil || up == nil || l == nil || l.Sign() <= 0 {
		return ""
	}
	have := new(big.Rat).Quo(up, rate)
	if !have.IsInt() {
		return "" // mixed rates: no whole number of ports to speak of
	}
	need := new(big.Rat).Quo(down, new(big.Rat).Mul(l, rate))
	n := new(big.Int).Quo(need.Num(), need.Denom())
	if !need.IsInt() {
		n.Add(n, big.NewInt(1))
	}
	more := new(big.Int).Sub(n, have.Num())
	if more.Sign() <= 0 || !n.IsInt64() {
		return ""
	}
	s2 := fmt.Sprintf("; or, at %s, %s needs %s uplinks of %s (%s more", ratio(lim.Value, lim.Value), s.Name, n, gbps(c.rateOf(s.Name)), more)
	switch free := int64(s.FreePorts); {
	case more.Int64() <= free:
		s2 += "; it has " + plural(int(free), "free port", "free ports") + ")"
	default:
		s2 += ", but it has " + plural(int(free), "free port", "free ports") + ": move endpoint links off it too)"
	}
	return s2
}

// nearestBisection is the end of a bisection violation: the min_bisection_ratio that the proved
// bound meets, the exact ratio of the proved bound to full bisection rounded down.
func (c *checker) nearestBisection() string {
	lower, full := ratOf(c.r.BisectionLowerGbps), ratOf(c.r.FullBisectionGbps)
	if lower == nil || full == nil || full.Sign() <= 0 {
		return ""
	}
	r := lower.Quo(lower, full)
	if r.Sign() <= 0 {
		return ". No min_bisection_ratio passes: the proved bound is 0 (a balanced cut crosses no link); connect the two sides"
	}
	if r.Cmp(big.NewRat(1, 1)) > 0 {
		r = big.NewRat(1, 1)
	}
	if text, _ := decimal(r, false); text == "0" {
		// Below 1e-4: the rounded value is not a valid limit; the fraction is.
		return ". Nearest setting that passes: policy.min_bisection_ratio = " + r.RatString() + " (the proved ratio, as an HCL expression)"
	}
	return ". Nearest setting that passes: " + setting("policy.min_bisection_ratio", r, false, "the proved ratio")
}
