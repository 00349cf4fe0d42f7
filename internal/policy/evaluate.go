package policy

import (
	"fmt"
	"math"
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Built-in rule names, as they appear in Violation.Rule and at the start of messages. Custom rules
// use their block label.
const (
	RulePolicy           = "policy"           // the policy itself is invalid
	RuleRoCEGPUs         = "roce-gpus"        // RoCEv2 beyond MaxRoCEGPUs
	RuleRoCEPFC          = "roce-pfc"         // RoCEv2 without PFC
	RuleOversubscription = "oversubscription" // a tier above its down:up limit
	RuleBisection        = "bisection"        // bisection ratio not proved
	RuleSwitchHops       = "switch-hops"      // worst path too long
	RuleAllReduce        = "allreduce-time"   // all-reduce estimate too slow
	RuleSpineHeadroom    = "spine-headroom"   // top tier without room to grow
	RuleEmptyFabric      = "empty-fabric"     // no endpoint: nothing to analyse
)

// Violation is one broken rule. Message is the whole story for a person (rule, measured,
// required, witness); the other fields carry the parts for machines and tests.
type Violation struct {
	Rule     string
	Severity Severity
	Measured string // e.g. "1.33:1"
	Required string // e.g. "at most 1:1"
	Witness  string // the switch(es), tier, cut, path or rule location that shows it
	Message  string
}

func (v Violation) String() string { return v.Message }

// HasErrors reports whether any violation must fail the plan. Unknown ones do not fail it (the
// check runs again at apply) and warnings never do.
func HasErrors(vs []Violation) bool {
	for _, v := range vs {
		if v.Severity == Error {
			return true
		}
	}
	return false
}

// Evaluate judges an analysed fabric against a policy and custom rules. g may be nil (then the
// parts of `fabric` that need the graph, such as racks and links, are unknown to custom rules);
// r is the analysis of g. The order of the result is fixed (see the package doc).
//
// The presets are the design guide's table of the field's rules of thumb: training-large asks
// for the non-blocking "balanced, full-fat tree" of NVIDIA DGX SuperPOD RA-11333-001 (1:1 at
// every tier, a proved full bisection); dragonfly-plus the minimal routing of Dragonfly+ (A.
// Shpiner et al., "Dragonfly+: low cost topology for scaling datacenters", HiPINEB 2017, IEEE
// document 7885210: at most leaf-spine-spine-leaf, 3 switch-to-switch links; after J. Kim, W. J.
// Dally, S. Scott, D. Abts, "Technology-driven, highly-scalable dragonfly topology", ISCA 2008,
// doi:10.1109/ISCA.2008.19). The spine headroom keeps the top tier sized for the planned SUs,
// as RA-11333-001 builds a partial SU's leaves and spine links whole. The bisection rule judges
// the proved bound, never the witness; the effective-bisection rule the measure of T. Hoefler,
// T. Schneider, A. Lumsdaine, IEEE Cluster 2008, doi:10.1109/CLUSTR.2008.4663762.
func Evaluate(g *fabric.Graph, r analysis.Result, p Policy, rules []Rule) []Violation {
	res, errs := p.resolve()
	var out []Violation
	for _, err := range errs {
		out = append(out, Violation{Rule: RulePolicy, Severity: Error, Witness: "policy",
			Message: RulePolicy + ": " + err.Error()})
	}
	c := &checker{g: g, r: &r, p: &res, out: out}
	c.empty()
	c.transport()
	c.oversubscription()
	c.bisection()
	c.effectiveBisection()
	c.switchHops()
	c.allReduce()
	c.spineHeadroom()
	if len(rules) > 0 {
		c.out = append(c.out, EvaluateRules(NewEnv(g, &r, rules), rules)...)
	}
	return c.out
}

type checker struct {
	g   *fabric.Graph
	r   *analysis.Result
	p   *Resolved
	out []Violation
}

func (c *checker) add(rule string, sev Severity, measured, required, witness, format string, args ...any) {
	c.out = append(c.out, Violation{Rule: rule, Severity: sev, Measured: measured, Required: required,
		Witness: witness, Message: rule + ": " + fmt.Sprintf(format, args...)})
}

// transport: RoCEv2 is accepted for small fabrics only, and only lossless.
func (c *checker) transport() {
	if c.p.Transport != TransportRoCE {
		return
	}
	gpus, how := c.p.GPUs, ""
	if gpus == 0 {
		// Without a GPU count, count one GPU per endpoint, as on a DGX H100 (eight GPUs, eight
		// compute HCAs): never fewer GPUs than the fabric visibly serves.
		gpus, how = c.r.Endpoints, " (counted as one per endpoint; set gpus to override)"
	}
	if gpus > MaxRoCEGPUs {
		c.add(RuleRoCEGPUs, Error, fmt.Sprintf("%d GPUs", gpus), fmt.Sprintf("at most %d GPUs", MaxRoCEGPUs), "fabric",
			"transport roce (RoCEv2) is allowed only up to %d GPUs, but this fabric has %d GPUs%s; use transport = %q for a fabric of this size",
			MaxRoCEGPUs, gpus, how, TransportInfiniBand)
	}
	if !c.p.PFC {
		c.add(RuleRoCEPFC, Error, "pfc = false", "pfc = true", "fabric",
			"transport roce (RoCEv2) needs lossless Ethernet, but pfc is false; set pfc = true (priority flow control on the GPU traffic class) or use transport = %q",
			TransportInfiniBand)
	}
}

// tierOrder lists the tiers of the analysis bottom up: by the lowest level of their switches,
// then leaf, spine, core, group, then by name, so messages come in the order a person reads a
// fabric.
func (c *checker) tierOrder() []string {
	level := map[string]int{}
	for t := range c.r.Oversubscription {
		level[t] = math.MaxInt
	}
	for _, s := range c.r.PerSwitch {
		if l, ok := level[s.Tier]; ok && s.Level >= 0 && s.Level < l {
			level[s.Tier] = s.Level
		}
	}
	rank := map[string]int{TierLeaf: 0, TierSpine: 1, TierCore: 2, TierGroup: 3}
	out := make([]string, 0, len(level))
	for t := range level {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if level[a] != level[b] {
			return level[a] < level[b]
		}
		ra, oka := rank[a]
		rb, okb := rank[b]
		if oka != okb {
			return oka
		}
		if ra != rb {
			return ra < rb
		}
		return a < b
	})
	return out
}

// rateOf returns the port rate of a switch, for "N x 400 Gb/s" in messages.
func (c *checker) rateOf(name string) float64 {
	if c.g != nil {
		if i, ok := c.g.Lookup(name); ok {
			return c.g.Devices[i].RateGbps
		}
	}
	return c.r.PortRateGbps
}

// isGroup tells the witness of the dragonfly group tier (the analysis reports a whole group in
// it, named after the group) from a switch.
func isGroup(s *analysis.SwitchLoad) bool { return s.Tier == TierGroup && s.Role == TierGroup }

// what names a witness: "leaf03" or "group a".
func what(s *analysis.SwitchLoad) string {
	if isGroup(s) {
		return "group " + s.Name
	}
	return s.Name
}

// load describes a switch's capacity: "32 x 400 Gb/s down, 24 x 400 Gb/s up"; a group's, its
// endpoint capacity against the global links that leave it.
func (c *checker) load(s analysis.SwitchLoad) string {
	if isGroup(&s) {
		return ports(s.DownGbps, c.r.PortRateGbps) + " from endpoints, " + ports(s.UpGbps, c.r.PortRateGbps) + " of global links"
	}
	rate := c.rateOf(s.Name)
	d := ports(s.DownGbps, rate) + " down, " + ports(s.UpGbps, rate) + " up"
	if s.LateralGbps > 0 {
		d += ", " + ports(s.LateralGbps, rate) + " lateral"
	}
	return d
}

// oversubscription checks every tier the analysis measured against its limit and names all
// offending switches of the tier: a user cutting uplinks needs to see which leaves.
func (c *checker) oversubscription() {
	for _, t := range c.tierOrder() {
		lim, ok := c.p.TierLimit(t)
		if !ok {
			continue
		}
		measured := c.r.Oversubscription[t]
		var offenders []string
		var worst *analysis.SwitchLoad
		inTier := 0
		for i := range c.r.PerSwitch {
			s := &c.r.PerSwitch[i]
			if s.Tier != t {
				continue
			}
			inTier++
			if exceeds(s.Oversubscription, lim.Value) {
				offenders = append(offenders, s.Name)
				if worst == nil || s.Oversubscription > worst.Oversubscription {
					worst = s
				}
			}
		}
		if worst != nil && worst.Oversubscription > measured {
			measured = worst.Oversubscription
		}
		if !exceeds(measured, lim.Value) {
			continue
		}
		// The analysis' own witness wins when it is among the offenders (or when the tier is
		// not made of single switches, like the dragonfly group tier).
		if w, ok := c.r.Worst[t]; ok && (worst == nil || w.Name == worst.Name || w.Oversubscription >= worst.Oversubscription) {
			worst = &w
		}
		at, witness := "", "tier "+t
		if worst != nil {
			at = fmt.Sprintf(" at %s (%s)", what(worst), c.load(*worst))
			witness = what(worst)
		}
		m, req := ratio(measured, lim.Value), ratio(lim.Value, lim.Value)
		nearest := c.nearestOversubscription(t, lim, measured, worst) // nearest.go
		switch {
		case len(offenders) > 1:
			witness = fmt.Sprintf("%s (%d of %d %s switches)", names(offenders), len(offenders), inTier, t)
			c.add(RuleOversubscription, Error, m, "at most "+req, witness,
				"tier %s is %s%s; %d of %d %s switches are above %s: %s; %s allows at most %s%s",
				t, m, at, len(offenders), inTier, t, req, names(offenders), lim.Source, req, nearest)
		default:
			c.add(RuleOversubscription, Error, m, "at most "+req, witness,
				"tier %s is %s%s; %s allows at most %s%s", t, m, at, lim.Source, req, nearest)
		}
	}
	// A group limit with no group tier cannot be checked: say so rather than pass.
	if lim, ok := c.p.TierLimits[TierGroup]; ok {
		if _, measured := c.r.Oversubscription[TierGroup]; !measured && c.r.Switches > 0 {
			c.add(RuleOversubscription, Warning, "no group tier", "at most "+ratio(lim.Value, lim.Value), "tier group",
				"%s limits tier group to %s, but no switch declares a dragonfly group, so there is no group tier to check; set group on the switches of each group",
				lim.Source, ratio(lim.Value, lim.Value))
		}
	}
}

// sideA and sideB describe the two sides of a cut (side).
func sideA(cut analysis.Cut) string {
	return side(cut.EndpointsA, cut.MovedToA, len(cut.MovedEndpoints)-cut.MovedToA, cut.SwitchesA)
}

func sideB(cut analysis.Cut) string {
	return side(cut.EndpointsB, len(cut.MovedEndpoints)-cut.MovedToA, cut.MovedToA, cut.SwitchesB)
}

// side describes one side of a cut: "128 endpoints behind 8 switches (leaf01, ...)". Where the
// cut balances its sides by placing endpoints apart from their switch (each such endpoint's
// access link crosses the cut), it says how many of a side's endpoints are behind its own
// switches and how many come from the other side: "48 endpoints: all 32 behind 1 switch (leaf03)
// and 16 from the other side's switches", "48 endpoints: 48 of the 64 behind 3 switches
// (spine01, leaf01, leaf02)". A person checks these counts on the switches' ports.
func side(endpoints, movedIn, movedOut int, switches []string) string {
	s := plural(endpoints, "endpoint", "endpoints")
	if len(switches) == 0 {
		return s
	}
	sw := fmt.Sprintf("%s (%s)", plural(len(switches), "switch", "switches"), names(switches))
	if movedIn == 0 && movedOut == 0 {
		return s + " behind " + sw
	}
	kept := endpoints - movedIn
	if movedOut == 0 {
		s += fmt.Sprintf(": all %d behind %s", kept, sw)
	} else {
		s += fmt.Sprintf(": %d of the %d behind %s", kept, kept+movedOut, sw)
	}
	if movedIn > 0 {
		s += fmt.Sprintf(" and %d from the other side's switches", movedIn)
	}
	return s
}

// bisection: the policy asks for a proved ratio. When even the witness cut is below the limit the
// fabric is refuted; when only the proof falls short, the message says so, because the fix (a
// more regular wiring, or a lower limit) differs.
func (c *checker) bisection() {
	lim := c.p.MinBisectionRatio
	full := c.r.FullBisectionGbps
	if lim == nil || full <= 0 || c.r.Endpoints < 2 {
		return
	}
	if !below(c.r.BisectionRatio, lim.Value) {
		return
	}
	cut := c.r.Cut
	method := ""
	if cut.Method != "" {
		method = " (" + cut.Method + ")"
	}
	cutDesc := fmt.Sprintf("balanced cut%s of %s across %s, between %s and %s", method, gbps(cut.CapacityGbps),
		plural(cut.CrossingLinks, "link", "links"), sideA(cut), sideB(cut))
	witness := fmt.Sprintf("cut%s: %d endpoints / %d switches (%s) | %d endpoints / %d switches (%s), %d links, %s",
		method, cut.EndpointsA, len(cut.SwitchesA), names(cut.SwitchesA), cut.EndpointsB, len(cut.SwitchesB), names(cut.SwitchesB),
		cut.CrossingLinks, gbps(cut.CapacityGbps))
	// The ratio is a proved minimum: the analysis' value is exact or rounded down already, and
	// is printed as it is, never rounded again to nearest (12,400 of 12,800 is 0.96875, not
	// 0.969). The witness's ratio is an upper bound: rounded up.
	m := asIs(c.r.BisectionRatio)
	req := "at least " + num(lim.Value, 3)
	need := gbps(lim.Value * full)
	upper := roundUp(c.r.BisectionUpperGbps/full, 6)
	nearest := c.nearestBisection() // nearest.go
	if below(upper, lim.Value) {
		c.add(RuleBisection, Error, m, req, witness,
			"ratio is %s (%s of %s full bisection); %s requires at least %s (%s). Witness: a %s%s",
			m, gbps(c.r.BisectionLowerGbps), gbps(full), lim.Source, num(lim.Value, 3), need, cutDesc, nearest)
		return
	}
	c.add(RuleBisection, Error, m, req, witness,
		"a ratio of at least %s is not proved: the lower bound is %s (%s of %s full bisection) and the smallest balanced cut found is %s (%s); %s requires a proved %s (%s). Smallest cut found: a %s%s",
		num(lim.Value, 3), m, gbps(c.r.BisectionLowerGbps), gbps(full), num(upper, 6), gbps(c.r.BisectionUpperGbps),
		lim.Source, num(lim.Value, 3), need, cutDesc, nearest)
}

func (c *checker) switchHops() {
	lim := c.p.MaxSwitchHops
	if lim == nil || float64(c.r.MaxSwitchHops) <= lim.Value {
		return
	}
	w := c.r.HopsWitness
	witness := w[0] + " to " + w[1]
	c.add(RuleSwitchHops, Error, fmt.Sprint(c.r.MaxSwitchHops), fmt.Sprintf("at most %d", int(lim.Value)), witness,
		"the worst shortest path takes %d switch-to-switch hops (%s); %s allows at most %d",
		c.r.MaxSwitchHops, witness, lim.Source, int(lim.Value))
}

// allReduce: a time limit without a workload cannot be checked, which is an error, not a pass.
func (c *checker) allReduce() {
	lim := c.p.MaxAllReduceSeconds
	if lim == nil {
		return
	}
	req := "at most " + seconds(lim.Value)
	ar := c.r.AllReduce
	if ar == nil {
		c.add(RuleAllReduce, Error, "no estimate", req, "workload",
			"%s is %s but the fabric has no workload, so the all-reduce time cannot be estimated; set workload = { ... } on the fabric or remove the limit",
			lim.Source, seconds(lim.Value))
		return
	}
	// NCCL picks the faster algorithm, so the faster estimate is the one to judge.
	best, algo := ar.RingSeconds, "ring"
	if ar.HierarchicalSeconds < best {
		best, algo = ar.HierarchicalSeconds, "hierarchical"
	}
	if !exceeds(best, lim.Value) {
		return
	}
	witness := fmt.Sprintf("%s per GPU at the bottleneck", gbps(ar.BottleneckGbps))
	c.add(RuleAllReduce, Error, seconds(best), req, witness,
		"the estimated gradient all-reduce takes %s (%s; ring %s, hierarchical %s, %s); %s allows at most %s",
		seconds(best), algo, seconds(ar.RingSeconds), seconds(ar.HierarchicalSeconds), witness, lim.Source, seconds(lim.Value))
}

// empty: a fabric without a single endpoint proves nothing (its bisection ratio of 1 is the
// vacuous one of "nothing to bisect"), so it is an error that says what is missing.
func (c *checker) empty() {
	if c.r.Endpoints > 0 {
		return
	}
	what := "it declares no switch, node, HCA or cable"
	if g := c.g; g != nil && g.Spec != nil {
		s := g.Spec
		what = fmt.Sprintf("it has %d switches, %d nodes, %d HCAs and %d cables, and no HCA port is cabled to a switch", len(s.Switches), len(s.Nodes), len(s.HCAs), len(s.Cables))
	}
	c.add(RuleEmptyFabric, Error, "0 endpoints", "at least one HCA port cabled to a switch", "fabric",
		"the fabric has no endpoints: %s. Declare the nodes, their hcas and a cable from each HCA to a leaf switch, or generate them with design = { ... }", what)
}

// spineHeadroom checks every switch of the top tier for free ports, and says so once for the
// fabric. A single-tier fabric (one switch, a torus) has no spine tier, so the rule does not
// apply to it. A generated design built to its planned size is judged as the same fabric
// declared by hand (issue 19: the origin document's rule, "add 30% more spine capacity than your
// bandwidth calculation says", holds whatever made the fabric); when every switch is the
// generator's, its advice (fabric.Plan.Advice: the planned size that keeps the default headroom)
// ends the message, the same words the design's note gives.
func (c *checker) spineHeadroom() {
	h := c.p.SpineHeadroom
	if h.Value <= 0 || c.r.Tiers < 2 {
		return
	}
	top := 0
	for _, s := range c.r.PerSwitch {
		if s.Level > top {
			top = s.Level
		}
	}
	if top < 2 {
		return
	}
	var offenders []string
	var worst *analysis.SwitchLoad
	inTier, tier := 0, ""
	frac := func(s *analysis.SwitchLoad) float64 {
		if s.Ports <= 0 {
			return 0
		}
		return float64(s.FreePorts) / float64(s.Ports)
	}
	for i := range c.r.PerSwitch {
		s := &c.r.PerSwitch[i]
		if s.Level != top {
			continue
		}
		inTier++
		if tier == "" {
			tier = s.Tier
		}
		if below(float64(s.FreePorts), h.Value*float64(s.Ports)) {
			offenders = append(offenders, s.Name)
			if worst == nil || frac(s) < frac(worst) {
				worst = s
			}
		}
	}
	if worst == nil {
		return
	}
	if tier == "" {
		tier = worst.Role
	}
	m := fmt.Sprintf("%s free (%d of %d ports)", percent(frac(worst)), worst.FreePorts, worst.Ports)
	need := int(math.Ceil(h.Value*float64(worst.Ports) - 1e-9))
	req := fmt.Sprintf("at least %s free", percent(h.Value))
	src := h.Source
	if src == "default" {
		src = "the default spine headroom (policy.spine_headroom)"
	}
	witness := worst.Name
	list := ""
	if len(offenders) > 1 {
		witness = fmt.Sprintf("%s (%d of %d %s switches)", names(offenders), len(offenders), inTier, tier)
		list = fmt.Sprintf("; %d of %d %s switches are below %s: %s", len(offenders), inTier, tier, percent(h.Value), names(offenders))
	}
	advice := ""
	if plan := c.generatedPlan(); plan != nil && plan.Advice != "" && h.Value == fabric.DefaultSpineHeadroom {
		advice = "; " + plan.Advice
	}
	c.add(RuleSpineHeadroom, c.p.HeadroomSeverity, m, req, witness,
		"top tier %s has %s free ports at %s (%d of %d free, %d used)%s; %s requires %s free ports (%d of %d) on every top-tier switch for growth%s",
		tier, percent(frac(worst)), worst.Name, worst.FreePorts, worst.Ports, worst.UsedPorts, list, src, percent(h.Value), need, worst.Ports, advice)
}

// generatedPlan returns the plan of a fabric generated whole, every switch from the design (a
// switch the user added beside the design makes the generator's advice moot), or nil.
func (c *checker) generatedPlan() *fabric.Plan {
	g := c.g
	if g == nil || g.Spec == nil || g.Spec.Plan == nil {
		return nil
	}
	for _, s := range g.Spec.Switches {
		if s.Origin == "" {
			return nil
		}
	}
	return g.Spec.Plan
}
