package policy

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/hashicorp/hcl/v2/ext/tryfunc"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

var (
	funcsOnce sync.Once
	funcs     map[string]function.Function
)

// functions returns the functions custom rules can call: the ones Terraform users reach for in
// preconditions, with Terraform's names and behaviour. The map is shared and never written after
// it is built.
func functions() map[string]function.Function {
	funcsOnce.Do(func() {
		funcs = map[string]function.Function{
			"alltrue":  allTrueFunc,
			"anytrue":  anyTrueFunc,
			"sum":      sumFunc,
			"length":   lengthFunc,
			"min":      stdlib.MinFunc,
			"max":      stdlib.MaxFunc,
			"abs":      stdlib.AbsoluteFunc,
			"ceil":     stdlib.CeilFunc,
			"floor":    stdlib.FloorFunc,
			"signum":   stdlib.SignumFunc,
			"pow":      stdlib.PowFunc,
			"contains": stdlib.ContainsFunc,
			"keys":     stdlib.KeysFunc,
			"values":   stdlib.ValuesFunc,
			"lookup":   stdlib.LookupFunc,
			"merge":    stdlib.MergeFunc,
			"concat":   stdlib.ConcatFunc,
			"distinct": stdlib.DistinctFunc,
			"flatten":  stdlib.FlattenFunc,
			"coalesce": coalesceFunc,
			"range":    stdlib.RangeFunc,
			"sort":     stdlib.SortFunc,
			"format":   stdlib.FormatFunc,
			"join":     stdlib.JoinFunc,
			"split":    stdlib.SplitFunc,
			"upper":    stdlib.UpperFunc,
			"lower":    stdlib.LowerFunc,
			"regex":    stdlib.RegexFunc,
			"tostring": typeConv(cty.String),
			"tonumber": typeConv(cty.Number),
			"tobool":   typeConv(cty.Bool),
			"can":      tryfunc.CanFunc,
			"try":      tryfunc.TryFunc,
		}
	})
	return funcs
}

// FunctionNames returns the names of the functions rules can call, sorted (for messages and docs).
func FunctionNames() []string {
	fs := functions()
	out := make([]string, 0, len(fs))
	for k := range fs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// elements checks that v is a list, set or tuple and returns its elements. The functions below
// take any of them as is: converting a 5,000-element tuple from a for expression to a list first
// costs more (type unification) than the whole fold.
func elements(v cty.Value) ([]cty.Value, error) {
	ty := v.Type()
	if !ty.IsListType() && !ty.IsSetType() && !ty.IsTupleType() {
		return nil, fmt.Errorf("argument must be a list, a set or a tuple, not %s", ty.FriendlyName())
	}
	if v.IsNull() {
		return nil, errors.New("argument must not be null")
	}
	return v.AsValueSlice(), nil
}

// boolFold is alltrue/anytrue as Terraform has them: an unknown element makes the result
// unknown (never a guess), a null element counts as false, and elements must be bools (or
// strings "true"/"false", as Terraform converts them).
func boolFold(all bool) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowDynamicType: true}},
		Type:   function.StaticReturnType(cty.Bool),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if !args[0].IsKnown() {
				return cty.UnknownVal(cty.Bool), nil
			}
			elems, err := elements(args[0])
			if err != nil {
				return cty.NilVal, err
			}
			unknown := false
			for i, v := range elems {
				if v.Type() != cty.Bool {
					c, err := convert.Convert(v, cty.Bool)
					if err != nil {
						return cty.NilVal, fmt.Errorf("element %d: %s", i, err)
					}
					v = c
				}
				switch {
				case !v.IsKnown():
					unknown = true
				case v.IsNull() || v.False():
					if all {
						return cty.False, nil
					}
				default:
					if !all {
						return cty.True, nil
					}
				}
			}
			if unknown {
				return cty.UnknownVal(cty.Bool), nil
			}
			return cty.BoolVal(all), nil
		},
	})
}

var (
	allTrueFunc = boolFold(true)
	anyTrueFunc = boolFold(false)
)

// sumFunc adds a list of numbers. Unlike Terraform's, the sum of an empty list is 0: a rule
// summing the ports of a filtered, empty set of switches should compare, not fail.
var sumFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowDynamicType: true}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		if !args[0].IsWhollyKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		elems, err := elements(args[0])
		if err != nil {
			return cty.NilVal, err
		}
		total := cty.Zero
		for i, v := range elems {
			if v.IsNull() {
				return cty.NilVal, errors.New("argument must not contain null values")
			}
			n, err := convert.Convert(v, cty.Number)
			if err != nil {
				return cty.NilVal, fmt.Errorf("element %d: %s", i, err)
			}
			total = total.Add(n)
		}
		return total, nil
	},
})

// lengthFunc is Terraform's length: collections, and strings in characters.
var lengthFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowUnknown: true}},
	Type: func(args []cty.Value) (cty.Type, error) {
		ty := args[0].Type()
		switch {
		case ty == cty.String, ty == cty.DynamicPseudoType, ty.IsListType(), ty.IsMapType(), ty.IsSetType(),
			ty.IsTupleType(), ty.IsObjectType():
			return cty.Number, nil
		}
		return cty.NilType, errors.New("argument must be a string, a collection type, or a structural type")
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v := args[0]
		if !v.IsKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		if v.IsNull() {
			return cty.NilVal, errors.New("argument must not be null")
		}
		switch ty := v.Type(); {
		case ty == cty.String:
			return stdlib.Strlen(v)
		case ty.IsObjectType():
			return cty.NumberIntVal(int64(len(ty.AttributeTypes()))), nil
		}
		return v.Length(), nil
	},
})

// typeConv is Terraform's tostring/tonumber/tobool.
func typeConv(want cty.Type) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{{Name: "v", Type: cty.DynamicPseudoType, AllowNull: true, AllowDynamicType: true}},
		Type:   function.StaticReturnType(want),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			return convert.Convert(args[0], want)
		},
	})
}

// coalesceFunc is Terraform's coalesce: the first argument that is neither null nor an empty
// string. go-cty's stops at "", which would surprise a Terraform user.
var coalesceFunc = function.New(&function.Spec{
	VarParam: &function.Parameter{Name: "vals", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowDynamicType: true, AllowNull: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		types := make([]cty.Type, len(args))
		for i, v := range args {
			types[i] = v.Type()
		}
		ty, _ := convert.UnifyUnsafe(types)
		if ty == cty.NilType {
			return cty.NilType, errors.New("all arguments must have the same type")
		}
		return ty, nil
	},
	Impl: func(args []cty.Value, retType cty.Type) (cty.Value, error) {
		for _, v := range args {
			if !v.IsKnown() {
				return cty.UnknownVal(retType), nil
			}
			if v.IsNull() {
				continue
			}
			c, err := convert.Convert(v, retType)
			if err != nil {
				return cty.NilVal, err
			}
			if c.Type() == cty.String && c.AsString() == "" {
				continue
			}
			return c, nil
		}
		return cty.NilVal, errors.New("no non-null, non-empty-string arguments")
	},
})
