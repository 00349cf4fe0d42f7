package policy

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// Rule is one custom rule from a policy file:
//
//	rule "spine-headroom" {
//	  condition     = alltrue([for s in fabric.switches : s.free_ports >= 0.3 * s.ports if s.role == "spine"])
//	  error_message = "Every spine needs 30% free ports for growth."
//	  severity      = "warning" # optional; "error" by default
//	}
type Rule struct {
	Name     string
	Severity Severity  // Error or Warning
	Range    hcl.Range // the rule block's header, for messages ("policy/fabric.hcl:3")

	condition    hcl.Expression
	errorMessage hcl.Expression
	// fabricAttrs are the attributes of `fabric` the rule refers to; needsAll is set when it
	// uses `fabric` as a whole, so NewEnv builds only what some rule reads.
	fabricAttrs []string
	needsAll    bool
}

// Location is the rule's file and line, "policy/fabric.hcl:3".
func (r *Rule) Location() string {
	return fmt.Sprintf("%s:%d", r.Range.Filename, r.Range.Start.Line)
}

// ParseError holds the HCL diagnostics of a policy file; its text gives each with file:line.
type ParseError struct {
	Diags hcl.Diagnostics
}

func (e *ParseError) Error() string { return diagText(e.Diags) }

// diagText prints diagnostics one per line, each as "file:line,col-col: summary; detail", and
// each text once: a for expression reports the same error for every element it visits.
func diagText(diags hcl.Diagnostics) string {
	var lines []string
	seen := map[string]bool{}
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		s := d.Summary
		if d.Detail != "" {
			s += "; " + d.Detail
		}
		if d.Subject != nil {
			s = d.Subject.String() + ": " + s
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

var fileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "rule", LabelNames: []string{"name"}}},
}

var ruleSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true},
		{Name: "error_message", Required: true},
		{Name: "severity"},
	},
}

// ParseRules parses one policy file. It checks what can be checked before the fabric is known,
// so that a typo fails at once and at its line: syntax, the block and attribute names, duplicate
// rule names, the severity, the variables (only fabric and analysis exist), the function names,
// and an error_message that is a literal must not be empty. Errors are *ParseError.
func ParseRules(filename string, src []byte) ([]Rule, error) {
	file, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, &ParseError{diags}
	}
	content, diags := file.Body.Content(fileSchema)
	var rules []Rule
	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		rule, ds := parseRule(b)
		diags = append(diags, ds...)
		if prev, dup := seen[rule.Name]; dup {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate rule",
				Detail:  fmt.Sprintf("A rule named %q was already declared at %s:%d; rule names must be unique.", rule.Name, prev.Filename, prev.Start.Line),
				Subject: b.LabelRanges[0].Ptr()})
			continue
		}
		seen[rule.Name] = b.DefRange
		if !ds.HasErrors() {
			rules = append(rules, rule)
		}
	}
	if diags.HasErrors() {
		return nil, &ParseError{diags}
	}
	return rules, nil
}

func parseRule(b *hcl.Block) (Rule, hcl.Diagnostics) {
	rule := Rule{Name: b.Labels[0], Severity: Error, Range: b.DefRange}
	var diags hcl.Diagnostics
	if strings.TrimSpace(rule.Name) == "" {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty rule name",
			Detail: "A rule needs a name, e.g. rule \"spine-headroom\" { ... }.", Subject: b.LabelRanges[0].Ptr()})
	}
	content, ds := b.Body.Content(ruleSchema)
	diags = append(diags, ds...)
	if ds.HasErrors() {
		return rule, diags
	}
	rule.condition = content.Attributes["condition"].Expr
	rule.errorMessage = content.Attributes["error_message"].Expr
	diags = append(diags, rule.checkExpr(rule.condition)...)
	diags = append(diags, rule.checkExpr(rule.errorMessage)...)
	countCalls(rule.condition)
	countCalls(rule.errorMessage)

	if len(rule.errorMessage.Variables()) == 0 && !diags.HasErrors() {
		b := newBudget()
		v, ds := rule.errorMessage.Value(b.context(&hcl.EvalContext{Functions: functions()}))
		switch {
		case b.exceeded != "":
			ds = hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid error_message",
				Detail: "error_message could not be evaluated: " + b.exceeded, Subject: rule.errorMessage.Range().Ptr()}}
		case !ds.HasErrors():
			ds = checkMessage(v, rule.errorMessage.Range())
		}
		diags = append(diags, ds...)
	}

	if a, ok := content.Attributes["severity"]; ok {
		v, ds := a.Expr.Value(nil)
		switch {
		case ds.HasErrors():
			diags = append(diags, ds...)
		case v.Type() == cty.String && v.IsKnown() && !v.IsNull() && (v.AsString() == string(Error) || v.AsString() == string(Warning)):
			rule.Severity = Severity(v.AsString())
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid severity",
				Detail: `severity must be "error" (the default) or "warning".`, Subject: a.Expr.Range().Ptr()})
		}
	}
	return rule, diags
}

// checkExpr checks the variables and functions an expression uses and records which attributes
// of `fabric` it reads.
func (r *Rule) checkExpr(expr hcl.Expression) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, t := range expr.Variables() {
		switch root := t.RootName(); root {
		case VarAnalysis:
		case VarFabric:
			r.noteFabric(t)
		default:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown variable",
				Detail:  fmt.Sprintf("There is no variable named %q; rules can refer to %s and %s.", root, VarFabric, VarAnalysis),
				Subject: t.SourceRange().Ptr()})
		}
	}
	if syn, ok := expr.(hclsyntax.Expression); ok {
		fs := functions()
		diags = append(diags, hclsyntax.VisitAll(syn, func(n hclsyntax.Node) hcl.Diagnostics {
			call, ok := n.(*hclsyntax.FunctionCallExpr)
			if !ok {
				return nil
			}
			if _, known := fs[call.Name]; known {
				return nil
			}
			return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Call to unknown function",
				Detail:  fmt.Sprintf("There is no function named %q. Rules can call: %s.", call.Name, strings.Join(FunctionNames(), ", ")),
				Subject: call.NameRange.Ptr()}}
		})...)
	}
	return diags
}

func (r *Rule) noteFabric(t hcl.Traversal) {
	if len(t) < 2 {
		r.needsAll = true
		return
	}
	var name string
	switch step := t[1].(type) {
	case hcl.TraverseAttr:
		name = step.Name
	case hcl.TraverseIndex:
		if step.Key.Type() != cty.String || !step.Key.IsKnown() || step.Key.IsNull() {
			r.needsAll = true
			return
		}
		name = step.Key.AsString()
	default:
		r.needsAll = true
		return
	}
	for _, a := range r.fabricAttrs {
		if a == name {
			return
		}
	}
	r.fabricAttrs = append(r.fabricAttrs, name)
}

func checkMessage(v cty.Value, rng hcl.Range) hcl.Diagnostics {
	msg, err := convert.Convert(v, cty.String)
	switch {
	case err != nil:
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid error_message",
			Detail: "error_message must be a string: " + err.Error(), Subject: rng.Ptr()}}
	case !msg.IsKnown():
		return nil // judged when known
	case msg.IsNull() || strings.TrimSpace(msg.AsString()) == "":
		return hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Empty error_message",
			Detail: "error_message must say what is wrong and what to change; it must not be empty.", Subject: rng.Ptr()}}
	}
	return nil
}

// EvaluateRules evaluates custom rules against an Env, in order. A rule whose condition is true
// yields nothing; false yields a violation of the rule's severity; an error, a null or a
// non-bool yields an Error violation carrying the diagnostic with file:line; an unknown yields
// an Unknown violation.
func EvaluateRules(env *Env, rules []Rule) []Violation {
	var out []Violation
	for i := range rules {
		if v, ok := evalRule(env.ctx, &rules[i], newBudget()); ok {
			out = append(out, v)
		}
	}
	return out
}

func evalRule(ctx *hcl.EvalContext, r *Rule, b *budget) (v Violation, failed bool) {
	loc := r.Location()
	ctx = b.context(ctx)
	fail := func(sev Severity, measured, witness, format string, args ...any) (Violation, bool) {
		return Violation{Rule: r.Name, Severity: sev, Measured: measured, Required: "true", Witness: witness,
			Message: fmt.Sprintf("%s (%s): ", r.Name, loc) + fmt.Sprintf(format, args...)}, true
	}
	// A panicking function must fail the rule, not the plan, and never pass it.
	defer func() {
		if p := recover(); p != nil {
			v, failed = fail(Error, "error", loc, "condition could not be evaluated: internal error: %v", p)
		}
	}()
	if r.condition == nil {
		return fail(Error, "error", loc, "rule has no condition")
	}
	val, diags := r.condition.Value(ctx)
	if b.exceeded != "" { // also where can() or try() turned the budget's error into a value
		return fail(Error, "stopped", loc, "condition could not be evaluated: evaluation stopped because %s; write the rule so that it visits fewer elements (nested for expressions multiply their collections' lengths)", b.exceeded)
	}
	if diags.HasErrors() {
		return fail(Error, "error", loc, "condition could not be evaluated: %s", diagText(diags))
	}
	rng := r.condition.Range()
	switch {
	case !val.IsWhollyKnown():
		return fail(Unknown, "unknown", loc, "condition depends on values not known until apply; it is checked again then")
	case val.IsNull():
		return fail(Error, "null", loc, "%s: Invalid condition result; the condition is null, it must be true or false", rng)
	case val.Type() != cty.Bool:
		return fail(Error, val.Type().FriendlyName(), loc, "%s: Invalid condition result; the condition must be a bool (true or false), got a %s",
			rng, val.Type().FriendlyName())
	case val.True():
		return Violation{}, false
	}

	msg, note := r.message(ctx)
	witness, detail := loc, ""
	if failing, total, ok := falseElements(ctx, r.condition); ok && len(failing) > 0 {
		witness = fmt.Sprintf("%s (%d of %d)", names(failing), len(failing), total)
		detail = fmt.Sprintf(" Failing: %d of %d: %s.", len(failing), total, names(failing))
		if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "!") && !strings.HasSuffix(msg, "?") {
			detail = "." + detail
		}
	}
	return fail(r.Severity, "false", witness, "%s%s%s", msg, detail, note)
}

// message evaluates error_message; a broken message still fails the rule, with the reason.
func (r *Rule) message(ctx *hcl.EvalContext) (msg, note string) {
	v, diags := r.errorMessage.Value(ctx)
	if diags.HasErrors() {
		return "condition is false", " (error_message could not be evaluated: " + diagText(diags) + ")"
	}
	if ds := checkMessage(v, r.errorMessage.Range()); ds.HasErrors() {
		return "condition is false", " (" + diagText(ds) + ")"
	}
	s, err := convert.Convert(v, cty.String)
	if err != nil || !s.IsKnown() {
		return "condition is false", " (error_message is not known yet)"
	}
	return strings.TrimSpace(s.AsString()), ""
}

// falseElements names the elements that make a condition of the common form
// alltrue([for x in COLL : COND if FILTER]) false, so a failing rule says which switches fail,
// like the built-in rules do. Elements are named by their `name` attribute, their map key or
// their index. It returns ok=false for any other form.
func falseElements(ctx *hcl.EvalContext, cond hcl.Expression) (failing []string, total int, ok bool) {
	call, isCall := unwrapCall(cond).(*hclsyntax.FunctionCallExpr)
	if !isCall || call.Name != "alltrue" || len(call.Args) != 1 {
		return nil, 0, false
	}
	f, isFor := unwrapCall(call.Args[0]).(*hclsyntax.ForExpr)
	if !isFor || f.KeyExpr != nil {
		return nil, 0, false
	}
	coll, diags := f.CollExpr.Value(ctx)
	if diags.HasErrors() || !coll.IsKnown() || coll.IsNull() || !coll.CanIterateElements() {
		return nil, 0, false
	}
	for it := coll.ElementIterator(); it.Next(); {
		k, v := it.Element()
		child := ctx.NewChild()
		child.Variables = map[string]cty.Value{f.ValVar: v}
		if f.KeyVar != "" {
			child.Variables[f.KeyVar] = k
		}
		if f.CondExpr != nil {
			c, ds := f.CondExpr.Value(child)
			if ds.HasErrors() || !c.IsKnown() || c.IsNull() || c.Type() != cty.Bool {
				return nil, 0, false
			}
			if c.False() {
				continue
			}
		}
		total++
		res, ds := f.ValExpr.Value(child)
		if ds.HasErrors() || !res.IsKnown() {
			return nil, 0, false
		}
		if res.Type() == cty.Bool && !res.IsNull() && res.True() {
			continue
		}
		failing = append(failing, elementName(k, v))
	}
	return failing, total, true
}

func elementName(k, v cty.Value) string {
	if ty := v.Type(); ty.IsObjectType() && ty.HasAttribute("name") && v.IsKnown() && !v.IsNull() {
		if n := v.GetAttr("name"); n.Type() == cty.String && n.IsKnown() && !n.IsNull() {
			return n.AsString()
		}
	}
	if k.Type() == cty.String && k.IsKnown() && !k.IsNull() {
		return k.AsString()
	}
	if k.Type() == cty.Number && k.IsKnown() && !k.IsNull() {
		return "[" + k.AsBigFloat().Text('f', -1) + "]"
	}
	return "?"
}
