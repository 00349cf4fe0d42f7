package opensm

import "strings"

// FieldError is a validation error tied to what caused it, so the provider can attach the
// diagnostic to the right attribute.
//
// Field is a path in the Config's own terms: "routing_engine", "lmc", "options.sweep_interval",
// "roots[0]", "partitions[2].pkey", "partitions[2].members[5].guid", "switches[3].guid",
// "hcas[7].port_guid". Paths below "partitions", "switches" and "hcas" use the index of the
// element in the fabric's lists (FromGraph keeps their order). Option is the opensm.conf key the
// error is about, when there is one ("lmc", "routing_engine", "sweep_interval").
type FieldError struct {
	Field   string
	Option  string
	Message string
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

func (es *Errors) add(field, option, msg string) {
	*es = append(*es, &FieldError{Field: field, Option: option, Message: msg})
}
