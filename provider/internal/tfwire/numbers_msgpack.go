package tfwire

import (
	"context"
	"encoding/binary"
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

func (s *mpScanner) take(n int) []byte {
	if n < 0 || s.i+n > len(s.b) {
		s.fail()
		return nil
	}
	out := s.b[s.i : s.i+n]
	s.i += n
	return out
}

func (s *mpScanner) uint(n int) uint64 {
	p := s.take(n)
	switch len(p) {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(p))
	case 4:
		return uint64(binary.BigEndian.Uint32(p))
	case 8:
		return binary.BigEndian.Uint64(p)
	}
	return 0
}

// mapLen, arrayLen and str read a header; ok is false for nil.
func (s *mpScanner) mapLen(c byte) (int, bool) {
	switch {
	case c >= 0x80 && c <= 0x8f:
		return int(c & 0x0f), true
	case c == 0xde:
		return int(s.uint(2)), true
	case c == 0xdf:
		return int(s.uint(4)), true
	}
	return 0, false
}

func (s *mpScanner) arrayLen(c byte) (int, bool) {
	switch {
	case c >= 0x90 && c <= 0x9f:
		return int(c & 0x0f), true
	case c == 0xdc:
		return int(s.uint(2)), true
	case c == 0xdd:
		return int(s.uint(4)), true
	}
	return 0, false
}

func (s *mpScanner) strAfter(c byte) (string, bool) {
	var n int
	switch {
	case c >= 0xa0 && c <= 0xbf:
		n = int(c & 0x1f)
	case c == 0xd9:
		n = int(s.uint(1))
	case c == 0xda:
		n = int(s.uint(2))
	case c == 0xdb:
		n = int(s.uint(4))
	default:
		return "", false
	}
	return string(s.take(n)), true
}

// skip passes over one value of any kind, whose first byte c has been read.
func (s *mpScanner) skip(c byte) {
	if s.depth++; s.depth > maxDepth {
		s.fail()
	}
	defer func() { s.depth-- }()
	switch {
	case c <= 0x7f || c >= 0xe0 || c == 0xc0 || c == 0xc2 || c == 0xc3:
	case c >= 0x80 && c <= 0x8f || c == 0xde || c == 0xdf:
		n, _ := s.mapLen(c)
		for k := 0; k < 2*n && s.err == nil; k++ {
			s.skip(s.byte())
		}
	case c >= 0x90 && c <= 0x9f || c == 0xdc || c == 0xdd:
		n, _ := s.arrayLen(c)
		for k := 0; k < n && s.err == nil; k++ {
			s.skip(s.byte())
		}
	case c >= 0xa0 && c <= 0xbf || c >= 0xd9 && c <= 0xdb:
		s.strAfter(c)
	case c >= 0xc4 && c <= 0xc6: // bin 8/16/32
		s.take(int(s.uint(1 << (c - 0xc4))))
	case c >= 0xc7 && c <= 0xc9: // ext 8/16/32: length, type, data
		n := int(s.uint(1 << (c - 0xc7)))
		s.take(1 + n)
	case c == 0xca:
		s.take(4)
	case c == 0xcb:
		s.take(8)
	case c >= 0xcc && c <= 0xcf: // uint 8-64
		s.take(1 << (c - 0xcc))
	case c >= 0xd0 && c <= 0xd3: // int 8-64
		s.take(1 << (c - 0xd0))
	case c >= 0xd4 && c <= 0xd8: // fixext 1-16: type, data
		s.take(1 + 1<<(c-0xd4))
	default:
		s.fail()
	}
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
func (s *numberServer) checkRaw(ctx context.Context, t attr.Type, dv *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic {
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
