package tfwire

import (
	"context"
	"errors"
	"math"
	"math/big"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// scanNumbers walks a configuration in the MessagePack form Terraform sends
// (https://github.com/msgpack/msgpack/blob/master/spec.md; values as go-cty's msgpack package
// writes them: a number is an integer when it is one that fits 64 bits, a float64 when exact,
// else its decimal text) and reports the numbers that do not fit their attributes, without
// building a tftypes.Value: decoding a fabric of 4,096 cables costs three quarters of the check,
// and a configuration without a misfit needs none of it.
func scanNumbers(b []byte, t attr.Type) (diags []*tfprotov6.Diagnostic, err error) {
	s := &mpScanner{b: b}
	s.value(t, "")
	if s.err == nil && s.i != len(s.b) {
		s.err = errMsgpack
	}
	return s.diags, s.err
}

var errMsgpack = errors.New("malformed msgpack")

type mpScanner struct {
	b     []byte
	i     int
	err   error
	steps []tftypes.AttributePathStep // the path of the value being read
	diags []*tfprotov6.Diagnostic
	depth int // nesting of the value being read: no schema nests deeper than maxDepth
}

const maxDepth = 64

func (s *mpScanner) fail() { s.err = errMsgpack; s.i = len(s.b) }

func (s *mpScanner) byte() byte {
	if s.i >= len(s.b) {
		s.fail()
		return 0
	}
	c := s.b[s.i]
	s.i++
	return c
}

// advance moves to next, where a read of msgpack.go ended, or fails with it.
func (s *mpScanner) advance(next int, err error) {
	if err != nil {
		s.fail()
		return
	}
	s.i = next
}

// uint reads a number's payload of n bytes.
func (s *mpScanner) uint(n int) uint64 {
	v, err := uintAt(s.b, s.i, n)
	s.advance(s.i+n, err)
	return v
}

// mapLen, arrayLen and strAfter read, with msgpack.go's readers, the rest of a value whose first
// byte c has been read; ok is false, and nothing is read, for a value of another kind.
func (s *mpScanner) mapLen(c byte) (int, bool) {
	if !isMapCode(c) {
		return 0, false
	}
	n, next, err := mapHeader(s.b, s.i-1)
	s.advance(next, err)
	return n, true
}

func (s *mpScanner) arrayLen(c byte) (int, bool) {
	if !isArrayCode(c) {
		return 0, false
	}
	n, next, err := arrayHeader(s.b, s.i-1)
	s.advance(next, err)
	return n, true
}

func (s *mpScanner) strAfter(c byte) (string, bool) {
	if !isStrCode(c) {
		return "", false
	}
	str, next, err := readStr(s.b, s.i-1)
	s.advance(next, err)
	return str, true
}

// skip passes over one value of any kind, whose first byte c has been read, with skipValue,
// which counts rather than recurses: no nesting in a value the schema does not describe (a
// dynamic argument's) can exhaust the stack.
func (s *mpScanner) skip(byte) {
	if s.err != nil {
		return
	}
	end, err := skipValue(s.b, s.i-1)
	s.advance(end, err)
}

// number reads a number whose first byte c has been read; ok is false for anything else (nil,
// unknown), which is skipped.
func (s *mpScanner) number(c byte) (*big.Float, bool) {
	switch {
	case c <= 0x7f:
		return new(big.Float).SetInt64(int64(c)), true
	case c >= 0xe0:
		return new(big.Float).SetInt64(int64(int8(c))), true
	case c >= 0xcc && c <= 0xcf:
		return new(big.Float).SetUint64(s.uint(1 << (c - 0xcc))), true
	case c >= 0xd0 && c <= 0xd3:
		n := 1 << (c - 0xd0)
		u := s.uint(n)
		shift := uint(64 - 8*n)
		return new(big.Float).SetInt64(int64(u<<shift) >> shift), true
	case c == 0xca:
		return new(big.Float).SetFloat64(float64(math.Float32frombits(uint32(s.uint(4))))), true
	case c == 0xcb:
		f := math.Float64frombits(s.uint(8))
		switch {
		case math.IsNaN(f):
			return nil, false
		case math.IsInf(f, 0): // go-cty writes ±Inf (1/0 in HCL) as a float64
			return new(big.Float).SetInf(f < 0), true
		}
		return new(big.Float).SetFloat64(f), true
	}
	if text, ok := s.strAfter(c); ok {
		f, _, err := big.ParseFloat(text, 10, 512, big.ToNearestEven)
		return f, err == nil
	}
	s.skip(c)
	return nil, false
}

func (s *mpScanner) path() *tftypes.AttributePath {
	return tftypes.NewAttributePathWithSteps(append([]tftypes.AttributePathStep(nil), s.steps...))
}

// value reads one value of framework type t (name: its attribute's name).
func (s *mpScanner) value(t attr.Type, name string) {
	if s.err != nil {
		return
	}
	if s.depth++; s.depth > maxDepth {
		s.fail()
		return
	}
	defer func() { s.depth-- }()
	c := s.byte()
	switch tt := t.(type) {
	case basetypes.Int64Typable:
		if f, ok := s.number(c); ok {
			if msg := int64Misfit(name, f); msg != "" {
				s.diags = append(s.diags, numberDiag(s.path(), "Not a whole number", msg))
			}
		}
	case basetypes.Float64Typable:
		if f, ok := s.number(c); ok {
			if msg := float64Misfit(name, f); msg != "" {
				s.diags = append(s.diags, numberDiag(s.path(), "Number out of range", msg))
			}
		}
	case attr.TypeWithAttributeTypes:
		n, ok := s.mapLen(c)
		if !ok {
			s.skip(c)
			return
		}
		ats := tt.AttributeTypes()
		for k := 0; k < n && s.err == nil; k++ {
			key, ok := s.strAfter(s.byte())
			if !ok {
				s.fail()
				return
			}
			at, known := ats[key]
			if !known {
				s.skip(s.byte())
				continue
			}
			s.steps = append(s.steps, tftypes.AttributeName(key))
			s.value(at, key)
			s.steps = s.steps[:len(s.steps)-1]
		}
	case attr.TypeWithElementType:
		et := tt.ElementType()
		if n, ok := s.mapLen(c); ok {
			for k := 0; k < n && s.err == nil; k++ {
				key, ok := s.strAfter(s.byte())
				if !ok {
					s.fail()
					return
				}
				s.steps = append(s.steps, tftypes.ElementKeyString(key))
				s.value(et, name)
				s.steps = s.steps[:len(s.steps)-1]
			}
			return
		}
		if n, ok := s.arrayLen(c); ok {
			_, isSet := t.(basetypes.SetTypable)
			for k := 0; k < n && s.err == nil; k++ {
				if isSet {
					// A set element has no index; the whole set is where Terraform points.
					s.value(et, name)
					continue
				}
				s.steps = append(s.steps, tftypes.ElementKeyInt(k))
				s.value(et, name)
				s.steps = s.steps[:len(s.steps)-1]
			}
			return
		}
		s.skip(c)
	default:
		s.skip(c)
	}
}

// checkRaw is check without decoding: the MessagePack form when Terraform sent it, else the
// decoded walk.
func (s *numberCheck) checkRaw(ctx context.Context, t attr.Type, dv *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
	if t == nil || dv == nil {
		return nil
	}
	if len(dv.MsgPack) > 0 {
		if d, err := scanNumbers(dv.MsgPack, t); err == nil {
			return d
		}
	}
	return s.check(ctx, t, dv)
}
