package plan

import (
	"fmt"
	"strings"
	"testing"
)

// TestCapped: a cause with many problems shows the first MaxPerCause and one more that counts
// the rest and names where the first of them are; other causes and their order are kept.
func TestCapped(t *testing.T) {
	var ps Problems
	for i := 0; i < 1000; i++ {
		ps.add(Error, Attr("cables").Key(fmt.Sprintf("c%04d", i)).Attr("a", "port"), "Fabric: port beyond radix", "port 99 of leaf01 ...")
		if i%500 == 0 {
			ps.add(Warning, Attr("racks").Key("r01"), "Fabric: location unknown", "said once")
		}
	}
	got := ps.Capped(MaxPerCause)
	if len(got) != MaxPerCause+1+2 {
		t.Fatalf("%d problems after the cap, want %d:\n%v", len(got), MaxPerCause+3, got)
	}
	last := got[len(got)-1]
	if last.Severity != Error || last.Summary != "Fabric: port beyond radix" || len(last.At.Steps) != 0 ||
		!strings.HasPrefix(last.Detail, "995 more problems of this kind are not shown, at cables[\"c0005\"].a.port, cables[\"c0006\"].a.port") ||
		!strings.Contains(last.Detail, ", ...") {
		t.Errorf("the count of what was cut: %+v", last)
	}
	if got[0].At.String() != `cables["c0000"].a.port` || got[1].Summary != "Fabric: location unknown" {
		t.Errorf("order changed: %v", got[:2])
	}
	if small := ps[:3].Capped(MaxPerCause); len(small) != 3 {
		t.Errorf("a short list was cut: %v", small)
	}
}
