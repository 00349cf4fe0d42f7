package policy

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// The budget of one custom rule's evaluation. HCL has no loops but `for` expressions, and they
// nest: three nested fors over range(1000) visit 10^9 elements, which issue 22 saw hang a plan
// at 2 GB after 150 s. A rule is stopped when it has visited MaxRuleElements elements (summed
// over every `for` it evaluates, and the elements of every collection a function returns) or run
// for MaxRuleTime, whichever comes first, and fails with an error that names it.
const (
	// MaxRuleElements is two and a half times the links of the largest fabric the generator
	// builds (196,608), so a rule may walk fabric.links and name its failing elements (which
	// visits them again) with room to spare. HCL visits some 300,000 elements a second on an idle
	// core here, allocating about 1 KB per element, so a rule stopped at the budget has taken
	// under two seconds and 600 MB in all (ten times the time on a machine as loaded as the
	// shared one the tests run on).
	MaxRuleElements = 500_000
	// MaxRuleTime is the safety net for what elements do not measure (a regex over long
	// strings). It is far above what the element budget allows (a rule stopped there has run a
	// few seconds even on a loaded machine), so that which rules pass never depends on the load
	// of the machine; the rules of the design guide over the largest fabric take milliseconds
	// (BenchmarkEvaluateLargest).
	MaxRuleTime = 30 * time.Second
)

// budgetFunc and stopFunc are the functions through which countCalls passes a rule's values: their
// names have a space, so no rule can call them, and they are added after the function names are
// checked (ParseRules).
const (
	budgetFunc = "gpucluster budget"
	stopFunc   = "gpucluster stop"
)

// budget counts one rule's elements and time.
type budget struct {
	maxElements int
	maxTime     time.Duration
	start       time.Time
	elements    int
	exceeded    string // why the budget is exhausted ("" while it is not)
}

func newBudget() *budget {
	return &budget{maxElements: MaxRuleElements, maxTime: MaxRuleTime, start: time.Now()}
}

// spend counts n elements and checks the clock; it reports false from the first exhaustion on.
func (b *budget) spend(n int) bool {
	b.elements += n
	switch {
	case b.exceeded != "":
	case b.elements > b.maxElements:
		b.exceeded = fmt.Sprintf("it visited more than %d elements (the budget of a rule)", b.maxElements)
	case time.Since(b.start) > b.maxTime:
		b.exceeded = fmt.Sprintf("it ran for more than %s (the budget of a rule)", b.maxTime)
	}
	return b.exceeded == ""
}

// size is what a value costs the budget: the elements of a collection, one for anything else.
func size(v cty.Value) int {
	if v.IsKnown() && !v.IsNull() && v.CanIterateElements() {
		return v.LengthInt()
	}
	return 1
}

// context returns the evaluation context of a rule under b: ctx with the two budget functions
// (countCalls). budgetFunc counts the elements of what passes through it: every `for`
// collection and every function result. stopFunc counts nothing and only checks: every function
// argument passes through it. Once the budget is exhausted both answer every value with an
// unknown one: a `for` over an unknown collection and a function of an unknown argument return at
// once, so the evaluation winds down in the time HCL takes to leave the loops it is in, and
// evalRule reports the exhaustion whatever the condition came to.
func (b *budget) context(ctx *hcl.EvalContext) *hcl.EvalContext {
	pass := func(count bool) function.Function {
		return function.New(&function.Spec{
			Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowDynamicType: true, AllowNull: true, AllowMarked: true}},
			Type:   func([]cty.Value) (cty.Type, error) { return cty.DynamicPseudoType, nil },
			Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
				n := 0
				if count {
					v, _ := args[0].Unmark()
					n = size(v)
				}
				if !b.spend(n) {
					return cty.DynamicVal, nil
				}
				return args[0], nil
			},
		})
	}
	child := ctx.NewChild()
	child.Functions = map[string]function.Function{budgetFunc: pass(true), stopFunc: pass(false)}
	return child
}

// countCalls puts under budgetFunc the collection of every `for` in expr (so that each evaluation
// of a `for`, an inner one once per element of the outer, counts its elements before it visits
// them) and the result of every function call (range() in a `for` makes a thousand elements per
// element), and under stopFunc every argument (an unknown argument stops a call before it runs). It
// rewrites the syntax tree in place, once: ParseRules calls it after the function names are
// checked. A call node becomes the budget call holding a copy of the original call, so the
// parent keeps its pointer.
func countCalls(expr hcl.Expression) {
	syn, ok := expr.(hclsyntax.Expression)
	if !ok {
		return
	}
	done := map[*hclsyntax.FunctionCallExpr]bool{}
	wrap := func(name string, e hclsyntax.Expression) *hclsyntax.FunctionCallExpr {
		rng := e.Range()
		w := &hclsyntax.FunctionCallExpr{Name: name, Args: []hclsyntax.Expression{e}, NameRange: rng, OpenParenRange: rng, CloseParenRange: rng}
		done[w] = true
		return w
	}
	_ = hclsyntax.VisitAll(syn, func(n hclsyntax.Node) hcl.Diagnostics { // the visitor reports nothing
		switch n := n.(type) {
		case *hclsyntax.ForExpr:
			// A call is counted as a call (below), once.
			if _, call := n.CollExpr.(*hclsyntax.FunctionCallExpr); !call {
				n.CollExpr = wrap(budgetFunc, n.CollExpr)
			}
		case *hclsyntax.FunctionCallExpr:
			if done[n] {
				return nil
			}
			orig := *n
			orig.Args = make([]hclsyntax.Expression, len(n.Args))
			for i, a := range n.Args {
				orig.Args[i] = wrap(stopFunc, a)
			}
			done[&orig] = true
			*n = *wrap(budgetFunc, &orig)
		}
		return nil
	})
}

// unwrapCall returns the expression that countCalls put under a budget function.
func unwrapCall(e hcl.Expression) hcl.Expression {
	if c, ok := e.(*hclsyntax.FunctionCallExpr); ok && (c.Name == budgetFunc || c.Name == stopFunc) && len(c.Args) == 1 {
		return c.Args[0]
	}
	return e
}
