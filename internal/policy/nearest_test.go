package policy

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"testing"
)

var suggestion = regexp.MustCompile(`policy\.(tier_limits\.(\w+)|max_oversubscription|min_bisection_ratio) = ([0-9.]+)`)

// apply returns p with one suggested setting set on top of what it already says.
func apply(p Policy, attr, tier string, v float64) Policy {
	q := p
	q.TierLimits = map[string]float64{}
	for k, x := range p.TierLimits {
		q.TierLimits[k] = x
	}
	switch {
	case tier != "":
		q.TierLimits[tier] = v
	case attr == "max_oversubscription":
		q.MaxOversubscription = &v
	case attr == "min_bisection_ratio":
		q.MinBisectionRatio = &v
	}
	return q
}

func hasRule(vs []Violation, rule string) bool {
	for _, v := range vs {
		if v.Rule == rule && v.Severity == Error {
			return true
		}
	}
	return false
}

// TestNearestOversubscriptionPasses: for every leaf split of a 64-port leaf under three kinds of
// limit (a preset, max_oversubscription, a tier limit), each setting the violation suggests makes
// the oversubscription rule pass when applied, and the same value one step of 1e-4 lower still
// fails (it is the nearest); the uplink count it names is the least that passes, found by trying
// every count on the leaves themselves.
func TestNearestOversubscriptionPasses(t *testing.T) {
	policies := []Policy{
		{Preset: PresetTrainingLarge},
		{Preset: PresetTrainingSmall, MaxOversubscription: f64(1.1)},
		{Preset: PresetTrainingLarge, TierLimits: map[string]float64{"leaf": 1.2}},
	}
	uplinks := regexp.MustCompile(`(leaf\d+) needs (\d+) uplinks`)
	checked := 0
	for _, p := range policies {
		for down := 8; down <= 48; down += 5 {
			for up := 1; up <= 64-down && up < down; up += 3 {
				r := twoTier(4, 4, down, up)
				vs := Evaluate(nil, r, p, nil)
				var msg string
				for _, v := range vs {
					if v.Rule == RuleOversubscription {
						msg = v.Message
					}
				}
				if msg == "" {
					continue
				}
				name := fmt.Sprintf("%+v down %d up %d", p, down, up)
				ms := suggestion.FindAllStringSubmatch(msg, -1)
				if len(ms) == 0 {
					t.Fatalf("%s: no setting suggested: %s", name, msg)
				}
				for _, m := range ms {
					v, err := strconv.ParseFloat(m[3], 64)
					if err != nil {
						t.Fatal(err)
					}
					if hasRule(Evaluate(nil, r, apply(p, m[1], m[2], v), nil), RuleOversubscription) {
						t.Errorf("%s: %s = %v still fails: %s", name, m[1], v, msg)
					}
					if !hasRule(Evaluate(nil, r, apply(p, m[1], m[2], v-1e-4), nil), RuleOversubscription) {
						t.Errorf("%s: %s = %v passes too, so %v is not the nearest: %s", name, m[1], v-1e-4, v, msg)
					}
					checked++
				}
				u := uplinks.FindStringSubmatch(msg)
				if u == nil {
					t.Errorf("%s: no uplink count: %s", name, msg)
					continue
				}
				n, _ := strconv.Atoi(u[2])
				least := 0
				for k := up; k <= 4*down; k++ { // every leaf alike, so the named one stands for all
					rr := twoTier(4, 4, down, k)
					if !hasRule(Evaluate(nil, rr, p, nil), RuleOversubscription) {
						least = k
						break
					}
				}
				if n != least || u[1] != "leaf01" {
					t.Errorf("%s: message says %d uplinks, the least that passes is %d: %s", name, n, least, msg)
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d suggestions checked", checked)
	}
}

// TestNearestBisectionPasses: the suggested min_bisection_ratio passes and 1e-4 more fails, for
// cuts of every size on an 8-leaf fabric (ratios such as 5/16 and 7/32).
func TestNearestBisectionPasses(t *testing.T) {
	p := Policy{Preset: PresetTrainingLarge, MaxOversubscription: f64(100)}
	checked := 0
	for up := 1; up < 32; up++ {
		r := twoTier(8, 8, 32, up)
		vs := Evaluate(nil, r, p, nil)
		var msg string
		for _, v := range vs {
			if v.Rule == RuleBisection {
				msg = v.Message
			}
		}
		if msg == "" {
			t.Fatalf("up %d: no bisection violation: %v", up, vs)
		}
		m := suggestion.FindStringSubmatch(msg)
		if m == nil || m[1] != "min_bisection_ratio" {
			t.Fatalf("up %d: no min_bisection_ratio suggested: %s", up, msg)
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		if hasRule(Evaluate(nil, r, apply(p, m[1], "", v), nil), RuleBisection) {
			t.Errorf("up %d: min_bisection_ratio = %v still fails: %s", up, v, msg)
		}
		if v+1e-4 <= 1 && !hasRule(Evaluate(nil, r, apply(p, m[1], "", v+1e-4), nil), RuleBisection) {
			t.Errorf("up %d: %v passes too, so %v is not the nearest: %s", up, v+1e-4, v, msg)
		}
		checked++
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// TestDecimalRounding: a suggested limit is exact where its decimal ends within 6 places and
// otherwise rounded in the direction that keeps it passing.
func TestDecimalRounding(t *testing.T) {
	for _, c := range []struct {
		num, den int64
		up       bool
		want     string
		exact    bool
	}{
		{42, 21, true, "2", true},
		{24, 16, true, "1.5", true},
		{4, 3, true, "1.3334", false},
		{4, 3, false, "1.3333", false},
		{1014, 1015, false, "0.999", false},
		{1014, 1015, true, "0.9991", false},
		{63, 64, false, "0.984375", true},
		{32, 31, true, "1.0323", false},
	} {
		got, exact := decimal(big.NewRat(c.num, c.den), c.up)
		if got != c.want || exact != c.exact {
			t.Errorf("%d/%d up=%v: %q exact=%v, want %q exact=%v", c.num, c.den, c.up, got, exact, c.want, c.exact)
		}
	}
}
