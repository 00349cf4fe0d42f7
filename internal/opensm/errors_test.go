package opensm

import (
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// TestLocString: a Loc reads as the Config's own path, which the messages show.
func TestLocString(t *testing.T) {
	cases := map[string]Loc{
		"lmc":                           settingLoc("lmc"),
		"options.qos":                   settingLoc("options", "qos"),
		"roots[1]":                      settingLoc("roots").At(1),
		"switches[3].guid":              elemLoc(fabric.MapSwitches, 3, "guid"),
		"partitions[2].members[5].guid": elemLoc(fabric.MapPartitions, 2).Attr("members").At(5).Attr("guid"),
		"partitions":                    {Map: fabric.MapPartitions, Index: -1},
		"":                              {},
	}
	for want, l := range cases {
		if got := l.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", l, got, want)
		}
	}
	// Extending a Loc leaves the original alone (the partition's Loc is reused for each member).
	p := elemLoc(fabric.MapPartitions, 0)
	_ = p.Attr("members").At(1)
	if len(p.Steps) != 0 {
		t.Errorf("Attr changed its receiver: %v", p.Steps)
	}
}
