package fabric

import "fmt"

// Severity of a Problem.
type Severity uint8

const (
	Error Severity = iota
	Warning
)

// Path locates the offending attribute in the fabric's lists: List is "switches", "cables", ...,
// Index the element, Attrs the attribute names below it (e.g. "a", "port"). An empty List means
// the fabric as a whole.
type Path struct {
	List  string
	Index int
	Attrs []string
}

func (p Path) String() string {
	if p.List == "" {
		return "fabric"
	}
	s := fmt.Sprintf("%s[%d]", p.List, p.Index)
	for _, a := range p.Attrs {
		s += "." + a
	}
	return s
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
