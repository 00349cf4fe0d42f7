package policy

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// The spine-headroom rule of the design guide (docs/guides/design.md, "Policy"), word for word.
const headroomRule = `rule "spine-headroom" {
  condition     = alltrue([for s in fabric.switches : s.free_ports >= 0.3 * s.ports if s.role == "spine"])
  error_message = "Every spine needs 30% free ports for growth."
}
`

func mustParse(t *testing.T, src string) []Rule {
	t.Helper()
	rules, err := ParseRules("policy/fabric.hcl", []byte(src))
	if err != nil {
		t.Fatalf("ParseRules: %v", err)
	}
	return rules
}

func parseErr(t *testing.T, src string, want ...string) {
	t.Helper()
	_, err := ParseRules("policy/fabric.hcl", []byte(src))
	if err == nil {
		t.Fatalf("ParseRules succeeded, want an error with %q", want)
	}
	var pe *ParseError
	if !errors.As(err, &pe) || len(pe.Diags) == 0 {
		t.Errorf("error %T is not a *ParseError with diagnostics", err)
	}
	contains(t, err.Error(), want...)
}

func TestDesignExampleRule(t *testing.T) {
	rules := mustParse(t, headroomRule)
	if len(rules) != 1 || rules[0].Name != "spine-headroom" || rules[0].Severity != Error || rules[0].Location() != "policy/fabric.hcl:1" {
		t.Fatalf("rules = %+v", rules)
	}
	// Only the custom rule is judged: built-in headroom is off so the two are not confused.
	p := Policy{SpineHeadroom: f64(0)}
	t.Run("passes with half the spine ports free", func(t *testing.T) {
		only(t, Evaluate(nil, twoTier(8, 8, 32, 32), p, rules))
	})
	t.Run("fails on full spines and names them", func(t *testing.T) {
		r := twoTier(8, 8, 32, 32)
		r.PerSwitch[10].FreePorts, r.PerSwitch[10].UsedPorts = 4, 60 // spine03
		v := only(t, Evaluate(nil, r, p, rules), "spine-headroom/error")[0]
		want := "spine-headroom (policy/fabric.hcl:1): Every spine needs 30% free ports for growth. Failing: 1 of 8: spine03."
		if v.Message != want {
			t.Errorf("message\n got %s\nwant %s", v.Message, want)
		}
		if v.Witness != "spine03 (1 of 8)" || v.Measured != "false" {
			t.Errorf("witness %q measured %q", v.Witness, v.Measured)
		}
		vs := Evaluate(nil, twoTier(16, 8, 32, 32), p, rules)
		contains(t, vs[0].Message, "Failing: 8 of 8: spine01, spine02, spine03, spine04, spine05 and 3 more.")
	})
}

func TestRuleSyntaxErrorHasFileAndLine(t *testing.T) {
	parseErr(t, "rule \"a\" {\n  condition = true\n  error_message = \"x\n}\n", "policy/fabric.hcl:3")
	parseErr(t, "rule \"a\" {\n  condition = (1 +\n}\n", "policy/fabric.hcl:")
	parseErr(t, "rules \"a\" {}\n", "policy/fabric.hcl:1", `Unsupported block type`)
	parseErr(t, "rule \"a\" {\n  error_message = \"x\"\n}\n", "policy/fabric.hcl:1", `Missing required argument`, `"condition"`)
	parseErr(t, "rule \"a\" {\n  condition = true\n  error_message = \"x\"\n  because = 1\n}\n", "policy/fabric.hcl:4", `Unsupported argument`)
}

func TestRuleUnknownFunction(t *testing.T) {
	parseErr(t, "rule \"a\" {\n  condition     = everytrue([for s in fabric.switches : s.ports > 0])\n  error_message = \"x\"\n}\n",
		"policy/fabric.hcl:2,19-28", `Call to unknown function`, `There is no function named "everytrue"`, "alltrue, anytrue")
}

func TestRuleUnknownVariable(t *testing.T) {
	parseErr(t, "rule \"a\" {\n  condition     = var.limit > 1\n  error_message = \"x\"\n}\n",
		"policy/fabric.hcl:2", `There is no variable named "var"; rules can refer to fabric and analysis`)
}

func TestRuleErrorMessageAndSeverity(t *testing.T) {
	parseErr(t, "rule \"a\" {\n  condition     = true\n  error_message = \"  \"\n}\n", "policy/fabric.hcl:3", "Empty error_message")
	parseErr(t, "rule \"a\" {\n  condition     = true\n  error_message = [\"x\"]\n}\n", "policy/fabric.hcl:3", "error_message must be a string")
	parseErr(t, "rule \"a\" {\n  condition     = true\n  error_message = \"x\"\n  severity = \"fatal\"\n}\n",
		"policy/fabric.hcl:4", `severity must be "error" (the default) or "warning"`)
	parseErr(t, "rule \"a\" {\n  condition = true\n  error_message = \"x\"\n}\nrule \"a\" {\n  condition = true\n  error_message = \"y\"\n}\n",
		"policy/fabric.hcl:5", `A rule named "a" was already declared at policy/fabric.hcl:1`)

	rules := mustParse(t, `
rule "warn" {
  condition     = analysis.tiers < 2
  error_message = "only ${analysis.tiers} tiers allowed, ${length(fabric.switches)} switches"
  severity      = "warning"
}
rule "empty-template" {
  condition     = false
  error_message = "${analysis.tiers == 2 ? "" : "x"}"
}`)
	vs := only(t, Evaluate(nil, twoTier(8, 8, 32, 32), Policy{}, rules), "warn/warning", "empty-template/error")
	if vs[0].Message != "warn (policy/fabric.hcl:2): only 2 tiers allowed, 16 switches" {
		t.Errorf("message = %q", vs[0].Message)
	}
	contains(t, vs[1].Message, "empty-template (policy/fabric.hcl:7): condition is false", "Empty error_message")
}

func TestRuleNonBoolCondition(t *testing.T) {
	rules := mustParse(t, "rule \"count\" {\n  condition     = length(fabric.switches)\n  error_message = \"x\"\n}\n"+
		"rule \"null\" {\n  condition     = analysis.allreduce_seconds\n  error_message = \"x\"\n}\n")
	vs := only(t, Evaluate(nil, twoTier(8, 8, 32, 32), Policy{}, rules), "count/error", "null/error")
	contains(t, vs[0].Message, "count (policy/fabric.hcl:1): policy/fabric.hcl:2,19-42: Invalid condition result", "must be a bool", "got a number")
	contains(t, vs[1].Message, "policy/fabric.hcl:6", "the condition is null")
}

func TestRuleEvaluationErrorIsAViolation(t *testing.T) {
	rules := mustParse(t, `rule "typo" {
  condition     = alltrue([for s in fabric.switches : s.fre_ports > 0])
  error_message = "x"
}
rule "type" {
  condition     = analysis.tiers > "two"
  error_message = "x"
}`)
	vs := only(t, Evaluate(nil, twoTier(8, 8, 32, 32), Policy{}, rules), "typo/error", "type/error")
	contains(t, vs[0].Message, "typo (policy/fabric.hcl:1): condition could not be evaluated: policy/fabric.hcl:2,", "Unsupported attribute", `"fre_ports"`)
	contains(t, vs[1].Message, "policy/fabric.hcl:6,", "Invalid operand")
	// The for expression fails once per switch; the rule says so once.
	if n := strings.Count(vs[0].Message, "Unsupported attribute"); n != 1 {
		t.Errorf("the evaluation error is printed %d times:\n%s", n, vs[0].Message)
	}
}

func TestRuleBisectionRatio(t *testing.T) {
	rules := mustParse(t, `rule "full-bisection" {
  condition     = analysis.bisection_ratio >= 0.9
  error_message = "Need 90% of full bisection, have ${format("%.2f", analysis.bisection_ratio)} (${analysis.bisection_lower_gbps} of ${analysis.full_bisection_gbps} Gb/s)."
}`)
	only(t, Evaluate(nil, twoTier(8, 8, 32, 32), Policy{}, rules))
	v := only(t, Evaluate(nil, twoTier(8, 8, 32, 24), Policy{}, rules), "full-bisection/error")[0]
	if v.Message != "full-bisection (policy/fabric.hcl:1): Need 90% of full bisection, have 0.75 (38400 of 51200 Gb/s)." {
		t.Errorf("message = %q", v.Message)
	}
}

// Every attribute of the analysis object and the functions rules need, each in a rule that holds.
func TestRuleVariablesAndFunctions(t *testing.T) {
	r := twoTier(8, 8, 32, 32)
	r.AllReduce = &analysis.AllReduce{RingSeconds: 0.5, HierarchicalSeconds: 0.25}
	rules := mustParse(t, `
rule "analysis" {
  condition = alltrue([
    analysis.endpoints == 256, analysis.switches == 16, analysis.links == 512, analysis.tiers == 2,
    analysis.port_rate_gbps == 400, analysis.full_bisection_gbps == 51200,
    analysis.bisection_lower_gbps == 51200, analysis.bisection_upper_gbps == 51200, analysis.bisection_ratio == 1,
    analysis.oversubscription["leaf"] == 1, analysis.max_oversubscription == 1, analysis.max_switch_hops == 2,
    analysis.allreduce_seconds.ring == 0.5, analysis.allreduce_seconds.hierarchical == 0.25,
  ])
  error_message = "analysis"
}
rule "functions" {
  condition = alltrue([
    anytrue([false, true]), !anytrue([]), alltrue([]),
    length(fabric.switches) == 16, length("abc") == 3,
    min([for s in fabric.switches : s.free_ports]...) == 0, max(1, 5, 3) == 5,
    sum([for s in fabric.switches : s.ports]) == 1024, sum([]) == 0,
    contains([for s in fabric.switches : s.name], "spine08"),
    contains(keys(analysis.oversubscription), "leaf"), values(analysis.oversubscription)[0] == 1,
    lookup(analysis.oversubscription, "spine", 0) == 0,
    abs(-2) == 2, ceil(1.2) == 2, floor(1.8) == 1,
    format("%s-%d", "leaf", 3) == "leaf-3", join(",", ["a", "b"]) == "a,b",
    length(concat([1], [2, 3])) == 3, length(distinct([for s in fabric.switches : s.role])) == 2,
    length(flatten([[1], [2, [3]]])) == 3, coalesce("", "x") == "x", coalesce(null, 2) == 2,
    can(fabric.switches[100]) == false, try(fabric.switches[100].name, "none") == "none",
    try(analysis.allreduce_seconds.ring < 1, false),
    tonumber("3") == 3, upper("a") == "A",
  ])
  error_message = "functions"
}
rule "fabric" {
  condition = alltrue([
    fabric.tiers["leaf"].switches == 8, fabric.tiers["leaf"].oversubscription == 1, fabric.tiers["leaf"].worst == "leaf01",
    fabric.tiers["spine"].top, !fabric.tiers["leaf"].top, fabric.tiers["spine"].free_ports == 256,
    fabric.switches[0].tier == "leaf", fabric.switches[0].level == 1, fabric.switches[0].down_gbps == 12800,
    fabric.switches[0].up_gbps == 12800, fabric.switches[0].used_ports == 64, fabric.switches[0].oversubscription == 1,
    fabric.switches[0].group == "", fabric.switches[8].oversubscription == 0,
  ])
  error_message = "fabric"
}`)
	only(t, Evaluate(nil, r, Policy{}, rules))
}

func TestRuleUnknownIsNotAPass(t *testing.T) {
	rules := mustParse(t, headroomRule+`
rule "links" {
  condition     = alltrue([for l in fabric.links : l.rate_gbps == 400])
  error_message = "all links at 400G"
}
rule "literal" {
  condition     = 1 + 1 == 2
  error_message = "arithmetic"
}`)
	// Without the graph, the switch list is known but links are not: the rule that reads them is
	// deferred, not passed, and does not fail the plan.
	vs := Evaluate(nil, twoTier(8, 8, 32, 32), Policy{}, rules)
	only(t, vs, "links/unknown")
	contains(t, vs[0].Message, "links (policy/fabric.hcl:6): condition depends on values not known until apply")
	if HasErrors(vs) {
		t.Error("HasErrors counts an unknown rule as an error")
	}

	// Unknown elements in an alltrue stay unknown rather than becoming true.
	rack := mustParse(t, `rule "rack" {
  condition     = alltrue([for s in fabric.switches : s.rack != ""])
  error_message = "every switch in a rack"
}`)
	only(t, Evaluate(nil, twoTier(8, 8, 32, 32), Policy{}, rack), "rack/unknown")
}

// Only the parts of `fabric` that rules name are built; a rule using `fabric` whole gets all.
func TestEnvBuildsOnlyWhatRulesRead(t *testing.T) {
	r := twoTier(8, 8, 32, 32)
	attrs := func(rules []Rule) []string {
		ty := NewEnv(nil, &r, rules).ctx.Variables[VarFabric].Type()
		var out []string
		for _, a := range fabricAttrs {
			if ty.HasAttribute(a) {
				out = append(out, a)
			}
		}
		return out
	}
	if got := attrs(mustParse(t, headroomRule)); fmt.Sprint(got) != "[switches]" {
		t.Errorf("headroom rule builds %v", got)
	}
	if got := attrs(mustParse(t, `rule "x" {
  condition     = fabric["racks"] != null && length(analysis.oversubscription) > 0
  error_message = "x"
}`)); fmt.Sprint(got) != "[racks]" {
		t.Errorf("index rule builds %v", got)
	}
	whole := mustParse(t, `rule "x" {
  condition     = length(keys(fabric)) == 5
  error_message = "x"
}`)
	if got := attrs(whole); len(got) != len(fabricAttrs) {
		t.Errorf("whole-object rule builds %v", got)
	}
	only(t, Evaluate(nil, r, Policy{}, whole))
	if got := attrs(nil); len(got) != len(fabricAttrs) {
		t.Errorf("nil rules build %v", got)
	}
}

// smallCluster: 4 DGX H100 in rack r01, two leaves and a spine in rack r02, built by fabric.Build.
func smallCluster(t *testing.T) (*fabric.Graph, analysis.Result) {
	t.Helper()
	s := &fabric.Spec{
		Racks: []fabric.Rack{{Name: "r01", Row: 1, Position: 1, PowerKW: 45}, {Name: "r02", Row: 1, Position: 2}},
		Switches: []fabric.Switch{
			{Name: "leaf01", Model: "QM9700", Rack: "r02", PositionU: 20},
			{Name: "leaf02", Model: "QM9700", Rack: "r02", PositionU: 21},
			{Name: "spine01", Model: "QM9700", Rack: "r02", PositionU: 30},
		},
	}
	for n := 0; n < 4; n++ {
		node := fmt.Sprintf("gpu%03d", n+1)
		s.Nodes = append(s.Nodes, fabric.Node{Name: node, Model: "DGX-H100", Rack: "r01", PositionU: 2 + 9*n})
		for r := 0; r < 8; r++ {
			dev := fmt.Sprintf("mlx5_%d", r)
			s.HCAs = append(s.HCAs, fabric.HCA{Name: fabric.HCAName(node, dev), Node: node, Device: dev, Rail: r})
			leaf := "leaf01"
			if r >= 4 {
				leaf = "leaf02"
			}
			s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: leaf, Port: n*4 + r%4 + 1}, B: fabric.End{Device: fabric.HCAName(node, dev), Port: 1}})
		}
	}
	for l, leaf := range []string{"leaf01", "leaf02"} {
		for p := 0; p < 16; p++ {
			s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: leaf, Port: 33 + p}, B: fabric.End{Device: "spine01", Port: l*16 + p + 1}, Kind: "fiber-sm"})
		}
	}
	g, ps := fabric.Build(s, catalog.Default())
	if fabric.HasErrors(ps) {
		t.Fatalf("fabric.Build: %v", ps)
	}
	leaf := func(n string) analysis.SwitchLoad {
		return analysis.SwitchLoad{Name: n, Role: "leaf", Tier: "leaf", Level: 1, Ports: 64, UsedPorts: 32, FreePorts: 32,
			DownGbps: 16 * rate, UpGbps: 16 * rate, Oversubscription: 1}
	}
	r := analysis.Result{Endpoints: 32, Switches: 3, Links: 64, Tiers: 2, PortRateGbps: rate, MaxSwitchHops: 2,
		FullBisectionGbps: 6400, BisectionLowerGbps: 6400, BisectionUpperGbps: 6400, BisectionRatio: 1,
		PerSwitch: []analysis.SwitchLoad{leaf("leaf01"), leaf("leaf02"), {Name: "spine01", Role: "spine", Tier: "spine", Level: 2,
			Ports: 64, UsedPorts: 32, FreePorts: 32, DownGbps: 32 * rate}}}
	refresh(&r)
	return g, r
}

func TestRulesOnABuiltGraph(t *testing.T) {
	g, r := smallCluster(t)
	rules := mustParse(t, headroomRule+`
rule "graph" {
  condition = alltrue([
    length(fabric.links) == 64, alltrue([for l in fabric.links : l.rate_gbps == 400]),
    length([for l in fabric.links : l if l.kind == "fiber-sm"]) == 32,
    length(fabric.endpoints) == 32, fabric.endpoints[0].name == "gpu001/mlx5_0", fabric.endpoints[0].node == "gpu001",
    fabric.endpoints[0].rail == 0, fabric.endpoints[0].switch == "leaf01", fabric.endpoints[7].switch == "leaf02",
    fabric.endpoints[0].rack == "r01", fabric.endpoints[0].links == 1,
    length(fabric.racks) == 2, fabric.racks[0].nodes == 4, fabric.racks[1].switches == 3, fabric.racks[1].units == 42,
    fabric.racks[0].power_kw == 45,
    alltrue([for s in fabric.switches : s.rack == "r02" && s.model == "QM9700"]),
  ])
  error_message = "graph"
}
rule "per-rack-power" {
  condition     = alltrue([for r in fabric.racks : r.nodes <= 3])
  error_message = "At most 3 DGX per rack."
}`)
	vs := only(t, Evaluate(g, r, Policy{Preset: PresetTrainingLarge}, rules), "per-rack-power/error")
	if vs[0].Message != "per-rack-power (policy/fabric.hcl:19): At most 3 DGX per rack. Failing: 1 of 2: r01." {
		t.Errorf("message = %q", vs[0].Message)
	}
}

func TestFunctionNames(t *testing.T) {
	want := []string{"abs", "alltrue", "anytrue", "can", "ceil", "coalesce", "concat", "contains", "distinct", "flatten",
		"floor", "format", "join", "keys", "length", "lookup", "max", "min", "sum", "try", "values"}
	have := strings.Join(FunctionNames(), " ")
	for _, f := range want {
		if !strings.Contains(" "+have+" ", " "+f+" ") {
			t.Errorf("function %s missing from %s", f, have)
		}
	}
}

func TestFnumNaNIsNull(t *testing.T) {
	if v := fnum(0.0 / zero()); !v.IsNull() || v.Type() != cty.Number {
		t.Errorf("fnum(NaN) = %#v", v)
	}
}

func zero() float64 { return 0 }

// An empty analysis (no switches, a NaN ratio) never panics and never passes a rule that reads
// the missing number.
func TestEmptyAnalysis(t *testing.T) {
	rules := mustParse(t, headroomRule+`
rule "ratio" {
  condition     = analysis.bisection_ratio >= 1
  error_message = "full bisection"
}`)
	r := analysis.Result{BisectionRatio: 0.0 / zero()}
	vs := only(t, Evaluate(nil, r, Policy{Preset: PresetTrainingLarge}, rules), "empty-fabric/error", "ratio/error")
	contains(t, vs[0].Message, "the fabric has no endpoints")
	contains(t, vs[1].Message, "ratio (policy/fabric.hcl:6): condition could not be evaluated", "policy/fabric.hcl:7", "must not be null")
}

func FuzzParseRules(f *testing.F) {
	f.Add([]byte(headroomRule))
	f.Add([]byte("rule \"a\" {\n  condition = try(fabric.x, 1) > 0\n  error_message = \"${1}\"\n  severity = \"warning\"\n}\n"))
	f.Add([]byte("rule {}"))
	r := twoTier(4, 2, 8, 8)
	f.Fuzz(func(t *testing.T, src []byte) {
		rules, err := ParseRules("f.hcl", src)
		if err != nil {
			return
		}
		for _, v := range Evaluate(nil, r, Policy{}, rules) {
			if v.Message == "" || v.Rule == "" {
				t.Fatalf("empty violation %+v", v)
			}
		}
	})
}
