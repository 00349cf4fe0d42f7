package opensm

import (
	"reflect"
	"testing"
)

// Nodes count by kind, a kind ibnetdiscover may add later as a CA; drift categories by size.
func TestCounts(t *testing.T) {
	d := &Discovered{
		Nodes: []DiscoveredNode{{Kind: NodeSwitch}, {Kind: NodeSwitch}, {Kind: NodeCA}, {Kind: NodeRouter}, {Kind: "??"}},
		Links: make([]DiscoveredLink, 3),
	}
	counts := d.Counts()
	Report{Missing: make([]LinkDrift, 2), Degraded: make([]LinkDrift, 1), MissingDevices: []string{"gpu009"}}.AddCounts(counts)
	want := map[string]int{"switches": 2, "cas": 2, "routers": 1, "links": 3,
		"missing": 2, "miswired": 0, "unexpected": 0, "degraded": 1, "unknown_guids": 0, "missing_devices": 1}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("counts %v\nwant %v", counts, want)
	}
	if got := (&Discovered{}).Counts(); !reflect.DeepEqual(got, map[string]int{"switches": 0, "cas": 0, "routers": 0, "links": 0}) {
		t.Errorf("empty: %v", got)
	}
}
