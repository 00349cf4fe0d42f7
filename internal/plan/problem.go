package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/listed"
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
const MaxPerCause = listed.Few

// Capped keeps the first n problems of each cause (Summary and Severity) and adds, after the
// last of a cause it cut, one problem that counts what it left out and names the first few of
// their places, so no cause is hidden and no plan prints more than a few screens.
func (ps Problems) Capped(n int) Problems {
	return CapEach(ps, n,
		func(p Problem) string { return fmt.Sprint(p.Severity) + "\x00" + p.Summary },
		func(p Problem) string { return p.At.String() },
		func(first Problem, more int, places []string) Problem {
			return Problem{Severity: first.Severity, Summary: first.Summary, Detail: MoreDetail(more, places, first.Severity == Error)}
		})
}

// CapEach keeps the first n items of each cause, in order, and puts after the last item of a cause
// it cut the item that more makes of the first of them, the number cut and their first places
// (distinct, at most five). The provider caps its decoder's diagnostics with it, the pipeline its
// Problems (Capped), so both say what they leave out the same way.
func CapEach[T any](items []T, n int, cause func(T) string, place func(T) string, more func(first T, count int, places []string) T) []T {
	total := map[string]int{}
	for _, it := range items {
		total[cause(it)]++
	}
	out := make([]T, 0, len(items))
	seen := map[string]int{}
	places := map[string][]string{}
	for _, it := range items {
		c := cause(it)
		seen[c]++
		if seen[c] <= n {
			out = append(out, it)
			continue
		}
		ps := places[c]
		if at := place(it); at != "" && len(ps) < 5 && (len(ps) == 0 || ps[len(ps)-1] != at) {
			places[c] = append(ps, at)
		}
		if seen[c] == total[c] {
			out = append(out, more(it, total[c]-n, places[c]))
		}
	}
	return out
}

// MoreDetail says how many problems of one kind a plan does not show, and where the first are.
func MoreDetail(count int, places []string, isError bool) string {
	d := fmt.Sprintf("%d more problem%s of this kind are not shown", count, plural(count))
	if len(places) > 0 {
		d += ", at " + strings.Join(places, ", ")
		if count > len(places) {
			d += ", ..."
		}
	}
	d += "."
	if isError {
		d += " Fix the ones shown and plan again."
	}
	return d
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
