package tfwire_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/gpucluster/terraform-provider-gpucluster/provider"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

// fabricConfig is a gpucluster_fabric configuration of n cables between leaf01 and HCAs, with
// port as the switch end's port of the first cable: the shape the number check walks.
func fabricConfig(t testing.TB, s tfwire.NumberChecker, n int, port any) *tfprotov6.DynamicValue {
	t.Helper()
	ctx := context.Background()
	tt := as[tftypes.Object](t, s.Resource("gpucluster_fabric").TerraformType(ctx))
	vals := map[string]tftypes.Value{}
	for k, at := range tt.AttributeTypes {
		vals[k] = tftypes.NewValue(at, nil)
	}
	cablesT := as[tftypes.Map](t, tt.AttributeTypes["cables"])
	cableT := as[tftypes.Object](t, cablesT.ElementType)
	endT := as[tftypes.Object](t, cableT.AttributeTypes["a"])
	cables := map[string]tftypes.Value{}
	for i := 0; i < n; i++ {
		cv := map[string]tftypes.Value{}
		for k, at := range cableT.AttributeTypes {
			cv[k] = tftypes.NewValue(at, nil)
		}
		p := any(i + 1)
		if i == 0 {
			p = port
		}
		cv["a"] = tftypes.NewValue(endT, map[string]tftypes.Value{"device": tftypes.NewValue(tftypes.String, "leaf01"), "port": tftypes.NewValue(tftypes.Number, p)})
		cv["b"] = tftypes.NewValue(endT, map[string]tftypes.Value{"device": tftypes.NewValue(tftypes.String, fmt.Sprintf("gpu%04d/mlx5_0", i)), "port": tftypes.NewValue(tftypes.Number, 1)})
		cables[fmt.Sprintf("c%04d", i)] = tftypes.NewValue(cableT, cv)
	}
	vals["cables"] = tftypes.NewValue(cablesT, cables)
	dv, err := tfprotov6.NewDynamicValue(tt, tftypes.NewValue(tt, vals))
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// TestNumberMisfits: a fractional port deep in a fabric map is named by its whole path and
// reported on the map element Terraform can show; whole numbers pass.
func TestNumberMisfits(t *testing.T) {
	s := tfwire.NewNumberChecker(provider.New("test"))
	ctx := context.Background()
	typ := s.Resource("gpucluster_fabric")
	for name, check := range map[string]func(context.Context, attr.Type, *tfprotov6.DynamicValue) []*tfprotov6.Diagnostic{
		"decoded": s.Check, "msgpack": s.CheckRaw,
	} {
		if d := check(ctx, typ, fabricConfig(t, s, 3, 7)); len(d) != 0 {
			t.Fatalf("%s: whole numbers refused: %v", name, d[0].Detail)
		}
		for _, c := range []struct {
			port any
			want string
		}{
			{36.5, `cables["c0000"].a.port: port must be a whole number, got 36.5`},
			{-3.25, `cables["c0000"].a.port: port must be a whole number, got -3.25`},
			{bigFloat(t, "1e400"), `cables["c0000"].a.port: port must be a whole number from -9223372036854775808 to 9223372036854775807, got 1e+400`},
		} {
			d := check(ctx, typ, fabricConfig(t, s, 3, c.port))
			if len(d) != 1 || d[0].Detail != c.want {
				t.Fatalf("%s: port %v: got %d diagnostics: %+v", name, c.port, len(d), d)
			}
			if got := d[0].Attribute.String(); !strings.Contains(got, "c0000") || strings.Contains(got, "port") {
				t.Errorf("%s: diagnostic path %s: want the cables element, which Terraform can show", name, got)
			}
		}
	}
	if msg := tfwire.Float64Misfit("max_oversubscription", bigFloat(t, "1e400")); !strings.Contains(msg, "max_oversubscription = 1e+400 is beyond the largest number") {
		t.Errorf("1e400: %q", msg)
	}
	if msg := tfwire.Float64Misfit("x", bigFloat(t, "1e-400")); !strings.Contains(msg, "too close to zero") {
		t.Errorf("1e-400: %q", msg)
	}
	if msg := tfwire.Int64Misfit("port", bigFloat(t, "1e30")); !strings.Contains(msg, "whole number from") {
		t.Errorf("1e30: %q", msg)
	}
}

// TestNumberScanUnknown: unknown values (a port from another resource) and nulls pass the
// MessagePack walk, which reads to the end of the configuration.
func TestNumberScanUnknown(t *testing.T) {
	s := tfwire.NewNumberChecker(provider.New("test"))
	dv := fabricConfig(t, s, 3, tftypes.UnknownValue)
	if d, err := tfwire.ScanNumbers(dv.MsgPack, s.Resource("gpucluster_fabric")); err != nil || len(d) != 0 {
		t.Fatalf("unknown port: %v %v", d, err)
	}
	if _, err := tfwire.ScanNumbers(dv.MsgPack[:len(dv.MsgPack)-1], s.Resource("gpucluster_fabric")); err == nil {
		t.Fatal("a truncated configuration was read to the end")
	}
	// A million nested arrays where the schema has an object: stepped over by counting, not by
	// recursion (no stack to exhaust), with nothing to report, as the decoded walk, which cannot
	// decode them, reports nothing; cut short, they are refused.
	deep := append(bytes.Repeat([]byte{0x91}, 1<<20), 0xc0)
	if d, err := tfwire.ScanNumbers(deep, s.Resource("gpucluster_fabric")); err != nil || len(d) != 0 {
		t.Fatalf("a million nested arrays: %v %v", d, err)
	}
	if d := s.Check(context.Background(), s.Resource("gpucluster_fabric"), &tfprotov6.DynamicValue{MsgPack: deep}); len(d) != 0 {
		t.Fatalf("the decoded walk reported %v", d)
	}
	if _, err := tfwire.ScanNumbers(deep[:len(deep)-1], s.Resource("gpucluster_fabric")); err == nil {
		t.Fatal("a million nested arrays cut short were read to the end")
	}
}

// BenchmarkNumberCheck: what the check adds to a plan of a fabric with 4,096 cables.
func BenchmarkNumberCheck(b *testing.B) {
	s := tfwire.NewNumberChecker(provider.New("test"))
	dv := fabricConfig(b, s, 4096, 1)
	t := s.Resource("gpucluster_fabric")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d := s.CheckRaw(context.Background(), t, dv); len(d) != 0 {
			b.Fatal(d)
		}
	}
}

func bigFloat(t *testing.T, s string) *big.Float {
	t.Helper()
	f, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// FuzzScanNumbers: whatever bytes arrive, the MessagePack walk returns (a misfit, nothing, or
// an error) and never panics. It walks fuzzNumberType, which has every shape the walk knows
// (object, map, list and set of objects and numbers, whole and not), so its valid values are a
// few dozen bytes: the fuzzer minimizes every input that finds new coverage, trying on the order
// of n^2 candidates for n bytes, each costing a pass over this binary's large coverage map, and
// from the 355-byte fabric configurations as seeds it did nothing else (issue 22: 1 input a
// second on a cold cache). Those configurations stay seeds, for go test; while fuzzing, inputs
// beyond maxFuzzMsgPack are skipped.
func FuzzScanNumbers(f *testing.F) {
	s := tfwire.NewNumberChecker(provider.New("test"))
	for _, port := range []any{7, 36.5, tftypes.UnknownValue} {
		f.Add(fabricConfig(f, s, 2, port).MsgPack)
	}
	f.Add([]byte{0xdf, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0xc9, 0xff, 0xff, 0xff, 0xff, 0x00})
	ctx := context.Background()
	tt := fuzzNumberType.TerraformType(ctx)
	for _, v := range []map[string]tftypes.Value{
		{"n": tftypes.NewValue(tftypes.Number, 7), "x": tftypes.NewValue(tftypes.Number, 36.5)},
		{"m": tftypes.NewValue(tftypes.Map{ElementType: fuzzEnd}, map[string]tftypes.Value{"c1": tftypes.NewValue(fuzzEnd, map[string]tftypes.Value{"port": tftypes.NewValue(tftypes.Number, bigFloatOf("1e400"))})})},
		{"l": tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, []tftypes.Value{tftypes.NewValue(tftypes.Number, 1), tftypes.NewValue(tftypes.Number, tftypes.UnknownValue)})},
		{"s": tftypes.NewValue(tftypes.Set{ElementType: tftypes.Number}, []tftypes.Value{tftypes.NewValue(tftypes.Number, 2.5)})},
	} {
		obj := map[string]tftypes.Value{}
		for k, at := range as[tftypes.Object](f, tt).AttributeTypes {
			obj[k] = tftypes.NewValue(at, nil)
		}
		for k, x := range v {
			obj[k] = x
		}
		dv, err := tfprotov6.NewDynamicValue(tt, tftypes.NewValue(tt, obj))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(dv.MsgPack)
	}
	fabricType := s.Resource("gpucluster_fabric")
	f.Fuzz(func(t *testing.T, b []byte) {
		if fuzzing() && len(b) > maxFuzzMsgPack {
			return
		}
		_, _ = tfwire.ScanNumbers(b, fuzzNumberType)
		if !fuzzing() {
			_, _ = tfwire.ScanNumbers(b, fabricType) // the seeds, in go test, against the real schema too
		}
	})
}

// maxFuzzMsgPack bounds the inputs FuzzScanNumbers fuzzes: three times its largest small seed.
const maxFuzzMsgPack = 160

// fuzzEnd and fuzzNumberType: the shapes scanNumbers walks, small.
var (
	fuzzEnd        = tftypes.Object{AttributeTypes: map[string]tftypes.Type{"port": tftypes.Number}}
	fuzzNumberType = types.ObjectType{AttrTypes: map[string]attr.Type{
		"n": types.Int64Type, "x": types.Float64Type,
		"m": types.MapType{ElemType: types.ObjectType{AttrTypes: map[string]attr.Type{"port": types.Int64Type}}},
		"l": types.ListType{ElemType: types.Float64Type}, "s": types.SetType{ElemType: types.Int64Type},
	}}
)

// fuzzing tells whether this test binary runs a fuzz target (-test.fuzz) rather than its seeds.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

func bigFloatOf(s string) *big.Float {
	f, _, _ := big.ParseFloat(s, 10, 512, big.ToNearestEven)
	return f
}

// as asserts that x has type T.
func as[T any](t testing.TB, x any) T {
	t.Helper()
	v, ok := x.(T)
	if !ok {
		t.Fatalf("%T is not a %T", x, *new(T))
	}
	return v
}
