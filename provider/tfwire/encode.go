package tfwire

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"sort"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// AppendValue writes v (of type typ) as the msgpack Terraform reads, as
// tfprotov6.NewDynamicValue does, without tftypes' attribute path per value: tftypes builds a
// path for every value it writes, in case it has an error to report, and for the 18,432 nodes
// and HCAs of a 16,384-endpoint topology that was most of the provider's time and garbage
// (BenchmarkTopologyReadServer: 1.45 s of 3.3 s in tftypes.marshalMsgPack). The encoding is the
// same MessagePack (https://github.com/msgpack/msgpack/blob/master/spec.md) tftypes writes:
// objects as maps of their attributes, numbers as the smallest integer that holds them, else a
// float64 when exact, else their decimal text. Unknown values and dynamic types, which need
// tftypes' extension types, are written by tftypes.
func AppendValue(b []byte, v tftypes.Value, typ tftypes.Type) ([]byte, error) {
	if typ.Is(tftypes.DynamicPseudoType) || !v.IsKnown() {
		dv, err := tfprotov6.NewDynamicValue(typ, v)
		if err != nil {
			return nil, err
		}
		return append(b, dv.MsgPack...), nil
	}
	if v.IsNull() {
		return append(b, msgpackNil), nil
	}
	switch t := typ.(type) {
	case tftypes.Object:
		var attrs map[string]tftypes.Value
		if err := v.As(&attrs); err != nil {
			return nil, err
		}
		keys := make([]string, 0, len(t.AttributeTypes))
		for k := range t.AttributeTypes {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = AppendMapLen(b, len(keys))
		for _, k := range keys {
			av, ok := attrs[k]
			if !ok {
				return nil, fmt.Errorf("attribute %q: no value set", k)
			}
			b = AppendString(b, k)
			var err error
			if b, err = AppendValue(b, av, t.AttributeTypes[k]); err != nil {
				return nil, fmt.Errorf("attribute %q: %w", k, err)
			}
		}
		return b, nil
	case tftypes.Map:
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			return nil, err
		}
		b = AppendMapLen(b, len(m))
		for k, ev := range m {
			b = AppendString(b, k)
			var err error
			if b, err = AppendValue(b, ev, t.ElementType); err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
		}
		return b, nil
	case tftypes.List, tftypes.Set, tftypes.Tuple:
		var l []tftypes.Value
		if err := v.As(&l); err != nil {
			return nil, err
		}
		b = AppendArrayLen(b, len(l))
		for i, ev := range l {
			var et tftypes.Type
			switch t := t.(type) {
			case tftypes.List:
				et = t.ElementType
			case tftypes.Set:
				et = t.ElementType
			case tftypes.Tuple:
				et = t.ElementTypes[i]
			}
			var err error
			if b, err = AppendValue(b, ev, et); err != nil {
				return nil, fmt.Errorf("element %d: %w", i, err)
			}
		}
		return b, nil
	}
	switch {
	case typ.Is(tftypes.String):
		var s string
		if err := v.As(&s); err != nil {
			return nil, err
		}
		return AppendString(b, s), nil
	case typ.Is(tftypes.Bool):
		var x bool
		if err := v.As(&x); err != nil {
			return nil, err
		}
		return AppendBool(b, x), nil
	case typ.Is(tftypes.Number):
		var n big.Float
		if err := v.As(&n); err != nil {
			return nil, err
		}
		return AppendNumber(b, &n), nil
	}
	return nil, fmt.Errorf("unknown type %s", typ)
}

// AppendNumber writes a number as tftypes does: infinities and exact non-integers as float64,
// integers that fit as integers, anything else as its decimal text.
func AppendNumber(b []byte, n *big.Float) []byte {
	if n.IsInf() {
		return appendFloat(b, math.Inf(n.Sign()))
	}
	if i, acc := n.Int64(); acc == big.Exact {
		return AppendInt(b, i)
	}
	if f, acc := n.Float64(); acc == big.Exact && !n.IsInt() {
		return appendFloat(b, f)
	}
	return AppendString(b, n.Text('f', -1))
}

func AppendInt(b []byte, i int64) []byte {
	switch {
	case i >= 0 && i < 128:
		return append(b, byte(i))
	case i >= 0 && i <= math.MaxUint8:
		return append(b, 0xcc, byte(i))
	case i >= 0 && i <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(i))
	case i >= 0 && i <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(i))
	case i >= 0:
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(i))
	case i >= -32:
		return append(b, byte(int8(i)))
	case i >= math.MinInt8:
		return append(b, 0xd0, byte(int8(i)))
	case i >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(int16(i)))
	case i >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(int32(i)))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(i))
}

func appendFloat(b []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
}

// msgpackNil is MessagePack's nil, Terraform's null.
const msgpackNil = 0xc0

func AppendBool(b []byte, x bool) []byte {
	if x {
		return append(b, 0xc3)
	}
	return append(b, 0xc2)
}

// AppendStrOrNil writes "" as null, as tfStrOrNull has it.
func AppendStrOrNil(b []byte, s string) []byte {
	if s == "" {
		return append(b, msgpackNil)
	}
	return AppendString(b, s)
}

// StringRoom is the room StringAfter needs before a string: the longest MessagePack string header.
const StringRoom = 5

// StringAfter encodes buf[room:] as a MessagePack string in place, as AppendString would: the
// header is written at the end of the room (room >= StringRoom), and the encoding is the slice of
// buf from there. A large text (a 64 MiB topology file) is sent without another copy of it.
func StringAfter(buf []byte, room int) []byte {
	var hdr [StringRoom]byte
	h := appendStringHeader(hdr[:0], len(buf)-room)
	start := room - len(h)
	copy(buf[start:], h)
	return buf[start:]
}

func AppendString(b []byte, s string) []byte {
	return append(appendStringHeader(b, len(s)), s...)
}

// appendStringHeader writes the header of a string of n bytes.
func appendStringHeader(b []byte, n int) []byte {
	switch {
	case n < 32:
		return append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		return append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
}

func AppendArrayLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x90|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xdc), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdd), uint32(n))
}

// AppendNil appends MessagePack's nil, a null value.
func AppendNil(b []byte) []byte { return append(b, 0xc0) }

func AppendMapLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x80|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xde), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, 0xdf), uint32(n))
}
