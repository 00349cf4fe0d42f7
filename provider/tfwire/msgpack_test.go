package tfwire

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// valueGen makes values of every MessagePack form tftypes writes: strings of each length class,
// numbers of each width and sign and non-integers, bools, nulls, unknowns (an extension type),
// lists, sets, maps and objects of every header size, and dynamic values (a type, then a value).
type valueGen struct{ r *rand.Rand }

func (g valueGen) primitive() (tftypes.Type, tftypes.Value) {
	switch g.r.Intn(7) {
	case 0:
		n := []int{0, 5, 31, 32, 255, 256, 70000}[g.r.Intn(7)]
		return tftypes.String, tftypes.NewValue(tftypes.String, strings.Repeat("x", n))
	case 1:
		n := []int64{0, 1, -1, 127, 128, -33, 255, 65535, -65536, 1 << 31, -(1 << 40), 1 << 62}[g.r.Intn(12)]
		return tftypes.Number, tftypes.NewValue(tftypes.Number, n)
	case 2:
		return tftypes.Number, tftypes.NewValue(tftypes.Number, []float64{0.5, -1e300, 3.25}[g.r.Intn(3)])
	case 3:
		return tftypes.Bool, tftypes.NewValue(tftypes.Bool, g.r.Intn(2) == 0)
	case 4:
		return tftypes.String, tftypes.NewValue(tftypes.String, nil)
	case 5:
		return tftypes.Number, tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)
	}
	return tftypes.String, tftypes.NewValue(tftypes.String, fmt.Sprint(g.r.Int()))
}

func (g valueGen) value(depth int) (tftypes.Type, tftypes.Value) {
	if depth == 0 || g.r.Intn(3) == 0 {
		return g.primitive()
	}
	n := []int{0, 1, 2, 3, 16, 17}[g.r.Intn(6)]
	switch g.r.Intn(3) {
	case 0: // a list or a map of one element type
		et, _ := g.value(depth - 1)
		elems := map[string]tftypes.Value{}
		var list []tftypes.Value
		for i := 0; i < n; i++ {
			v := g.of(et, depth-1)
			elems[fmt.Sprint("k", i)] = v
			list = append(list, v)
		}
		if g.r.Intn(2) == 0 {
			return tftypes.List{ElementType: et}, tftypes.NewValue(tftypes.List{ElementType: et}, list)
		}
		return tftypes.Map{ElementType: et}, tftypes.NewValue(tftypes.Map{ElementType: et}, elems)
	default: // an object
		types, vals := map[string]tftypes.Type{}, map[string]tftypes.Value{}
		for i := 0; i < n; i++ {
			k := fmt.Sprint("a", i)
			types[k], vals[k] = g.value(depth - 1)
		}
		return tftypes.Object{AttributeTypes: types}, tftypes.NewValue(tftypes.Object{AttributeTypes: types}, vals)
	}
}

// of makes another value of type t (element types must agree).
func (g valueGen) of(t tftypes.Type, depth int) tftypes.Value {
	for {
		tt, v := g.value(depth)
		if tt.Equal(t) {
			return v
		}
		if t.Is(tftypes.String) || t.Is(tftypes.Number) || t.Is(tftypes.Bool) {
			return tftypes.NewValue(t, nil)
		}
		if g.r.Intn(4) == 0 {
			return tftypes.NewValue(t, nil)
		}
	}
}

// nullAsBuilt leaves every other attribute as tftypes decodes it and only the one named null,
// over values of every MessagePack form; whatever it is given, it never reads past the end.
func TestNullAttr(t *testing.T) {
	g := valueGen{rand.New(rand.NewSource(1))}
	for i := 0; i < 100; i++ {
		types, vals := map[string]tftypes.Type{}, map[string]tftypes.Value{}
		for k := 0; k < 1+g.r.Intn(8); k++ {
			name := fmt.Sprint("attr", k)
			types[name], vals[name] = g.value(3)
		}
		// The dynamic argument itself: a value written with its type (tftypes' dynamic form).
		dynT, dynV := g.value(3)
		types["as_built"] = tftypes.DynamicPseudoType
		vals["as_built"] = dynV
		obj := tftypes.Object{AttributeTypes: types}
		dv, err := tfprotov6.NewDynamicValue(obj, tftypes.NewValue(obj, vals))
		if err != nil {
			t.Fatal(err)
		}
		out, ok, err := nullAttr(dv.MsgPack, "as_built")
		if err != nil || !ok {
			t.Fatalf("case %d (%s): ok %v, %v", i, dynT, ok, err)
		}
		got, err := (&tfprotov6.DynamicValue{MsgPack: out}).Unmarshal(obj)
		if err != nil {
			t.Fatalf("case %d: decoding the result: %v", i, err)
		}
		// What tftypes reads back from its own encoding of the value with the attribute null
		// (decoded both ways, so numbers compare at one precision).
		vals["as_built"] = tftypes.NewValue(tftypes.DynamicPseudoType, nil)
		wantDV, err := tfprotov6.NewDynamicValue(obj, tftypes.NewValue(obj, vals))
		if err != nil {
			t.Fatal(err)
		}
		want, err := wantDV.Unmarshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(want) {
			t.Fatalf("case %d (as_built of %s): the other attributes changed", i, dynT)
		}
		for cut := 0; cut < len(dv.MsgPack); cut += 1 + len(dv.MsgPack)/50 {
			_, _, _ = nullAttr(dv.MsgPack[:cut], "as_built") // must not panic
		}
	}
	if _, ok, _ := nullAttr([]byte{0x93, 1, 2, 3}, "as_built"); ok {
		t.Error("an array read as a map")
	}
	b := []byte{0x81, 0xa1, 'x', 0x01}
	if out, ok, err := nullAttr(b, "as_built"); ok || err != nil || string(out) != string(b) {
		t.Errorf("a map without the attribute: %x %v %v", out, ok, err)
	}
}

// TestReplaceAttrs replaces some attributes of an object's MessagePack and no other byte, and
// refuses to replace one that is not there.
func TestReplaceAttrs(t *testing.T) {
	typ := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"a": tftypes.String, "big": tftypes.List{ElementType: tftypes.Number}, "z": tftypes.Bool,
	}}
	v := func(a string, big []tftypes.Value, z bool) []byte {
		dv, err := tfprotov6.NewDynamicValue(typ, tftypes.NewValue(typ, map[string]tftypes.Value{
			"a": tftypes.NewValue(tftypes.String, a), "big": tftypes.NewValue(typ.AttributeTypes["big"], big),
			"z": tftypes.NewValue(tftypes.Bool, z),
		}))
		if err != nil {
			t.Fatal(err)
		}
		return dv.MsgPack
	}
	nums := []tftypes.Value{tftypes.NewValue(tftypes.Number, 1), tftypes.NewValue(tftypes.Number, 70000)}
	in := v("x", nil, true)
	got, err := replaceAttrs(in, map[string][]byte{"big": AppendInt(AppendInt(AppendArrayLen(nil, 2), 1), 70000)})
	if err != nil {
		t.Fatal(err)
	}
	if want := v("x", nums, true); string(got) != string(want) {
		t.Fatalf("got % x, want % x", got, want)
	}
	if _, err := replaceAttrs(in, map[string][]byte{"nope": {msgpackNil}}); err == nil {
		t.Fatal("an attribute the object lacks was replaced")
	}
}
