package counters_test

import (
	"fmt"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/counters"
)

// Two reads of one port ten seconds apart: totals say little, rates say what happens now.
func ExampleRates() {
	at := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	first := counters.Read{At: at, Values: map[string]uint64{"SymbolErrorCounter": 1500, "LinkDownedCounter": 4, "PortXmitWait": 1000}}
	last := counters.Read{At: at.Add(10 * time.Second), Values: map[string]uint64{"SymbolErrorCounter": 2900, "LinkDownedCounter": 4, "PortXmitWait": 51000}}
	window, rates := counters.Rates(first, last)
	fmt.Printf("window %v s\n", window)
	for _, name := range []string{"SymbolErrorCounter", "LinkDownedCounter", "PortXmitWait"} {
		fmt.Printf("%s +%d, %v/s\n", name, rates[name].Delta, rates[name].PerSecond)
	}
	ber, _ := counters.SymbolBER(rates, window, 400)
	fmt.Printf("symbol BER %.3g per bit at 400 Gb/s\n", ber)
	// Output:
	// window 10 s
	// SymbolErrorCounter +1400, 140/s
	// LinkDownedCounter +0, 0/s
	// PortXmitWait +50000, 5000/s
	// symbol BER 3.5e-10 per bit at 400 Gb/s
}

// A cable joins both ends' reads into one verdict with its reason; suspect and down cables are
// the ones to record in failed_cables.
func ExampleJudge() {
	at := time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)
	read := func(s time.Duration, symbolErrors uint64) *counters.Read {
		return &counters.Read{At: at.Add(s), Values: map[string]uint64{"SymbolErrorCounter": symbolErrors, "LinkDownedCounter": 0}}
	}
	l := counters.Link{
		Label: "leaf01:40 <-> spine01:8", RateGbps: 400, Up: true, SeenAt: at.Add(5 * time.Second),
		A: counters.End{Name: "leaf01:40", First: read(0, 1500), Last: read(5*time.Second, 2900)},
		B: counters.End{Name: "spine01:8", First: read(0, 0), Last: read(5*time.Second, 0)},
	}
	r := counters.Judge(l, nil, counters.DefaultLimits())
	fmt.Println(r.Verdict)
	fmt.Println(r.Reason)

	l.Up = false // unplugged: the evidence stays with the snapshot of the read above
	prev := counters.NewSnapshot(at.Add(5*time.Second), []counters.Report{r})
	l.SeenAt = at.Add(time.Minute)
	l.A = counters.End{Name: "leaf01:40", Last: read(time.Minute, 2950)}
	l.B = counters.End{Name: "spine01:8", Last: read(time.Minute, 0)}
	r = counters.Judge(l, &prev, counters.DefaultLimits())
	fmt.Println(r.Verdict)
	fmt.Println(r.Reason)
	// Output:
	// suspect
	// suspect: leaf01:40: 1400 symbol errors in 5 s (280/s), BER 7e-10 at 400 Gb/s, above 1e-14
	// down
	// down: the fabric does not show this cable; leaf01:40 LinkDownedCounter 0 (+0 since 2026-03-14T09:00:05Z), SymbolErrorCounter 2950; spine01:8 LinkDownedCounter 0 (+0 since 2026-03-14T09:00:05Z), SymbolErrorCounter 0; last read up at 2026-03-14T09:00:05Z: leaf01:40 280 symbol errors/s; spine01:8 0 symbol errors/s (BER 7e-10), judged suspect
}
