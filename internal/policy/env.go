package policy

import (
	"sort"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Variable names that custom rules can refer to.
const (
	VarFabric   = "fabric"
	VarAnalysis = "analysis"
)

// Attributes of the `fabric` variable.
const (
	fabSwitches  = "switches"
	fabTiers     = "tiers"
	fabEndpoints = "endpoints"
	fabLinks     = "links"
	fabRacks     = "racks"
)

var fabricAttrs = []string{fabSwitches, fabTiers, fabEndpoints, fabLinks, fabRacks}

// Element types of the `fabric` lists. Every list element has the same object type, so rules can
// use for expressions and attribute typos fail with "Unsupported attribute" at the rule's line.
// Absent strings are "" and an unset rail is -1 (not null): comparisons with null are errors in
// HCL, and a rule like `s.group == "a"` should just be false.
var (
	switchType = cty.Object(map[string]cty.Type{
		"name": cty.String, "model": cty.String, "role": cty.String, "tier": cty.String, "group": cty.String,
		"rack": cty.String, "level": cty.Number, "ports": cty.Number, "used_ports": cty.Number,
		"free_ports": cty.Number, "down_gbps": cty.Number, "up_gbps": cty.Number, "lateral_gbps": cty.Number,
		"oversubscription": cty.Number,
	})
	tierType = cty.Object(map[string]cty.Type{
		"name": cty.String, "level": cty.Number, "switches": cty.Number, "ports": cty.Number,
		"used_ports": cty.Number, "free_ports": cty.Number, "oversubscription": cty.Number,
		"worst": cty.String, "top": cty.Bool,
	})
	endpointType = cty.Object(map[string]cty.Type{
		"name": cty.String, "node": cty.String, "rail": cty.Number, "rack": cty.String,
		"switch": cty.String, "links": cty.Number,
	})
	linkType = cty.Object(map[string]cty.Type{
		"a": cty.String, "a_port": cty.Number, "b": cty.String, "b_port": cty.Number,
		"rate_gbps": cty.Number, "length_m": cty.Number, "estimated": cty.Bool, "kind": cty.String,
	})
	rackType = cty.Object(map[string]cty.Type{
		"name": cty.String, "row": cty.Number, "position": cty.Number, "units": cty.Number,
		"power_kw": cty.Number, "switches": cty.Number, "nodes": cty.Number,
	})
	allReduceType = cty.Object(map[string]cty.Type{"ring": cty.Number, "hierarchical": cty.Number})
)

// Env is the evaluation context of custom rules: the `fabric` and `analysis` variables and the
// functions. Build it once per plan and evaluate every rule against it.
type Env struct {
	ctx *hcl.EvalContext
}

// needs says which attributes of `fabric` some rule refers to; all when a rule uses the whole
// object (keys(fabric), lookup(fabric, ...)) or nothing said (nil rules).
type needs struct {
	all   bool
	attrs map[string]bool
}

func (n *needs) want(a string) bool { return n.all || n.attrs[a] }

// NewEnv builds the variables for the given rules from a graph and its analysis. Only the
// attributes of `fabric` that the rules refer to are built: the link and endpoint lists of a
// 65,536-endpoint fabric hold some 200,000 objects, too many to build for rules that never read
// them. With rules nil, everything is built. g may be nil: the attributes that need it (racks,
// links, endpoints, switch racks) are then unknown, so rules that read them come back Unknown
// rather than passing on empty lists.
func NewEnv(g *fabric.Graph, r *analysis.Result, rules []Rule) *Env {
	n := needs{all: rules == nil, attrs: map[string]bool{}}
	for i := range rules {
		if rules[i].needsAll {
			n.all = true
		}
		for _, a := range rules[i].fabricAttrs {
			n.attrs[a] = true
		}
	}
	return &Env{ctx: &hcl.EvalContext{
		Variables: map[string]cty.Value{
			VarFabric:   fabricValue(g, r, &n),
			VarAnalysis: analysisValue(r),
		},
		Functions: functions(),
	}}
}

func str(s string) cty.Value { return cty.StringVal(s) }
func inum(i int) cty.Value   { return cty.NumberIntVal(int64(i)) }
func fnum(f float64) cty.Value {
	// NaN (say, a ratio of an empty fabric) has no cty number; null makes any comparison with it
	// an error at the rule's line instead of a quiet true or false.
	if f != f {
		return cty.NullVal(cty.Number)
	}
	return cty.NumberFloatVal(f)
}

// memo shares the cty values of repeated numbers and strings (port counts, roles, rack names)
// while one Env is built: a large fabric has few distinct values, and each new cty number is a
// big.Float allocation.
type memo struct {
	nums map[float64]cty.Value
	strs map[string]cty.Value
}

func newMemo() *memo {
	return &memo{nums: map[float64]cty.Value{}, strs: map[string]cty.Value{}}
}

func (m *memo) f(x float64) cty.Value {
	if x != x {
		return fnum(x)
	}
	v, ok := m.nums[x]
	if !ok {
		v = fnum(x)
		m.nums[x] = v
	}
	return v
}

func (m *memo) i(x int) cty.Value { return m.f(float64(x)) }

func (m *memo) s(x string) cty.Value {
	v, ok := m.strs[x]
	if !ok {
		v = str(x)
		m.strs[x] = v
	}
	return v
}

func listOf(ty cty.Type, vals []cty.Value) cty.Value {
	if len(vals) == 0 {
		return cty.ListValEmpty(ty)
	}
	return cty.ListVal(vals)
}

func fabricValue(g *fabric.Graph, r *analysis.Result, n *needs) cty.Value {
	attrs := map[string]cty.Value{}
	m := newMemo()
	if n.want(fabSwitches) {
		attrs[fabSwitches] = switchesValue(g, r, m)
	}
	if n.want(fabTiers) {
		attrs[fabTiers] = tiersValue(r)
	}
	if n.want(fabEndpoints) {
		attrs[fabEndpoints] = endpointsValue(g, m)
	}
	if n.want(fabLinks) {
		attrs[fabLinks] = linksValue(g, m)
	}
	if n.want(fabRacks) {
		attrs[fabRacks] = racksValue(g)
	}
	return cty.ObjectVal(attrs)
}

func switchesValue(g *fabric.Graph, r *analysis.Result, m *memo) cty.Value {
	vals := make([]cty.Value, len(r.PerSwitch))
	for i, s := range r.PerSwitch {
		rack := cty.UnknownVal(cty.String)
		model := cty.UnknownVal(cty.String)
		if g != nil {
			rack, model = m.s(""), m.s("")
			if d, ok := g.Lookup(s.Name); ok {
				rack, model = m.s(g.Devices[d].Rack), m.s(g.Devices[d].Model)
			}
		}
		vals[i] = cty.ObjectVal(map[string]cty.Value{
			"name": str(s.Name), "model": model, "role": m.s(s.Role), "tier": m.s(s.Tier), "group": m.s(s.Group),
			"rack": rack, "level": m.i(s.Level), "ports": m.i(s.Ports), "used_ports": m.i(s.UsedPorts),
			"free_ports": m.i(s.FreePorts), "down_gbps": m.f(s.DownGbps), "up_gbps": m.f(s.UpGbps),
			"lateral_gbps": m.f(s.LateralGbps), "oversubscription": m.f(s.Oversubscription),
		})
	}
	return listOf(switchType, vals)
}

// tiersValue aggregates the switches per tier; the dragonfly group tier, which no switch has as
// its own tier, aggregates the switches that declare a group.
func tiersValue(r *analysis.Result) cty.Value {
	type agg struct {
		level, switches, ports, used, free int
	}
	tiers := map[string]*agg{}
	get := func(t string) *agg {
		a := tiers[t]
		if a == nil {
			a = &agg{level: -1}
			tiers[t] = a
		}
		return a
	}
	top := 0
	for _, s := range r.PerSwitch {
		if s.Level > top {
			top = s.Level
		}
	}
	add := func(a *agg, s *analysis.SwitchLoad) {
		if a.level < 0 || (s.Level >= 0 && s.Level < a.level) {
			a.level = s.Level
		}
		a.switches++
		a.ports += s.Ports
		a.used += s.UsedPorts
		a.free += s.FreePorts
	}
	for t := range r.Oversubscription {
		get(t)
	}
	for i := range r.PerSwitch {
		s := &r.PerSwitch[i]
		if s.Tier != "" {
			add(get(s.Tier), s)
		}
		if s.Group != "" && s.Tier != TierGroup {
			if _, ok := r.Oversubscription[TierGroup]; ok {
				add(get(TierGroup), s)
			}
		}
	}
	if len(tiers) == 0 {
		return cty.MapValEmpty(tierType)
	}
	vals := make(map[string]cty.Value, len(tiers))
	for t, a := range tiers {
		vals[t] = cty.ObjectVal(map[string]cty.Value{
			"name": str(t), "level": inum(a.level), "switches": inum(a.switches), "ports": inum(a.ports),
			"used_ports": inum(a.used), "free_ports": inum(a.free), "oversubscription": fnum(r.Oversubscription[t]),
			"worst": str(r.Worst[t].Name), "top": cty.BoolVal(t != TierGroup && a.level == top && top > 0),
		})
	}
	return cty.MapVal(vals)
}

func endpointsValue(g *fabric.Graph, m *memo) cty.Value {
	if g == nil {
		return cty.UnknownVal(cty.List(endpointType))
	}
	eps := g.Endpoints()
	vals := make([]cty.Value, len(eps))
	for i, e := range eps {
		d := &g.Devices[e]
		links := g.LinksOf(e)
		sw := ""
		if len(links) > 0 {
			sw = g.Devices[g.Links[links[0]].Other(e)].Name
		}
		vals[i] = cty.ObjectVal(map[string]cty.Value{
			"name": str(d.Name), "node": m.s(d.Node), "rail": m.i(d.Rail), "rack": m.s(d.Rack),
			"switch": m.s(sw), "links": m.i(len(links)),
		})
	}
	return listOf(endpointType, vals)
}

func linksValue(g *fabric.Graph, m *memo) cty.Value {
	if g == nil {
		return cty.UnknownVal(cty.List(linkType))
	}
	vals := make([]cty.Value, len(g.Links))
	for i := range g.Links {
		l := &g.Links[i]
		kind := ""
		if g.Spec != nil && l.Cable >= 0 && l.Cable < len(g.Spec.Cables) {
			kind = g.Spec.Cables[l.Cable].Kind
		}
		vals[i] = cty.ObjectVal(map[string]cty.Value{
			"a": m.s(g.Devices[l.A].Name), "a_port": m.i(l.PortA), "b": m.s(g.Devices[l.B].Name),
			"b_port": m.i(l.PortB), "rate_gbps": m.f(l.RateGbps), "length_m": m.f(l.LengthM),
			"estimated": cty.BoolVal(l.Estimated), "kind": m.s(kind),
		})
	}
	return listOf(linkType, vals)
}

func racksValue(g *fabric.Graph) cty.Value {
	if g == nil {
		return cty.UnknownVal(cty.List(rackType))
	}
	if g.Spec == nil {
		return cty.ListValEmpty(rackType)
	}
	switches, nodes := map[string]int{}, map[string]int{}
	for i := range g.Devices {
		if d := &g.Devices[i]; d.Kind == fabric.KindSwitch && d.Rack != "" {
			switches[d.Rack]++
		}
	}
	for _, n := range g.Spec.Nodes {
		if n.Rack != "" {
			nodes[n.Rack]++
		}
	}
	vals := make([]cty.Value, len(g.Spec.Racks))
	for i, r := range g.Spec.Racks {
		units := r.Units
		if units == 0 {
			units = fabric.DefaultRackUnits
		}
		vals[i] = cty.ObjectVal(map[string]cty.Value{
			"name": str(r.Name), "row": inum(r.Row), "position": inum(r.Position), "units": inum(units),
			"power_kw": fnum(r.PowerKW), "switches": inum(switches[r.Name]), "nodes": inum(nodes[r.Name]),
		})
	}
	return listOf(rackType, vals)
}

// analysisValue mirrors the `analysis` attribute of gpucluster_fabric (its fixed shape, docs/guides/design.md), so a rule
// reads the same as a Terraform check block on the resource. `violations` is left out: it is
// what the rules produce.
func analysisValue(r *analysis.Result) cty.Value {
	over := cty.MapValEmpty(cty.Number)
	if len(r.Oversubscription) > 0 {
		m := make(map[string]cty.Value, len(r.Oversubscription))
		keys := make([]string, 0, len(r.Oversubscription))
		for k := range r.Oversubscription {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			m[k] = fnum(r.Oversubscription[k])
		}
		over = cty.MapVal(m)
	}
	ar := cty.NullVal(allReduceType)
	if r.AllReduce != nil {
		ar = cty.ObjectVal(map[string]cty.Value{
			"ring": fnum(r.AllReduce.RingSeconds), "hierarchical": fnum(r.AllReduce.HierarchicalSeconds),
		})
	}
	return cty.ObjectVal(map[string]cty.Value{
		"endpoints":            inum(r.Endpoints),
		"switches":             inum(r.Switches),
		"links":                inum(r.Links),
		"tiers":                inum(r.Tiers),
		"port_rate_gbps":       fnum(r.PortRateGbps),
		"full_bisection_gbps":  fnum(r.FullBisectionGbps),
		"bisection_lower_gbps": fnum(r.BisectionLowerGbps),
		"bisection_upper_gbps": fnum(r.BisectionUpperGbps),
		"bisection_ratio":      fnum(r.BisectionRatio),
		"oversubscription":     over,
		"max_oversubscription": maxOver(r), // null where no tier has uplinks (a torus)
		"max_switch_hops":      inum(r.MaxSwitchHops),
		"allreduce_seconds":    ar,
	})
}

func maxOver(r *analysis.Result) cty.Value {
	if v, ok := r.WorstOversubscription(); ok {
		return fnum(v)
	}
	return cty.NullVal(cty.Number)
}
