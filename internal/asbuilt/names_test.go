package asbuilt

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// learnNames on the floors' patterns, against names written by hand for coordinates the
// pattern was not shown.
func TestLearnNames(t *testing.T) {
	cases := []struct {
		name    string
		samples []nameSample
		at      []int
		want    string // "" for no pattern
	}{
		{"SU row and rail letter", []nameSample{{"ql-07-a", []int{0, 0, 0}}, {"ql-07-h", []int{7, 0, 7}}, {"ql-08-c", []int{10, 1, 2}}}, []int{17, 2, 1}, "ql-09-b"},
		{"numbered across units", []nameSample{{"ib-leaf-01", []int{0, 0, 0}}, {"ib-leaf-12", []int{11, 1, 3}}}, []int{16, 2, 0}, "ib-leaf-17"},
		{"zero-padded number", []nameSample{{"dgx001", []int{0}}, {"dgx031", []int{30}}, {"dgx033", []int{32}}}, []int{31}, "dgx032"},
		{"SU letter and slot", []nameSample{{"hgx-a001", []int{0, 0, 0}}, {"hgx-b032", []int{63, 1, 31}}, {"hgx-a017", []int{16, 0, 16}}}, []int{64, 2, 0}, "hgx-c001"},
		{"one spine", []nameSample{{"qs-01", []int{0}}}, []int{8}, "qs-09"},
		{"capital letter", []nameSample{{"R1-A", []int{0, 0, 0}}, {"R1-C", []int{2, 0, 2}}}, []int{3, 0, 3}, "R1-D"},
		{"no pattern: names of other shapes", []nameSample{{"ib-leaf-01", []int{0}}, {"leaf2", []int{1}}}, []int{2}, ""},
		{"no pattern: numbers that do not count", []nameSample{{"sw-0017", []int{0}}, {"sw-0009", []int{1}}, {"sw-0031", []int{2}}}, []int{3}, ""},
		{"no pattern: no number", []nameSample{{"alpha", []int{0}}, {"alpha", []int{1}}}, []int{2}, ""},
	}
	for _, c := range cases {
		r, ok := learnNames(c.samples)
		got := ""
		if ok {
			got, _ = r.name(c.at)
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A prefix the user sets wins over the floor's pattern, for its kind only.
func TestFloorNamesUserPrefix(t *testing.T) {
	floor := trialSpec(t)
	des := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 4, PlannedScalableUnits: 4, NodePrefix: "c1n"}, nil)
	f := mustFit(t, des, floor, nil)
	var nodes, spines int
	for _, n := range f.Spec.Nodes {
		if strings.HasPrefix(n.Name, "c1n") {
			nodes++
		}
	}
	for _, s := range f.Spec.Switches {
		if strings.HasPrefix(s.Name, "qs-") {
			spines++
		}
	}
	if nodes != 128-39 || spines != 16 {
		t.Fatalf("%d new nodes under the user's prefix (want 89), %d spines of the floor's pattern (want 16)", nodes, spines)
	}
}
