package provider

import (
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
	"math/big"
	"sort"
)

// The shapes' MessagePack encoder: an element written straight from its fabric struct, as
// encode and then tfwire.AppendValue would write it, without building a tftypes value per
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
	b = tfwire.AppendMapLen(b, len(order)+len(extra))
	i, j := 0, 0
	for i < len(order) || j < len(extra) {
		if j == len(extra) || i < len(order) && s.fields[order[i]].name < extra[j].name {
			b = s.fields[order[i]].appendAttr(b, t)
			i++
			continue
		}
		b = tfwire.AppendStrOrNil(tfwire.AppendString(b, extra[j].name), extra[j].value)
		j++
	}
	return b
}

// appendAttr writes the field's name and value, with unset values null as in encode.
func (f *field[T]) appendAttr(b []byte, t *T) []byte {
	b = tfwire.AppendString(b, f.name)
	switch f.kind {
	case kString:
		return tfwire.AppendStrOrNil(b, *f.str(t))
	case kInt:
		if v := *f.num(t); v != f.unset {
			return tfwire.AppendInt(b, int64(v))
		}
		return tfwire.AppendNil(b)
	case kFloat:
		if v := *f.flt(t); v != 0 {
			return tfwire.AppendNumber(b, big.NewFloat(v))
		}
		return tfwire.AppendNil(b)
	case kBool:
		return tfwire.AppendBool(b, *f.bl(t))
	case kEnd:
		e := f.end(t)
		b = tfwire.AppendString(tfwire.AppendMapLen(b, 2), "device")
		b = tfwire.AppendString(b, e.Device)
		return tfwire.AppendInt(tfwire.AppendString(b, "port"), int64(e.Port))
	}
	ms := *f.mem(t)
	b = tfwire.AppendArrayLen(b, len(ms))
	for _, m := range ms {
		b = tfwire.AppendMapLen(b, 3)
		b = tfwire.AppendStrOrNil(tfwire.AppendString(b, "guid"), m.GUID)
		b = tfwire.AppendStrOrNil(tfwire.AppendString(b, "hca"), m.HCA)
		b = tfwire.AppendStrOrNil(tfwire.AppendString(b, "membership"), m.Membership)
	}
	return b
}
