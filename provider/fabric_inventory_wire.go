package provider

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// The shapes' MessagePack writers: each shape's table, told to tfwire.Object, which writes an
// element straight from its fabric struct as encode and then tfwire.AppendValue would write it.
// Nothing here writes bytes; gpucluster_discovered_fabric writes its as_built this way
// (tfwire/object.go says why). TestShapeMessagePackMatchesEncode holds the two encoders to the
// same bytes' meaning.

// A cable end and a partition member as tfwire writes them: every end attribute is written
// (encode writes them as values, never null), members' attributes are null when empty.
var (
	endWire = tfwire.NewObject(
		tfwire.StringField("device", func(e *fabric.End) *string { return &e.Device }).NotNull(),
		tfwire.IntField("port", 0, func(e *fabric.End) *int { return &e.Port }).NotNull(),
	)
	memberWire = tfwire.NewObject(
		tfwire.StringField("hca", func(m *fabric.Member) *string { return &m.HCA }),
		tfwire.StringField("guid", func(m *fabric.Member) *string { return &m.GUID }),
		tfwire.StringField("membership", func(m *fabric.Member) *string { return &m.Membership }),
	)
)

// wireField is the field as tfwire writes it, with unset values null as in encode.
func (f *field[T]) wireField() tfwire.Field[T] {
	switch f.kind {
	case kString:
		return tfwire.StringField(f.name, f.str)
	case kInt:
		return tfwire.IntField(f.name, f.unset, f.num)
	case kFloat:
		return tfwire.FloatField(f.name, f.flt)
	case kBool:
		return tfwire.BoolField(f.name, f.bl)
	case kEnd:
		return tfwire.ObjectField(f.name, f.end, endWire)
	default:
		return tfwire.ListField(f.name, f.mem, memberWire)
	}
}

// appendObject writes t as the shape's object, with extra attributes (floorOnly: a cable's
// discovered width and speed) merged in.
func (s *shape[T]) appendObject(b []byte, t *T, extra ...tfwire.Extra) []byte {
	s.wireOnce.Do(func() {
		fs := make([]tfwire.Field[T], len(s.fields))
		for i := range s.fields {
			fs[i] = s.fields[i].wireField()
		}
		s.wire = tfwire.NewObject(fs...)
	})
	return s.wire.Append(b, t, extra...)
}
