package tfwire

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// msgpackRoundTrip encodes v with AppendValue and decodes it with tftypes' decoder of the
// encoding Terraform reads: the value must be what tftypes' own encoder gives Terraform (a
// number beyond float64 travels as its decimal text in both, so it comes back at the decoder's
// precision, not the original's).
func msgpackRoundTrip(t *testing.T, typ tftypes.Type, v tftypes.Value) {
	t.Helper()
	b, err := AppendValue(nil, v, typ)
	if err != nil {
		t.Fatalf("encode %s: %v", v, err)
	}
	got, err := readMsgPack(b, typ)
	if err != nil {
		t.Fatalf("decode %s: %v", v, err)
	}
	ref, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ref.Unmarshal(typ)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(want) {
		t.Errorf("not what tftypes' encoding gives\n got %s\nwant %s", got, want)
	}
}

func TestFastMsgPackScalars(t *testing.T) {
	num := func(f *big.Float) tftypes.Value { return tftypes.NewValue(tftypes.Number, f) }
	ints := []int64{0, 1, 127, 128, 255, 256, 65535, 65536, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64,
		-1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64}
	for _, i := range ints {
		msgpackRoundTrip(t, tftypes.Number, num(new(big.Float).SetInt64(i)))
	}
	huge, _ := new(big.Float).SetString("1e400")
	twoTo64 := new(big.Float).SetMantExp(big.NewFloat(1), 64)
	for _, f := range []*big.Float{big.NewFloat(0.5), big.NewFloat(-2.25), big.NewFloat(1e300), big.NewFloat(0.1),
		twoTo64, huge, new(big.Float).SetInf(false), new(big.Float).SetInf(true)} {
		msgpackRoundTrip(t, tftypes.Number, num(f))
	}
	for _, n := range []int{0, 31, 32, 255, 256, 65535, 65536} {
		msgpackRoundTrip(t, tftypes.String, tftypes.NewValue(tftypes.String, strings.Repeat("é", n/2)+strings.Repeat("x", n%2)))
		msgpackRoundTrip(t, tftypes.String, tftypes.NewValue(tftypes.String, strings.Repeat("x", n)))
	}
	msgpackRoundTrip(t, tftypes.Bool, tftypes.NewValue(tftypes.Bool, true))
	msgpackRoundTrip(t, tftypes.Bool, tftypes.NewValue(tftypes.Bool, false))
	for _, typ := range []tftypes.Type{tftypes.String, tftypes.Number, tftypes.Bool, tftypes.List{ElementType: tftypes.String}} {
		msgpackRoundTrip(t, typ, tftypes.NewValue(typ, nil))
		msgpackRoundTrip(t, typ, tftypes.NewValue(typ, tftypes.UnknownValue))
	}
}

func TestFastMsgPackCollections(t *testing.T) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	// Sizes on each side of the msgpack header boundaries (15/16 and 65535/65536 elements).
	for _, n := range []int{0, 1, 15, 16, 65535, 65536} {
		l := make([]tftypes.Value, n)
		m := make(map[string]tftypes.Value, n)
		for i := range l {
			l[i] = str(strings.Repeat("a", i%40))
			m[strconv.Itoa(i)] = str("v")
		}
		msgpackRoundTrip(t, tftypes.List{ElementType: tftypes.String}, tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, l))
		msgpackRoundTrip(t, tftypes.Map{ElementType: tftypes.String}, tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, m))
	}
	obj := tftypes.Object{AttributeTypes: map[string]tftypes.Type{
		"s": tftypes.String, "n": tftypes.Number, "set": tftypes.Set{ElementType: tftypes.Number},
		"tuple": tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String, tftypes.Bool}},
		"dyn":   tftypes.DynamicPseudoType, "null": tftypes.List{ElementType: tftypes.Number},
		"unknown": tftypes.Map{ElementType: tftypes.String},
		"nested":  tftypes.Map{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.Number}}},
	}}
	v := tftypes.NewValue(obj, map[string]tftypes.Value{
		"s": str("x"), "n": tftypes.NewValue(tftypes.Number, 3),
		"set":     tftypes.NewValue(tftypes.Set{ElementType: tftypes.Number}, []tftypes.Value{tftypes.NewValue(tftypes.Number, 1), tftypes.NewValue(tftypes.Number, 2)}),
		"tuple":   tftypes.NewValue(tftypes.Tuple{ElementTypes: []tftypes.Type{tftypes.String, tftypes.Bool}}, []tftypes.Value{str("a"), tftypes.NewValue(tftypes.Bool, true)}),
		"dyn":     str("dynamic"),
		"null":    tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, nil),
		"unknown": tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, tftypes.UnknownValue),
		"nested": tftypes.NewValue(tftypes.Map{ElementType: tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.Number}}},
			map[string]tftypes.Value{"a": tftypes.NewValue(tftypes.Object{AttributeTypes: map[string]tftypes.Type{"x": tftypes.Number}},
				map[string]tftypes.Value{"x": tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)})}),
	})
	msgpackRoundTrip(t, obj, v)
}

// readMsgPack reads b as tftypes reads what a provider sends Terraform.
func readMsgPack(b []byte, typ tftypes.Type) (tftypes.Value, error) {
	return (&tfprotov6.DynamicValue{MsgPack: b}).Unmarshal(typ)
}
