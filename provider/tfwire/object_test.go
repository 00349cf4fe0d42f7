package tfwire

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

type objEnd struct {
	Dev  string
	Port int
}

type objRow struct {
	S    string
	N    int
	F    float64
	B    bool
	E    objEnd
	L    []objEnd
	Rail int
}

var (
	objEndWire = NewObject(
		StringField("device", func(e *objEnd) *string { return &e.Dev }).NotNull(),
		IntField("port", 0, func(e *objEnd) *int { return &e.Port }).NotNull(),
	)
	objRowWire = NewObject(
		StringField("s", func(r *objRow) *string { return &r.S }),
		IntField("n", 0, func(r *objRow) *int { return &r.N }),
		FloatField("f", func(r *objRow) *float64 { return &r.F }),
		BoolField("b", func(r *objRow) *bool { return &r.B }),
		ObjectField("e", func(r *objRow) *objEnd { return &r.E }, objEndWire),
		ListField("l", func(r *objRow) *[]objEnd { return &r.L }, objEndWire),
		IntField("rail", -1, func(r *objRow) *int { return &r.Rail }),
	)
	objEndType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"device": tftypes.String, "port": tftypes.Number}}
	objRowType = tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"s": tftypes.String, "n": tftypes.Number, "f": tftypes.Number, "b": tftypes.Bool,
		"e": objEndType, "l": tftypes.List{ElementType: objEndType}, "rail": tftypes.Number,
		"x_extra": tftypes.String, "a_extra": tftypes.String,
	}}
)

// objRowValue is the tftypes value Object.Append must encode, built by hand from the rules of
// the doc comment (unset is null unless NotNull), not from the table.
func objRowValue(r objRow, aExtra, xExtra string) tftypes.Value {
	str := func(s string) tftypes.Value {
		if s == "" {
			return tftypes.NewValue(tftypes.String, nil)
		}
		return tftypes.NewValue(tftypes.String, s)
	}
	num := func(n, unset int) tftypes.Value {
		if n == unset {
			return tftypes.NewValue(tftypes.Number, nil)
		}
		return tftypes.NewValue(tftypes.Number, n)
	}
	end := func(e objEnd) tftypes.Value {
		return tftypes.NewValue(objEndType, map[string]tftypes.Value{
			"device": tftypes.NewValue(tftypes.String, e.Dev), "port": tftypes.NewValue(tftypes.Number, e.Port)})
	}
	f := tftypes.NewValue(tftypes.Number, nil)
	if r.F != 0 {
		f = tftypes.NewValue(tftypes.Number, r.F)
	}
	l := make([]tftypes.Value, len(r.L))
	for i, e := range r.L {
		l[i] = end(e)
	}
	return tftypes.NewValue(objRowType, map[string]tftypes.Value{
		"s": str(r.S), "n": num(r.N, 0), "f": f, "b": tftypes.NewValue(tftypes.Bool, r.B),
		"e": end(r.E), "l": tftypes.NewValue(tftypes.List{ElementType: objEndType}, l), "rail": num(r.Rail, -1),
		"a_extra": str(aExtra), "x_extra": str(xExtra),
	})
}

// TestObjectMatchesTftypes: an Object writes what tftypes' own encoder writes for the same
// value, byte for byte after a decode, set and unset, with extras merged in name order.
func TestObjectMatchesTftypes(t *testing.T) {
	for name, r := range map[string]objRow{
		"set":   {S: "x", N: 7, F: 2.5, B: true, E: objEnd{"leaf01", 33}, L: []objEnd{{"a", 1}, {"b", 2}}, Rail: 0},
		"unset": {Rail: -1},
		"zeros": {E: objEnd{}, L: []objEnd{{}}, Rail: 3, F: 1e-3},
	} {
		for _, ex := range [][2]string{{"", ""}, {"aa", "xx"}, {"", "xx"}} {
			b := objRowWire.Append(nil, &r, Extra{"a_extra", ex[0]}, Extra{"x_extra", ex[1]})
			got, err := readMsgPack(b, objRowType)
			if err != nil {
				t.Fatalf("%s: decode: %v", name, err)
			}
			wantV := objRowValue(r, ex[0], ex[1])
			ref, err := tfprotov6.NewDynamicValue(objRowType, wantV)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.Unmarshal(objRowType)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(want) {
				t.Errorf("%s %v:\n got %s\nwant %s", name, ex, got, want)
			}
			// And the same bytes as AppendValue, which is checked against tftypes in encode_test.go.
			wb, err := AppendValue(nil, wantV, objRowType)
			if err != nil {
				t.Fatal(err)
			}
			if string(wb) != string(b) {
				t.Errorf("%s %v: bytes differ from AppendValue's\n got %x\nwant %x", name, ex, b, wb)
			}
		}
	}
}
