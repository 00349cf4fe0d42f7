package provider

import (
	"math/big"
	"sort"
)

// The shapes' MessagePack encoder: an element written straight from its fabric struct, as
// encode and then appendMsgPack would write it, without building a tftypes value per
// attribute first. gpucluster_discovered_fabric writes its as_built this way: a floor of 2,048
// HCAs is 62,000 values, and building them as tftypes values and encoding those was half of
// its read (BenchmarkDiscoveredFabricAsBuilt). TestShapeMessagePackMatchesEncode holds the two
// encoders to the same bytes' meaning.

// strAttr is an attribute a shape's objects carry besides its fields (floorOnly: a cable's
// discovered width and speed), written as a string, null when empty.
type strAttr struct{ name, value string }

// sortedFields are the indexes of s.fields in name order, the order tftypes writes an object's
// attributes in.
func (s *shape[T]) sortedFields() []int {
	s.orderOnce.Do(func() {
		s.order = make([]int, len(s.fields))
		for i := range s.order {
			s.order[i] = i
		}
		sort.Slice(s.order, func(a, b int) bool { return s.fields[s.order[a]].name < s.fields[s.order[b]].name })
	})
	return s.order
}

// appendObject writes t as the shape's object, with extra (sorted by name) merged in.
func (s *shape[T]) appendObject(b []byte, t *T, extra ...strAttr) []byte {
	order := s.sortedFields()
	b = appendMapLen(b, len(order)+len(extra))
	i, j := 0, 0
	for i < len(order) || j < len(extra) {
		if j == len(extra) || i < len(order) && s.fields[order[i]].name < extra[j].name {
			b = s.fields[order[i]].appendAttr(b, t)
			i++
			continue
		}
		b = appendStrOrNil(appendString(b, extra[j].name), extra[j].value)
		j++
	}
	return b
}

// appendAttr writes the field's name and value, with unset values null as in encode.
func (f *field[T]) appendAttr(b []byte, t *T) []byte {
	b = appendString(b, f.name)
	switch f.kind {
	case kString:
		return appendStrOrNil(b, *f.str(t))
	case kInt:
		if v := *f.num(t); v != f.unset {
			return appendInt(b, int64(v))
		}
		return append(b, msgpackNil)
	case kFloat:
		if v := *f.flt(t); v != 0 {
			return appendNumber(b, big.NewFloat(v))
		}
		return append(b, msgpackNil)
	case kBool:
		return appendBool(b, *f.bl(t))
	case kEnd:
		e := f.end(t)
		b = appendString(appendMapLen(b, 2), "device")
		b = appendString(b, e.Device)
		return appendInt(appendString(b, "port"), int64(e.Port))
	}
	ms := *f.mem(t)
	b = appendArrayLen(b, len(ms))
	for _, m := range ms {
		b = appendMapLen(b, 3)
		b = appendStrOrNil(appendString(b, "guid"), m.GUID)
		b = appendStrOrNil(appendString(b, "hca"), m.HCA)
		b = appendStrOrNil(appendString(b, "membership"), m.Membership)
	}
	return b
}
