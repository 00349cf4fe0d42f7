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
// Always on, whatever the thresholds: no switch cut off from the fabric (nor the endpoints it
// takes with it). A fabric in pieces is not degraded, it is broken. An endpoint cut off by its
// own failed cable (every cable of its HCA down) is not a fabric in pieces: its node is drained
// and the rest runs on, so it is a warning that names the node, and an error only beyond
// policy.degraded.max_unreachable_endpoints.

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
	// MaxUnreachableEndpoints (policy.degraded.max_unreachable_endpoints): most endpoints (HCAs)
	// the running fabric may have cut off by their own failed cables, each a node to drain. nil:
	// no limit.
	MaxUnreachableEndpoints *int
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
	if v := d.MaxUnreachableEndpoints; v != nil && *v < 0 {
		errs = append(errs, fmt.Sprintf("policy.degraded.max_unreachable_endpoints must be 0 or more (endpoints cut off by their own failed cables, e.g. 0 to fail on any), got %d", *v))
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

// DegradedRatio is the running fabric's bisection_ratio: its proved bisection over the full
// bisection of the endpoints it still has (analysis.FullBisection: the designed full bisection
// while no endpoint is cut off, since failed switch links remove no endpoint), as exact
// rationals rounded down the way analysis rounds a proved ratio (analysis.RatioDown): 12,400 of
// 12,800 Gb/s is 0.96875, never 0.969. An endpoint cut off by its own cable is judged by
// max_unreachable_endpoints, not here: a drained node asks nothing of the bisection, and
// dividing by the designed count would fail min_bisection_ratio on drained nodes alone. It is the
// number analysis.degraded.bisection_ratio shows and the one judged here.
func DegradedRatio(designed, degraded analysis.Result) float64 {
	full := degraded.FullBisectionGbps
	if full <= 0 || designed.FullBisectionGbps <= 0 {
		return 0
	}
	return analysis.RatioDown(degraded.BisectionLowerGbps, full)
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

	cut := CutOff(in.DesignedGraph, in.DegradedGraph)
	for _, s := range cut.switches {
		c.add(RuleDegradedIsolated, Error, "cut off", "connected", s.name,
			"%s is cut off from the fabric with %s: %s. A fabric in pieces is not degraded but broken, whatever policy.degraded allows; replace a cable before the next change",
			s.name, failed, s.why)
	}
	if len(cut.behind) > 0 {
		c.add(RuleDegradedUnreachable, Error, plural(len(cut.behind), "endpoint", "endpoints")+" unreachable", "every endpoint reachable", names(cut.behind),
			"with %s, %s cannot reach the rest of the fabric: %s, behind a switch that is cut off. Replace a cable",
			failed, plural(len(cut.behind), "endpoint", "endpoints"), names(cut.behind))
	}
	c.drains(cut, in.Policy.MaxUnreachableEndpoints)

	minRatio, minSource := DefaultDegradedShare*des.BisectionRatio, fmt.Sprintf("%s %s", degradedBisectionDefault, asIs(des.BisectionRatio))
	if v := in.Policy.MinBisectionRatio; v != nil && positive(*v) && *v <= 1 {
		minRatio, minSource = *v, "policy.degraded.min_bisection_ratio"
	}
	of := ""
	if deg.Endpoints != des.Endpoints {
		of = fmt.Sprintf(" of its %d endpoints", deg.Endpoints)
	}
	numbers := fmt.Sprintf("the running fabric proves %s of %s full bisection%s (ratio %s; designed %s)",
		gbpsExact(deg.BisectionLowerGbps), gbpsExact(deg.FullBisectionGbps), of, asIs(ratio), asIs(des.BisectionRatio))
	if minRatio > 0 && deg.FullBisectionGbps > 0 && below(ratio, minRatio) {
		upper := deg.BisectionUpperGbps / deg.FullBisectionGbps
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
	if deg.MaxOversubscription > 0 && len(cut.switches) == 0 {
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

// Drain is a node to take out of service while a cable is down: endpoints of it are cut off by
// their own failed cables.
type Drain struct {
	Node      string
	Endpoints []string // its HCAs cut off, graph order
	Cables    []string // their designed cables, by label, graph order
}

// Reason is the drain's reason as a scheduler records it (Slurm's `scontrol update ...
// State=DRAIN Reason=...`): "gpu005/mlx5_3 cut off: failed cable gpu005/mlx5_3:1 <-> leaf02:4".
func (d Drain) Reason() string {
	return fmt.Sprintf("%s cut off: failed %s %s", strings.Join(d.Endpoints, ", "), pick(len(d.Cables), "cable", "cables"), strings.Join(d.Cables, ", "))
}

// Cut is what the running fabric has lost from the design's main piece (CutOff).
type Cut struct {
	switches []cutOffSwitch
	behind   []string // endpoints cut off with a switch: part of a fabric in pieces
	// Endpoints are the endpoints (HCAs) cut off by their own failed cables: cabled in the design,
	// no link left in the running fabric. Graph order.
	Endpoints []string
	// Drain are their nodes, in the order of their first endpoint.
	Drain []Drain
}

// Unreachable is every endpoint (HCA) of the design the running fabric cannot reach: those cut
// off by their own cables and those behind a switch that is cut off.
func (c Cut) Unreachable() int { return len(c.Endpoints) + len(c.behind) }

// drains adds, for the endpoints cut off by their own failed cables, one warning per node to
// drain (the first maxFailedCableWarnings, then one that counts the rest), or one error when
// the fabric has more unreachable endpoints than limit.
func (c *checker) drains(cut Cut, limit *int) {
	if len(cut.Endpoints) == 0 {
		return
	}
	nodes := make([]string, len(cut.Drain))
	for i, d := range cut.Drain {
		nodes[i] = d.Node
	}
	if limit != nil && cut.Unreachable() > *limit {
		c.add(RuleDegradedUnreachable, Error, plural(cut.Unreachable(), "endpoint", "endpoints")+" unreachable",
			fmt.Sprintf("at most %d", *limit), names(nodes),
			"%s cut off by %s (%s): policy.degraded.max_unreachable_endpoints allows at most %d unreachable. Drain %s and replace the cables, or raise the limit on purpose",
			plural(len(cut.Endpoints), "endpoint is", "endpoints are"), pick(len(cut.Endpoints), "its own failed cable", "their own failed cables"),
			names(cut.Endpoints), *limit, plural(len(nodes), "node", "nodes")+" "+names(nodes))
		return
	}
	for i, d := range cut.Drain {
		if i == maxFailedCableWarnings {
			rest := nodes[i:]
			c.add(RuleDegradedUnreachable, Warning, "cut off", "reachable", names(rest), "%s more to drain, each cut off by its own failed cables: %s",
				plural(len(rest), "node", "nodes"), strings.Join(rest, ", "))
			break
		}
		c.add(RuleDegradedUnreachable, Warning, "cut off", "reachable", d.Node,
			"drain %s: %s cut off from the fabric by %s own failed %s (%s). The rest of the fabric runs on (analysis.degraded); gpucluster_scheduler_topology, given the same failed_cables, lists the node in drain_nodes. Replace the cable, then remove it from failed_cables",
			d.Node, strings.Join(d.Endpoints, ", ")+pick(len(d.Endpoints), " is", " are"), pick(len(d.Endpoints), "its", "their"),
			pick(len(d.Cables), "cable", "cables"), strings.Join(d.Cables, ", "))
	}
}

// pick is one or many by n.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// CutOff compares the running graph with the designed one: the switches that had links and are
// no longer connected to the fabric's main piece (the one holding the most endpoints, then the
// most switches), and the endpoints (HCAs cabled in the design) outside it, in graph order, split
// into those cut off by their own cables (no link left: a node to drain) and those behind a switch
// that is cut off. Connected pieces by union-find over the running graph's links
// (fabric.UnionFind; Tarjan, "Efficiency of a Good But Not Linear Set Union Algorithm", JACM
// 22(2), 1975).
func CutOff(designed, running *fabric.Graph) Cut {
	var out Cut
	if designed == nil || running == nil {
		return out
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
	drain := map[string]int{} // node -> index in out.Drain
	for i := range running.Devices {
		d := &running.Devices[i]
		if !cabled(d.Name) || uf.Find(int32(i)) == main {
			continue
		}
		if d.Kind == fabric.KindHCA {
			if running.AdjStart[i+1] > running.AdjStart[i] {
				out.behind = append(out.behind, d.Name)
				continue
			}
			out.Endpoints = append(out.Endpoints, d.Name)
			k, ok := drain[d.Node]
			if !ok {
				k = len(out.Drain)
				drain[d.Node] = k
				out.Drain = append(out.Drain, Drain{Node: d.Node})
			}
			out.Drain[k].Endpoints = append(out.Drain[k].Endpoints, d.Name)
			di, _ := designed.Lookup(d.Name)
			for _, li := range designed.LinksOf(di) {
				out.Drain[k].Cables = append(out.Drain[k].Cables, designed.Spec.Cables[designed.Links[li].Cable].Label())
			}
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
		out.switches = append(out.switches, cutOffSwitch{d.Name, why})
	}
	return out
}
