package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// Severity of a Problem.
type Severity uint8

const (
	Error Severity = iota
	Warning
)

// Problem is one thing wrong with (or worth saying about) the inputs, where it is caused.
type Problem struct {
	Severity Severity
	Summary  string // a short title: "Fabric: port reuse", "Policy violation: bisection"
	Detail   string // what is wrong and what would be right
	At       Loc    // the cause's attribute path; empty for the fabric as a whole
}

// Loc is an attribute path in a fabric's inputs: a root attribute ("switches", "design",
// "policy", "subnet_manager") and the steps below it. Map elements are located by their key,
// so a message points at `partitions["fast"].rate`, not at the element's place in a list.
type Loc struct {
	Steps []Step
}

// Step is one step of a Loc: an attribute Name, a map Key (IsKey), or a list Index.
type Step struct {
	Name  string
	Key   string
	IsKey bool
	Index int
}

// Attr is the path of the root attribute name and the attributes below it.
func Attr(name string, more ...string) Loc { return Loc{}.Attr(append([]string{name}, more...)...) }

// Attr returns l extended by the attribute names.
func (l Loc) Attr(names ...string) Loc {
	out := l.grow(len(names))
	for _, n := range names {
		out.Steps = append(out.Steps, Step{Name: n})
	}
	return out
}

// Key returns l extended by the map key k.
func (l Loc) Key(k string) Loc {
	out := l.grow(1)
	out.Steps = append(out.Steps, Step{Key: k, IsKey: true})
	return out
}

// Index returns l extended by the list index i.
func (l Loc) Index(i int) Loc {
	out := l.grow(1)
	out.Steps = append(out.Steps, Step{Index: i})
	return out
}

func (l Loc) grow(n int) Loc {
	steps := make([]Step, len(l.Steps), len(l.Steps)+n)
	copy(steps, l.Steps)
	return Loc{Steps: steps}
}

// String writes l as Terraform does: switches["leaf01"].guid, policy_files[0].
func (l Loc) String() string {
	var b strings.Builder
	for i, s := range l.Steps {
		switch {
		case s.IsKey:
			b.WriteString("[" + strconv.Quote(s.Key) + "]")
		case s.Name == "":
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case i > 0:
			b.WriteString("." + s.Name)
		default:
			b.WriteString(s.Name)
		}
	}
	return b.String()
}

// Problems is a list of problems in the order they were found.
type Problems []Problem

// HasErrors reports whether any problem is an error.
func (ps Problems) HasErrors() bool {
	for _, p := range ps {
		if p.Severity == Error {
			return true
		}
	}
	return false
}

func (ps *Problems) add(sev Severity, at Loc, summary, detail string) {
	*ps = append(*ps, Problem{Severity: sev, Summary: summary, Detail: detail, At: at})
}

// MaxPerCause is how many problems of one cause (one Summary) a plan shows before it counts
// the rest: 10,000 garbage cables would otherwise print 20,000 diagnostics, and Terraform
// renders diagnostics in time quadratic in their number.
const MaxPerCause = 5

// Capped keeps the first n problems of each cause (Summary and Severity) and adds, after the
// last of a cause it cut, one problem that counts what it left out and names the first few of
// their places, so no cause is hidden and no plan prints more than a few screens.
func (ps Problems) Capped(n int) Problems {
	type cause struct {
		sev     Severity
		summary string
	}
	total := map[cause]int{}
	for _, p := range ps {
		total[cause{p.Severity, p.Summary}]++
	}
	out := make(Problems, 0, len(ps))
	seen := map[cause]int{}
	left := map[cause][]string{}
	for _, p := range ps {
		c := cause{p.Severity, p.Summary}
		seen[c]++
		switch {
		case seen[c] <= n:
			out = append(out, p)
		default:
			if len(left[c]) < 5 && len(p.At.Steps) > 0 {
				left[c] = append(left[c], p.At.String())
			}
			if seen[c] == total[c] {
				more := total[c] - n
				detail := fmt.Sprintf("%d more problem%s of this kind are not shown", more, plural(more))
				if len(left[c]) > 0 {
					detail += ", at " + strings.Join(left[c], ", ")
					if more > len(left[c]) {
						detail += ", ..."
					}
				}
				out = append(out, Problem{Severity: c.sev, Summary: c.summary, Detail: detail + ". Fix the ones shown and plan again."})
			}
		}
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Errors is ps without its warnings.
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if p.Severity == Error {
			out = append(out, p)
		}
	}
	return out
}
