package tfwire

import (
	"math/big"
	"sort"
)

// Object writes a Go struct T straight as the MessagePack of a Terraform object, as AppendValue
// would write the tftypes value of it, without building a tftypes value per attribute first.
// The provider declares which struct field is which attribute (a table of Fields, data only);
// this is the one place that turns the table into bytes. The discovered fabric writes its
// as_built floor this way: a floor of 2,048 HCAs is 62,000 values, and building them as tftypes
// values and encoding those was half of its read (BenchmarkDiscoveredFabricAsBuilt).
//
// Unset values are null, as the provider's tftypes encoder writes them: "" for strings, the
// field's unset number for whole numbers, 0 for floats, unless the field is NotNull.
type Object[T any] struct {
	fields []Field[T] // in name order: the order tftypes writes an object's attributes in
}

type fieldKind uint8

const (
	fString fieldKind = iota
	fInt
	fFloat
	fBool
	fNested // an object or a list of objects, written by sub
)

// Field is one attribute of an Object: its name and where its value is in T. Make it with
// StringField, IntField, FloatField, BoolField, ObjectField or ListField.
type Field[T any] struct {
	name    string
	kind    fieldKind
	notNull bool
	unset   int
	str     func(*T) *string
	num     func(*T) *int
	flt     func(*T) *float64
	bl      func(*T) *bool
	sub     func(b []byte, t *T) []byte
}

// StringField is a string attribute, null when "".
func StringField[T any](name string, acc func(*T) *string) Field[T] {
	return Field[T]{name: name, kind: fString, str: acc}
}

// IntField is a whole-number attribute, null when it equals unset.
func IntField[T any](name string, unset int, acc func(*T) *int) Field[T] {
	return Field[T]{name: name, kind: fInt, unset: unset, num: acc}
}

// FloatField is a number attribute, null when 0.
func FloatField[T any](name string, acc func(*T) *float64) Field[T] {
	return Field[T]{name: name, kind: fFloat, flt: acc}
}

// BoolField is a bool attribute, never null.
func BoolField[T any](name string, acc func(*T) *bool) Field[T] {
	return Field[T]{name: name, kind: fBool, bl: acc}
}

// ObjectField is a nested object attribute, written by o from the U that acc gives.
func ObjectField[T, U any](name string, acc func(*T) *U, o *Object[U]) Field[T] {
	return Field[T]{name: name, kind: fNested, sub: func(b []byte, t *T) []byte { return o.Append(b, acc(t)) }}
}

// ListField is a list-of-objects attribute, each element written by o.
func ListField[T, U any](name string, acc func(*T) *[]U, o *Object[U]) Field[T] {
	return Field[T]{name: name, kind: fNested, sub: func(b []byte, t *T) []byte {
		l := *acc(t)
		b = AppendArrayLen(b, len(l))
		for i := range l {
			b = o.Append(b, &l[i])
		}
		return b
	}}
}

// NotNull returns f written as its value even when it is the unset one ("" or 0).
func (f Field[T]) NotNull() Field[T] {
	f.notNull = true
	return f
}

// Name is the attribute's name.
func (f Field[T]) Name() string { return f.name }

// NewObject returns the writer of an object with these attributes.
func NewObject[T any](fields ...Field[T]) *Object[T] {
	o := &Object[T]{fields: append([]Field[T](nil), fields...)}
	sort.Slice(o.fields, func(a, b int) bool { return o.fields[a].name < o.fields[b].name })
	return o
}

// Extra is a string attribute an object carries besides its table's fields, null when empty.
type Extra struct{ Name, Value string }

// Append writes t as the object, with extra (sorted by name) merged in.
func (o *Object[T]) Append(b []byte, t *T, extra ...Extra) []byte {
	fs := o.fields
	b = AppendMapLen(b, len(fs)+len(extra))
	i, j := 0, 0
	for i < len(fs) || j < len(extra) {
		if j == len(extra) || i < len(fs) && fs[i].name < extra[j].Name {
			b = fs[i].append(b, t)
			i++
			continue
		}
		b = AppendStrOrNil(AppendString(b, extra[j].Name), extra[j].Value)
		j++
	}
	return b
}

// append writes the field's name and value.
func (f *Field[T]) append(b []byte, t *T) []byte {
	b = AppendString(b, f.name)
	switch f.kind {
	case fString:
		if f.notNull {
			return AppendString(b, *f.str(t))
		}
		return AppendStrOrNil(b, *f.str(t))
	case fInt:
		if v := *f.num(t); f.notNull || v != f.unset {
			return AppendInt(b, int64(v))
		}
		return AppendNil(b)
	case fFloat:
		if v := *f.flt(t); f.notNull || v != 0 {
			return AppendNumber(b, big.NewFloat(v))
		}
		return AppendNil(b)
	case fBool:
		return AppendBool(b, *f.bl(t))
	}
	return f.sub(b, t)
}
