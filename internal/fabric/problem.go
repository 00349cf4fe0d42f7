package fabric

import (
	"strconv"
	"strings"
)

// Severity of a Problem.
type Severity uint8

const (
	Error Severity = iota
	Warning
)

// Path locates the offending attribute in the fabric's inventory maps: Map is "switches",
// "cables", ..., Key the element's key in that map, Attrs the steps below it (e.g. "a", "port").
// An empty Map means the fabric as a whole.
//
// Design is set when the element was generated from the fabric's `design` rather than declared:
// it names the design attribute that produced the element (e.g. "switch_model",
// "scalable_units"), which is where the user can fix it; Map, Key and Attrs still say which
// generated element it is.
type Path struct {
	Map    string
	Key    string
	Attrs  []Step
	Design string
}

// Step is one step below an inventory element: an attribute Name, or, when Name is empty, the
// element Index of a list attribute (a partition's members).
type Step struct {
	Name  string
	Index int
}

// At returns the path of the attributes attrs of the element key of the inventory map m.
func At(m, key string, attrs ...string) Path {
	p := Path{Map: m, Key: key}
	return p.Attr(attrs...)
}

// Attr returns p extended by the attribute names attrs.
func (p Path) Attr(attrs ...string) Path {
	steps := make([]Step, len(p.Attrs), len(p.Attrs)+len(attrs))
	copy(steps, p.Attrs)
	for _, a := range attrs {
		steps = append(steps, Step{Name: a})
	}
	p.Attrs = steps
	return p
}

// Index returns p extended by the list element i.
func (p Path) Index(i int) Path {
	steps := make([]Step, len(p.Attrs), len(p.Attrs)+1)
	copy(steps, p.Attrs)
	p.Attrs = append(steps, Step{Index: i})
	return p
}

// Element is the path of the inventory element alone (no attributes, no design).
func (p Path) Element() string {
	if p.Map == "" {
		return "fabric"
	}
	var b strings.Builder
	b.WriteString(p.Map)
	b.WriteString("[")
	b.WriteString(strconv.Quote(p.Key))
	b.WriteString("]")
	for _, s := range p.Attrs {
		if s.Name == "" {
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		} else {
			b.WriteString("." + s.Name)
		}
	}
	return b.String()
}

// String is Terraform's notation, e.g. switches["leaf01"].guid; for a generated element, the
// design attribute and then the element: design.switch_model (switches["leaf01"].model).
func (p Path) String() string {
	if p.Design != "" {
		return "design." + p.Design + " (" + p.Element() + ")"
	}
	return p.Element()
}

// Problem is a structural defect found while building the graph.
type Problem struct {
	Rule     string // stable identifier, e.g. "port-reuse"
	Severity Severity
	Path     Path
	Message  string // what is wrong and what would be right
}

func (p Problem) String() string { return p.Path.String() + ": " + p.Message }

// Structural rules, as named in diagnostics.
const (
	RuleDuplicateName   = "duplicate-name"
	RuleUnknownModel    = "unknown-model"
	RuleUnknownDevice   = "unknown-device"
	RulePortRange       = "port-range"
	RulePortReuse       = "port-reuse"
	RuleSamePort        = "same-port"
	RuleSpeedMismatch   = "speed-mismatch"
	RuleCableReach      = "cable-reach"
	RuleCableKind       = "cable-kind"
	RuleUnknownRack     = "unknown-rack"
	RuleRackUnits       = "rack-units"
	RuleRackPower       = "rack-power"
	RuleUnknownNode     = "unknown-node"
	RulePartitionMember = "partition-member"
	RuleDisconnected    = "disconnected"
	RuleUncabled        = "uncabled"
	RuleHCACount        = "hca-count"
	RuleHCADevice       = "hca-device"
	RuleHCANode         = "hca-node"
	RuleMergeGUID       = "merge-guid"
)

// HasErrors reports whether any problem is an error.
func HasErrors(ps []Problem) bool {
	for _, p := range ps {
		if p.Severity == Error {
			return true
		}
	}
	return false
}
