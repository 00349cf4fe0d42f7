package policy

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testgate"
)

// Rules that would visit 10^9 elements (issue 22: three nested fors over range(1000) hung a plan
// at 2 GB after 150 s) stop at the budget with an error that names the rule and its line, also
// where can() would turn an error into a value, and also in an error_message
// that is evaluated when the file is parsed. The budget counts what the rule visits: the nested
// sizes are an independent count (1000 per level), not a reading of the code under test.
func TestRuleBudgetStopsAHugeFor(t *testing.T) {
	testgate.RequireLong(t, "three rules run to the element budget")
	const cube = `[for a in range(1000) : [for b in range(1000) : [for c in range(1000) : c]]]`
	for _, cond := range []string{
		`alltrue([for a in range(1000) : alltrue([for b in range(1000) : alltrue([for c in range(1000) : c >= 0])])])`,
		`length(flatten(` + cube + `)) > 0`,
		`can(` + cube + `)`,
	} {
		src := fmt.Sprintf("rule \"ok\" {\n  condition = true\n  error_message = \"x\"\n}\nrule \"huge\" {\n  condition     = %s\n  error_message = \"too big\"\n}\n", cond)
		rules := mustParse(t, src)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		vs := Evaluate(nil, twoTier(2, 1, 32, 32), Policy{SpineHeadroom: f64(0)}, rules)
		took := time.Since(start)
		runtime.ReadMemStats(&after)
		v := only(t, vs, "huge/error")[0]
		// The element budget stops it; on a loaded machine the clock may come first.
		want := fmt.Sprintf("huge (policy/fabric.hcl:5): condition could not be evaluated: evaluation stopped because it visited more than %d elements (the budget of a rule)", MaxRuleElements)
		onTime := fmt.Sprintf("huge (policy/fabric.hcl:5): condition could not be evaluated: evaluation stopped because it ran for more than %s (the budget of a rule)", MaxRuleTime)
		if !strings.HasPrefix(v.Message, want) && !strings.HasPrefix(v.Message, onTime) {
			t.Errorf("%s:\n got %s\nwant %s...", cond, v.Message, want)
		}
		t.Logf("%s: stopped after %v, %d MB allocated", cond, took.Round(time.Millisecond), (after.TotalAlloc-before.TotalAlloc)>>20)
	}
	parseErr(t, "rule \"m\" {\n  condition = true\n  error_message = join(\"\", flatten("+cube+"))\n}\n",
		"policy/fabric.hcl:3", "error_message could not be evaluated: it ")
}

// The clock stops a rule too: under a budget of 1 ms, 300,000 elements (within the element
// budget) stop on time, with the time in the message.
func TestRuleBudgetStopsOnTime(t *testing.T) {
	rules := mustParse(t, "rule \"slow\" {\n  condition = length(flatten([for a in range(100) : [for b in range(1000) : b]])) > 0\n  error_message = \"x\"\n}\n")
	r := twoTier(2, 1, 32, 32)
	env := NewEnv(nil, &r, rules)
	b := newBudget()
	b.maxTime = time.Millisecond
	v, failed := evalRule(env.ctx, &rules[0], b)
	if !failed || !strings.Contains(v.Message, "slow (policy/fabric.hcl:1): condition could not be evaluated: evaluation stopped because it ran for more than 1ms (the budget of a rule)") {
		t.Errorf("violation %+v (failed %v)", v, failed)
	}
}

// Within the budget nothing changes: a rule that spends about 450,000 elements (150 x 1000
// returned by range and as many visited by the inner for, 150,000 in flatten's result) passes or
// fails on its condition, and each rule has a budget of its own.
func TestRuleBudgetLeavesCheapRulesAlone(t *testing.T) {
	var src strings.Builder
	for i := 0; i < 2; i++ {
		fmt.Fprintf(&src, "rule \"r%d\" {\n  condition = length(flatten([for a in range(150) : [for b in range(1000) : b]])) == 150000\n  error_message = \"x\"\n}\n", i)
	}
	src.WriteString("rule \"f\" {\n  condition = alltrue([for a in range(1000) : a < 999])\n  error_message = \"below 999\"\n}\n")
	vs := Evaluate(nil, twoTier(2, 1, 32, 32), Policy{SpineHeadroom: f64(0)}, mustParse(t, src.String()))
	v := only(t, vs, "f/error")[0]
	contains(t, v.Message, "f (policy/fabric.hcl:9): below 999. Failing: 1 of 1000: [999].")
}
