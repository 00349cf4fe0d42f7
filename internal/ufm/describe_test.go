package ufm

import (
	"reflect"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

func TestDescribeRoundTrip(t *testing.T) {
	p := partition.Partition{Name: "t", PKey: 0x12, IPoIB: true, Index0: true, MTU: 4096, RateGbps: 2.5, SL: 3,
		Members: []partition.Member{mem(gA, partition.Limited), mem(gB, partition.Full)}}
	line := Describe(p)
	if want := "pkey=0x0012 ipoib=true index0=true mtu=4096 rate=2.5 sl=3 members=0002c90300a00001:limited,0002c90300a00002:full"; line != want {
		t.Fatalf("Describe = %q, want %q", line, want)
	}
	got, err := ParseDescribed("t", line)
	if err != nil || !reflect.DeepEqual(got, p) {
		t.Errorf("ParseDescribed = %+v, %v; want %+v", got, err, p)
	}
	if _, err := ParseDescribed("x", "pkey=0x0001 ipoib=true"); err == nil {
		t.Error("a short description was accepted")
	}
}
