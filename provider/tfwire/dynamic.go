package tfwire

import (
	"math/big"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The values of a dynamic argument (`as_built`) reach the decoders as they were written, where
// Terraform converts a typed attribute's to the schema's type first. These read a value as the
// type a field wants, converting as Terraform's own conversion does (go-cty's convert package:
// a number or a bool reads as a string, a string holding a number as a number, "true" and
// "false" as a bool); ok is false where Terraform would refuse. For a typed attribute the value
// already has the wanted type and they only read it.

func AsString(v tftypes.Value) (string, bool) {
	switch {
	case v.Type().Is(tftypes.String):
		var s string
		return s, v.As(&s) == nil
	case v.Type().Is(tftypes.Number):
		var f big.Float
		if v.As(&f) != nil {
			return "", false
		}
		return f.Text('f', -1), true
	case v.Type().Is(tftypes.Bool):
		var b bool
		if v.As(&b) != nil {
			return "", false
		}
		if b {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

func AsNumber(v tftypes.Value) (*big.Float, bool) {
	switch {
	case v.Type().Is(tftypes.Number):
		var f big.Float
		return &f, v.As(&f) == nil
	case v.Type().Is(tftypes.String):
		var s string
		if v.As(&s) != nil {
			return nil, false
		}
		f, _, err := big.ParseFloat(strings.TrimSpace(s), 10, 512, big.ToNearestEven)
		return f, err == nil
	}
	return nil, false
}

// AsInt reads a whole number that fits an int64 (a port, a unit, a count).
func AsInt(v tftypes.Value) (int, bool) {
	f, ok := AsNumber(v)
	if !ok || !f.IsInt() {
		return 0, false
	}
	i, acc := f.Int64()
	return int(i), acc == big.Exact
}

func AsBool(v tftypes.Value) (bool, bool) {
	var b bool
	switch {
	case v.Type().Is(tftypes.Bool):
		return b, v.As(&b) == nil
	case v.Type().Is(tftypes.String):
		var s string
		if v.As(&s) != nil {
			return false, false
		}
		switch s {
		case "true":
			return true, true
		case "false":
			return false, true
		}
	}
	return false, false
}

// Kind names a value's type as a message says it: "a string", "a map", "an object".
func Kind(v tftypes.Value) string {
	t := v.Type()
	switch {
	case t == nil:
		return "nothing"
	case t.Is(tftypes.String):
		return "a string"
	case t.Is(tftypes.Number):
		return "a number"
	case t.Is(tftypes.Bool):
		return "a bool"
	case t.Is(tftypes.Map{}):
		return "a map"
	case t.Is(tftypes.Object{}):
		return "an object"
	case t.Is(tftypes.List{}), t.Is(tftypes.Tuple{}):
		return "a list"
	case t.Is(tftypes.Set{}):
		return "a set"
	}
	return "a value of type " + t.String()
}
