package opensm

import (
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// FieldError is a validation error tied to what caused it, so the provider can attach the
// diagnostic to the right attribute.
//
// At locates the cause structurally (see Loc); the provider maps it to its attribute path
// without reading text. Field is At in the Config's own terms, for messages:
// "routing_engine", "lmc", "options.sweep_interval", "roots[0]", "partitions[2].pkey",
// "partitions[2].members[5].guid", "switches[3].guid", "hcas[7].port_guid" (a line of partitions.conf text read back,
// "partitions.conf:12", is located at the partitions as a whole). Option is the
// opensm.conf key the error is about, when there is one ("lmc", "routing_engine",
// "sweep_interval").
type FieldError struct {
	At      Loc
	Field   string
	Option  string
	Message string
}

// Loc locates a FieldError. On an element of the fabric's inventory, Map is its map
// (fabric.MapSwitches, fabric.MapPartitions, ...), Index its place in the graph's Spec
// (FromGraph keeps that order; -1 when the error is on no one element), and Steps the
// attributes below it. Otherwise Map is empty and Steps is the subnet_manager setting:
// {lmc}, {options, qos}, {roots, [1]}. A Step with an empty Name is a list index.
type Loc struct {
	Map   string
	Index int
	Steps []fabric.Step
}

// elemLoc locates the attributes attrs of element i of the inventory map m.
func elemLoc(m string, i int, attrs ...string) Loc {
	return Loc{Map: m, Index: i}.Attr(attrs...)
}

// settingLoc locates the subnet_manager setting names (e.g. "options", "qos").
func settingLoc(names ...string) Loc { return Loc{Index: -1}.Attr(names...) }

// Attr returns l extended by the attribute names attrs.
func (l Loc) Attr(attrs ...string) Loc {
	steps := make([]fabric.Step, len(l.Steps), len(l.Steps)+len(attrs))
	copy(steps, l.Steps)
	for _, a := range attrs {
		steps = append(steps, fabric.Step{Name: a})
	}
	l.Steps = steps
	return l
}

// At returns l extended by the list element i.
func (l Loc) At(i int) Loc {
	steps := make([]fabric.Step, len(l.Steps), len(l.Steps)+1)
	copy(steps, l.Steps)
	l.Steps = append(steps, fabric.Step{Index: i})
	return l
}

// String is l in the Config's own terms: "partitions[2].members[5].guid", "options.qos".
func (l Loc) String() string {
	var b strings.Builder
	if l.Map != "" {
		b.WriteString(l.Map)
		if l.Index >= 0 {
			b.WriteString("[" + strconv.Itoa(l.Index) + "]")
		}
	}
	for _, s := range l.Steps {
		switch {
		case s.Name == "":
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case b.Len() > 0:
			b.WriteString("." + s.Name)
		default:
			b.WriteString(s.Name)
		}
	}
	return b.String()
}

func newFieldError(at Loc, option, msg string) *FieldError {
	return &FieldError{At: at, Field: at.String(), Option: option, Message: msg}
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Errors is a list of validation errors; it is an error itself when not empty.
type Errors []*FieldError

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Err returns es as an error, or nil when it is empty.
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

func (es *Errors) add(at Loc, option, msg string) {
	*es = append(*es, newFieldError(at, option, msg))
}
