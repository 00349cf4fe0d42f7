package scheduler

import (
	"reflect"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

func TestCompress(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"gpu001", "gpu002", "gpu003", "gpu004"}, "gpu[001-004]"},
		{[]string{"gpu004", "gpu001", "gpu002", "gpu007"}, "gpu[001-002,004,007]"},
		{[]string{"leaf01"}, "leaf01"},
		{[]string{"su01", "su02", "spine01"}, "su[01-02],spine01"},
		{[]string{"gpu9", "gpu10", "gpu11"}, "gpu9,gpu[10-11]"}, // widths differ: Slurm pads to the width written
		{[]string{"fabric", "gpu001", "gpu001"}, "fabric,gpu001"},
	} {
		if got := Compress(c.in); got != c.want {
			t.Errorf("Compress(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestExpandRoundTrip(t *testing.T) {
	in := []string{"gpu001", "gpu002", "gpu005", "leaf01", "leaf02", "x", "gpu10"}
	got, err := testrig.ExpandHostlist(Compress(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"gpu001", "gpu002", "gpu005", "leaf01", "leaf02", "x", "gpu10"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip %v -> %q -> %v", in, Compress(in), got)
	}
}
