package policy

import "fmt"

// RuleEffectiveBisection is the rule on analysis.effective_bisection: the bandwidth random
// bisection patterns get under the subnet manager's static routes.
const RuleEffectiveBisection = "effective-bisection"

// effectiveBisection holds the mean effective bisection ratio against
// min_effective_bisection_ratio. The rule uses the mean, the figure the literature reports
// (Hoefler et al., IEEE Cluster 2008; Geoffray and Hoefler, Hot Interconnects 2008), so a limit
// can be set from it; the message also gives the 5th percentile. A fabric whose routes are not
// modelled cannot pass the rule (never a silent pass); one whose routing is not known yet is
// judged at apply.
//
// Whatever the limit, a configured engine that would fail on this fabric is a warning: OpenSM
// then routes with the next engine of the list (or minhop) and still exits 0.
func (c *checker) effectiveBisection() {
	e := c.r.Effective
	if e != nil {
		for _, f := range e.Fallbacks {
			c.add(RuleEffectiveBisection, Warning, "fallback to "+e.RoutingEngine, "no fallback", "routing_engine",
				"the configured routing engine would fail on this fabric (%s), and OpenSM would route with %s instead; the effective bisection shown is %s's",
				f, e.RoutingEngine, e.RoutingEngine)
		}
	}
	lim := c.p.MinEffectiveBisectionRatio
	if lim == nil || c.r.Endpoints < 2 {
		return
	}
	req := "at least " + num(lim.Value, 3)
	if e == nil {
		why := c.r.EffectiveWhyNot
		if why == "" {
			why = "the effective bisection was not computed"
		}
		if c.r.EffectivePending {
			c.add(RuleEffectiveBisection, Unknown, "unknown", req, "subnet_manager",
				"%s requires an effective bisection ratio of at least %s, but %s; it is checked again at apply",
				lim.Source, num(lim.Value, 3), why)
			return
		}
		c.add(RuleEffectiveBisection, Error, "not modelled", req, "subnet_manager",
			"%s requires an effective bisection ratio of at least %s, but it cannot be checked: %s; route with ftree, updn or minhop, or remove the limit",
			lim.Source, num(lim.Value, 3), why)
		return
	}
	if !below(e.RatioMean, lim.Value) {
		return
	}
	m := num(e.RatioMean, 4)
	c.add(RuleEffectiveBisection, Error, m, req, "routing_engine "+e.RoutingEngine,
		"under %s routing, random bisection patterns get %s of full bisection on average (5th percentile %s, %d patterns), below the %s that %s requires; the capacity ratio is %s. Static routing loses bandwidth to flows that share a link: %s",
		e.RoutingEngine, m, num(e.RatioP05, 4), e.Samples, num(lim.Value, 3), lim.Source, num(c.r.BisectionRatio, 3), advice(e.RoutingEngine))
}

// advice is what usually raises the effective bisection, per engine.
func advice(engine string) string {
	switch engine {
	case "ftree":
		return "ftree already spreads each leaf's destinations over its uplinks; what remains is contention on the way up, which only adaptive routing or more uplinks remove"
	case "minhop", "updn":
		return fmt.Sprintf("%s balances each switch on its own, so it depends on the cabling (a leaf's links to one spine on consecutive ports suit it, uplinks dealt round-robin over the spines do not); ftree spreads the destinations of every leaf over distinct uplinks whatever the cabling", engine)
	}
	return "try another routing engine"
}
