package fabric

import (
	"strings"
	"testing"
)

// TestPathRatesMatchOpenSM holds the table against OpenSM 3.3.23's include/iba/ib_types.h
// (IB_PATH_RECORD_RATE_*_GBS, copied by hand): every code there, none beyond, both directions.
func TestPathRatesMatchOpenSM(t *testing.T) {
	ibTypes := map[int]float64{
		2: 2.5, 3: 10, 4: 30, 5: 5, 6: 20, 7: 40, 8: 60, 9: 80, 10: 120, 11: 14, 12: 56, 13: 112,
		14: 168, 15: 25, 16: 100, 17: 200, 18: 300, 19: 28, 20: 50, 21: 400, 22: 600,
	}
	if len(PathRates) != len(ibTypes) {
		t.Errorf("%d path rates, ib_types.h has %d", len(PathRates), len(ibTypes))
	}
	for code, gbps := range ibTypes {
		if got, ok := RateCode(gbps); !ok || got != code {
			t.Errorf("RateCode(%g) = %d, %v; want %d", gbps, got, ok, code)
		}
		if got, ok := RateOfCode(code); !ok || got != gbps {
			t.Errorf("RateOfCode(%d) = %g, %v; want %g", code, got, ok, gbps)
		}
	}
	for _, code := range []int{0, 1, 23, 24} {
		if g, ok := RateOfCode(code); ok {
			t.Errorf("RateOfCode(%d) = %g; OpenSM 3.3.23 has no such code", code, g)
		}
	}
}

// TestCheckRate: every whole rate of the table passes; 800 Gb/s, which IBTA 1.5 has and no
// flavour the provider writes for reads, is refused with its reason; a rate that is no path
// rate at all is refused as such.
func TestCheckRate(t *testing.T) {
	want := []int{5, 10, 14, 20, 25, 28, 30, 40, 50, 56, 60, 80, 100, 112, 120, 168, 200, 300, 400, 600}
	if len(PartitionRates) != len(want) {
		t.Fatalf("PartitionRates = %v, want %v", PartitionRates, want)
	}
	for i, r := range want {
		if PartitionRates[i] != r || CheckRate(r) != "" {
			t.Errorf("rate %d: PartitionRates[%d] = %d, CheckRate = %q", r, i, PartitionRates[i], CheckRate(r))
		}
	}
	if got := PartitionRateList(); got != "5, 10, 14, 20, 25, 28, 30, 40, 50, 56, 60, 80, 100, 112, 120, 168, 200, 300, 400, 600" {
		t.Errorf("PartitionRateList() = %q", got)
	}
	for gbps, says := range map[int]string{
		800:  "rate 800 Gb/s (path-rate code 23, IBTA vol. 1 release 1.5) is unknown to the subnet managers the provider writes for: OpenSM 3.3.23 ends at 600 Gb/s (code 22)",
		1200: "code 24",
		401:  "rate 401 Gb/s is not an InfiniBand path rate: use one of 5, 10, 14,",
		0:    "is not an InfiniBand path rate",
	} {
		if got := CheckRate(gbps); !strings.Contains(got, says) {
			t.Errorf("CheckRate(%d) = %q, want it to say %q", gbps, got, says)
		}
	}
}
