package policy

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// The degraded judgement: a failed cable is a degradation to report, not a gate that blocks every
// change. The policy gates the fabric as designed (Evaluate, failed cables included, so a pull
// request that removes a spine still fails while a cable is down); the fabric as it runs (the
// same graph less its failed links) is judged here against policy.degraded, whose thresholds are
// looser by design: within them each failed cable is a warning and applies go on; beyond them
// (the fabric cannot carry what it is for) it is an error.
//
// Always on, whatever the thresholds: no switch cut off from the fabric and no endpoint that
// cannot reach the others. A fabric in pieces is not degraded, it is broken.

// Degraded rule names, as they appear in Violation.Rule and at the start of messages.
const (
	RuleDegraded             = "degraded"           // a failed cable, within the thresholds (warning)
	RuleDegradedBisection    = "degraded-bisection" // the running fabric's proved bisection below the threshold
	RuleDegradedOversub      = "degraded-oversubscription"
	RuleDegradedIsolated     = "degraded-isolated-switch"
	RuleDegradedUnreachable  = "degraded-unreachable-endpoint"
	DefaultDegradedShare     = 0.9 // default min_bisection_ratio: this share of the designed ratio
	maxFailedCableWarnings   = 10  // per-cable warnings before one line counts the rest
	sinceLayout              = "2006-01-02"
	degradedBisectionDefault = "default: 0.9 x the designed ratio"
)

// Degraded is policy.degraded: thresholds for the fabric as it runs with its failed cables.
// Both are optional.
type Degraded struct {
	// MinBisectionRatio (policy.degraded.min_bisection_ratio): the proved bisection of the
	// running fabric over the designed full bisection, in (0, 1]. nil: DefaultDegradedShare of
	// the designed bisection_ratio.
	MinBisectionRatio *float64
	// MaxOversubscription (policy.degraded.max_oversubscription): down:up limit for every
	// switch of the running fabric. nil: no limit (a leaf that lost one of 32 uplinks is
	// 32:31, which is what degraded means).
	MaxOversubscription *float64
}

// Validate reports invalid thresholds, naming the attribute and what would be right. Resolve (so
// Evaluate and Policy.Validate) reports them too, as RulePolicy errors; JudgeDegraded then uses
// the default in place of an invalid value.
func (d Degraded) Validate() error {
	var errs []string
	if v := d.MinBisectionRatio; v != nil && (!positive(*v) || *v > 1) {
		errs = append(errs, fmt.Sprintf("policy.degraded.min_bisection_ratio must be in (0, 1] (a share of the designed full bisection, e.g. 0.9), got %v", *v))
	}
	if v := d.MaxOversubscription; v != nil && !positive(*v) {
		errs = append(errs, fmt.Sprintf("policy.degraded.max_oversubscription must be a positive number (down:up, e.g. 1.5 for 1.5:1), got %v", *v))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(errs, "; "))
}

// FailedCable is one entry of gpucluster_fabric.failed_cables, as the judgement needs it.
type FailedCable struct {
	Cable  string    // the label as written: a cable end label or a full label
	Reason string    // optional
	Since  time.Time // zero when not given; see ParseSince
	// Where is the technician's line for the cable (bom.TechnicianLine with bom.CageMates:
	// both ends' rack, unit, cage and split, the part, and what goes down with it); optional.
	Where string
}

// ParseSince reads a failed cable's since date, "YYYY-MM-DD" (UTC); "" is no date.
func ParseSince(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(sinceLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("since must be a date written YYYY-MM-DD, e.g. %q, got %q", "2026-03-02", s)
	}
	if t.Before(firstInfiniBand) {
		return time.Time{}, fmt.Errorf("since %q is before InfiniBand existed (its specification 1.0 is of %s): no InfiniBand cable failed then; write the day it failed, e.g. %q",
			s, firstInfiniBand.Format(sinceLayout), "2026-03-02")
	}
	return t, nil
}

// firstInfiniBand is the InfiniBand Architecture Specification Release 1.0 (InfiniBand Trade
// Association, 24 October 2000): no InfiniBand cable failed before it (issue 32: since =
// "0000-01-01" read "106751 days ago", a time.Duration saturated).
var firstInfiniBand = time.Date(2000, time.October, 24, 0, 0, 0, 0, time.UTC)

// DegradedInput is what JudgeDegraded reads.
type DegradedInput struct {
	Designed      analysis.Result // the fabric as designed (failed cables included)
	Degraded      analysis.Result // the same graph less the failed links
	DesignedGraph *fabric.Graph   // for who is cut off: the designed graph...
	DegradedGraph *fabric.Graph   // ...and the running one (built from the spec less the failed cables)
	Failed        []FailedCable
	Policy        Degraded
	Now           time.Time // for the age of each failed cable; zero: time.Now()
}

// DegradedRatio is the running fabric's bisection_ratio: its proved bisection over the designed
// full bisection (what the fabric was built to carry), as exact rationals rounded down the way
// analysis rounds a proved ratio (analysis.RatioDown): 12,400 of 12,800 Gb/s is 0.96875, never
// 0.969. It is the number analysis.degraded.bisection_ratio shows and the one judged here.
func DegradedRatio(designed, degraded analysis.Result) float64 {
	if designed.FullBisectionGbps <= 0 {
		return 0
	}
	return analysis.RatioDown(degraded.BisectionLowerGbps, designed.FullBisectionGbps)
}

// JudgeDegraded judges the fabric as it runs with its failed cables. It returns, in this order:
// errors for each threshold the running fabric breaks (a switch cut off, endpoints that cannot
// reach the others, the proved bisection below policy.degraded.min_bisection_ratio, a switch above
// policy.degraded.max_oversubscription), then one warning per failed cable (the first
// maxFailedCableWarnings, then one that counts the rest) naming it, its reason, its age, where it
// is and the running fabric's numbers. Nothing when no cable failed.
//
// Numbers are exact where the truth is: bandwidths are the analysis' lattice values, ratios are
// those of DegradedRatio and analysis (rounded down for a proved minimum, up for an
// oversubscription), printed without further rounding.
func JudgeDegraded(in DegradedInput) []Violation {
	if len(in.Failed) == 0 {
		return nil
	}
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	c := &checker{}
	des, deg := &in.Designed, &in.Degraded
	ratio := DegradedRatio(*des, *deg)
	cables := make([]string, len(in.Failed))
	for i, f := range in.Failed {
		cables[i] = f.Cable
	}
	failed := plural(len(in.Failed), "failed cable", "failed cables") + " (" + names(cables) + ")"

	isolated, unreachable := cutOff(in.DesignedGraph, in.DegradedGraph)
	for _, s := range isolated {
		c.add(RuleDegradedIsolated, Error, "cut off", "connected", s.name,
			"%s is cut off from the fabric with %s: %s. A fabric in pieces is not degraded but broken, whatever policy.degraded allows; replace a cable before the next change",
			s.name, failed, s.why)
	}
	if len(unreachable) > 0 {
		c.add(RuleDegradedUnreachable, Error, plural(len(unreachable), "endpoint", "endpoints")+" unreachable", "every endpoint reachable", names(unreachable),
			"with %s, %s cannot reach the rest of the fabric: %s. Replace a cable, or, for a port taken out of service on purpose, move its cable to absent_cables (not cabled: the port leaves the designed fabric)",
			failed, plural(len(unreachable), "endpoint", "endpoints"), names(unreachable))
	}

	minRatio, minSource := DefaultDegradedShare*des.BisectionRatio, fmt.Sprintf("%s %s", degradedBisectionDefault, asIs(des.BisectionRatio))
	if v := in.Policy.MinBisectionRatio; v != nil && positive(*v) && *v <= 1 {
		minRatio, minSource = *v, "policy.degraded.min_bisection_ratio"
	}
	numbers := fmt.Sprintf("the running fabric proves %s of %s full bisection (ratio %s; designed %s)",
		gbpsExact(deg.BisectionLowerGbps), gbpsExact(des.FullBisectionGbps), asIs(ratio), asIs(des.BisectionRatio))
	if minRatio > 0 && des.FullBisectionGbps > 0 && below(ratio, minRatio) {
		upper := deg.BisectionUpperGbps / des.FullBisectionGbps
		m, req := asIs(ratio), "at least "+asIs(minRatio)
		if below(upper, minRatio) {
			c.add(RuleDegradedBisection, Error, m, req, cutWitness(deg.Cut),
				"with %s %s; %s requires at least %s. Witness: %s",
				failed, numbers, minSource, asIs(minRatio), cutWitness(deg.Cut))
		} else {
			c.add(RuleDegradedBisection, Error, m, req, cutWitness(deg.Cut),
				"with %s a ratio of at least %s is not proved: %s, and the smallest balanced cut found is %s; %s requires a proved %s",
				failed, asIs(minRatio), numbers, gbpsExact(deg.BisectionUpperGbps), minSource, asIs(minRatio))
		}
	}
	if v := in.Policy.MaxOversubscription; v != nil && positive(*v) && exceeds(deg.MaxOversubscription, *v) {
		var over []string
		worst := ""
		w := 0.0
		for _, s := range deg.PerSwitch {
			if exceeds(s.Oversubscription, *v) {
				over = append(over, s.Name)
				if s.Oversubscription > w {
					w, worst = s.Oversubscription, s.Name
				}
			}
		}
		c.add(RuleDegradedOversub, Error, asIs(deg.MaxOversubscription)+":1", "at most "+asIs(*v)+":1", names(over),
			"with %s the worst switch is %s:1 (%s; above the limit: %s); policy.degraded.max_oversubscription allows at most %s:1",
			failed, asIs(deg.MaxOversubscription), worst, names(over), asIs(*v))
	}

	summary := numbers
	if deg.MaxOversubscription > 0 && len(isolated) == 0 {
		// (A switch cut off has no uplink, and the analysis gives it no ratio: the number would
		// understate.)
		summary += fmt.Sprintf(", worst oversubscription %s:1", asIs(deg.MaxOversubscription))
	}
	if !HasErrors(c.out) {
		summary += fmt.Sprintf("; within policy.degraded (bisection at least %s, %s)", asIs(minRatio), minSource)
	}
	for i, f := range in.Failed {
		if i == maxFailedCableWarnings {
			rest := cables[i:]
			c.add(RuleDegraded, Warning, "failed", "replaced", names(rest), "%s more failed: %s",
				plural(len(rest), "cable", "cables"), strings.Join(rest, ", "))
			break
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s failed", f.Cable)
		if f.Reason != "" {
			fmt.Fprintf(&b, " (%s)", f.Reason)
		}
		b.WriteString(" " + age(f.Since, now))
		fmt.Fprintf(&b, "; with %s %s", plural(len(in.Failed), "failed cable", "failed cables"), summary)
		if f.Where != "" {
			b.WriteString(". Where: " + f.Where)
		}
		c.add(RuleDegraded, Warning, "failed", "replaced", f.Cable, "%s", b.String())
	}
	return c.out
}

// age says how long a cable has been down: "since 2026-03-02, 12 days ago".
func age(since, now time.Time) string {
	if since.IsZero() {
		return "(no since date)"
	}
	d := since.Format(sinceLayout)
	// Whole days by the calendar, in seconds: a time.Duration saturates at 292 years.
	days := int(math.Floor(float64(now.UTC().Unix()-since.UTC().Unix()) / 86400))
	switch {
	case days < 0:
		return fmt.Sprintf("since %s (in the future: check the date)", d)
	case days == 0:
		return fmt.Sprintf("since %s, today", d)
	default:
		return fmt.Sprintf("since %s, %s ago", d, plural(days, "day", "days"))
	}
}

// asIs prints a number the analysis computed (already exact or rounded the safe way) as it is,
// without rounding it again: 0.96875, 1.0323.
func asIs(x float64) string {
	if math.IsInf(x, 1) {
		return "infinity"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// gbpsExact prints a bandwidth of the analysis' lattice without rounding: "12400 Gb/s".
func gbpsExact(x float64) string { return asIs(x) + " Gb/s" }

func cutWitness(cut analysis.Cut) string {
	return fmt.Sprintf("a balanced cut of %s across %s, between %s and %s", gbpsExact(cut.CapacityGbps),
		plural(cut.CrossingLinks, "link", "links"), sideA(cut), sideB(cut))
}

// cutOffSwitch is a switch of the design that the running fabric cannot reach, and why.
type cutOffSwitch struct{ name, why string }

// cutOff compares the running graph with the designed one: the switches that had links and are
// no longer connected to the fabric's main piece (the one holding the most endpoints, then the
// most switches), and the endpoints (HCAs cabled in the design) outside it, in
// graph order. Connected pieces by union-find over the running graph's links (fabric.UnionFind;
// Tarjan, "Efficiency of a Good But Not Linear Set Union Algorithm", JACM 22(2), 1975).
func cutOff(designed, running *fabric.Graph) ([]cutOffSwitch, []string) {
	if designed == nil || running == nil {
		return nil, nil
	}
	uf := fabric.NewUnionFind(len(running.Devices))
	for _, l := range running.Links {
		uf.Union(l.A, l.B)
	}
	cabled := func(name string) bool {
		i, ok := designed.Lookup(name)
		return ok && designed.AdjStart[i+1] > designed.AdjStart[i]
	}
	// Pieces by size: endpoints, then switches, then the first device's index, so the main
	// piece is the same whatever the map order.
	type size struct{ eps, switches, first int }
	pieces := map[int32]*size{}
	for i := range running.Devices {
		d := &running.Devices[i]
		if !cabled(d.Name) {
			continue
		}
		r := uf.Find(int32(i))
		p := pieces[r]
		if p == nil {
			p = &size{first: i}
			pieces[r] = p
		}
		if d.Kind == fabric.KindHCA {
			p.eps++
		} else {
			p.switches++
		}
	}
	main := int32(-1)
	var best *size
	for r, p := range pieces {
		if best == nil || p.eps > best.eps || (p.eps == best.eps && (p.switches > best.switches ||
			(p.switches == best.switches && p.first < best.first))) {
			main, best = r, p
		}
	}
	var switches []cutOffSwitch
	var endpoints []string
	for i := range running.Devices {
		d := &running.Devices[i]
		if !cabled(d.Name) || uf.Find(int32(i)) == main {
			continue
		}
		if d.Kind == fabric.KindHCA {
			endpoints = append(endpoints, d.Name)
			continue
		}
		di, _ := designed.Lookup(d.Name)
		had := int(designed.AdjStart[di+1] - designed.AdjStart[di])
		left := int(running.AdjStart[i+1] - running.AdjStart[i])
		why := fmt.Sprintf("%d of its %d links failed", had-left, had)
		if left > 0 {
			// It still reaches something: say how much of the fabric went with it.
			var with int
			for j := range running.Devices {
				if running.Devices[j].Kind == fabric.KindHCA && uf.Find(int32(j)) == uf.Find(int32(i)) && cabled(running.Devices[j].Name) {
					with++
				}
			}
			why += fmt.Sprintf(", and the %s it still reaches cannot reach the rest", plural(with, "endpoint", "endpoints"))
		}
		switches = append(switches, cutOffSwitch{d.Name, why})
	}
	return switches, endpoints
}
