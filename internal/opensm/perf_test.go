package opensm

import (
	"strings"
	"testing"
)

func TestParsePerfQuery(t *testing.T) {
	pcs, err := ParsePerfQuery(readTestdata(t, "perfquery.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(pcs) != 2 || pcs[0].Extended || !pcs[1].Extended || pcs[0].LID != 2 || pcs[0].Port != 1 {
		t.Fatalf("blocks: %+v", pcs)
	}
	for name, want := range map[string]uint64{"SymbolErrorCounter": 7, "PortXmitWait": 12345, "LinkDownedCounter": 0, "PortRcvErrors": 0, "PortXmitDiscards": 0, "CounterSelect": 0, "PortXmitData": 37224} {
		if got, ok := pcs[0].Counters[name]; !ok || got != want {
			t.Errorf("%s = %d (%v), want %d", name, got, ok, want)
		}
	}
	if pcs[1].Counters["PortRcvPkts"] != 520 {
		t.Errorf("extended PortRcvPkts = %d", pcs[1].Counters["PortRcvPkts"])
	}
	_, err = ParsePerfQuery("SymbolErrorCounter:....1\n# Port counters: Lid 1 port 1 (CapMask: 0x1300)\nPortXmitWait:....lots\n")
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), "lots") {
		t.Fatalf("errors: %v", err)
	}
}

func FuzzParsePerfQuery(f *testing.F) {
	f.Add("# Port counters: Lid 2 port 1 (CapMask: 0x1300)\nSymbolErrorCounter:..............7\n")
	f.Add("# Port extended counters: Lid 99999999999999999999 port 1\nx:....0xffffffffffffffffff\n")
	f.Fuzz(func(t *testing.T, s string) {
		pcs, _ := ParsePerfQuery(s)
		for _, pc := range pcs {
			if pc.Counters == nil {
				t.Fatal("nil counters")
			}
		}
	})
}
