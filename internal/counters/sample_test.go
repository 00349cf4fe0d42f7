package counters

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// scriptedHost answers each perfquery batch with the next of its outputs: per query, its
// perfquery stdout, or "rc=N stderr" for a run that fails.
type scriptedHost struct {
	batches [][]string
	calls   int
	err     error
}

func (h *scriptedHost) Addr() string { return "sm01:22" }

func (h *scriptedHost) Run(_ context.Context, _ string) (string, string, int, error) {
	if h.err != nil {
		return "", "", 0, h.err
	}
	batch := h.batches[h.calls]
	h.calls++
	var b strings.Builder
	for i, out := range batch {
		b.WriteString("gpc-query " + strconv.Itoa(i) + "\n")
		if rest, ok := strings.CutPrefix(out, "rc=1 "); ok {
			b.WriteString("gpc-rc 1\ngpc-stderr " + rest + "\n")
			continue
		}
		b.WriteString(out + "gpc-rc 0\n")
	}
	return b.String(), "", 0, nil
}

// block is perfquery's text for one port.
func block(lid, port int, symbolErrors int) string {
	return "# Port counters: Lid " + strconv.Itoa(lid) + " port " + strconv.Itoa(port) + "\nSymbolErrorCounter:..............." + strconv.Itoa(symbolErrors) + "\n"
}

// The switch leaf01 is read whole, port 40 kept; the HCA port by itself. The second read finds
// the HCA gone (a device behind a failed cable): with tolerant, its port is left out.
var sampleQueries = []opensm.PerfQuery{
	{Name: "leaf01", Args: []string{"-l", "2", "255"}, Linked: map[int]bool{40: true}},
	{Name: "gpu001/mlx5_0:1", GUID: "0x0002c90300000011", Args: []string{"5", "1"}},
}

func TestTakeTwoReads(t *testing.T) {
	h := &scriptedHost{batches: [][]string{
		{block(2, 39, 7) + block(2, 40, 100), block(5, 1, 0)},
		{block(2, 39, 7) + block(2, 40, 300), "rc=1 ibwarn: timeout"},
	}}
	s, problems, err := Take(context.Background(), h, "perfquery", sampleQueries, true, 10*time.Millisecond)
	if err != nil || len(problems) != 0 || h.calls != 2 {
		t.Fatalf("err %v, problems %v, %d calls", err, problems, h.calls)
	}
	if len(s.First) != 2 || len(s.Last) != 1 {
		t.Fatalf("first %+v\nlast %+v", s.First, s.Last)
	}
	leaf, hca := s.First[0], s.First[1]
	if leaf.End != "leaf01:40" || leaf.Query != 0 || leaf.LID != 2 || leaf.Port != 40 || leaf.Read.Values[SymbolErrorCounter] != 100 {
		t.Errorf("leaf01 port: %+v", leaf)
	}
	if hca.End != "gpu001/mlx5_0:1" || hca.Query != 1 || hca.GUID != "0x0002c90300000011" {
		t.Errorf("HCA port: %+v", hca)
	}
	if l := s.Last[0]; l.End != "leaf01:40" || l.Read.Values[SymbolErrorCounter] != 300 || !l.Read.At.Equal(s.At) || !s.At.After(leaf.Read.At) {
		t.Errorf("last: %+v at %v", l, s.At)
	}
}

func TestTakeOnce(t *testing.T) {
	h := &scriptedHost{batches: [][]string{{block(2, 40, 100), block(5, 1, 0)}}}
	s, problems, err := Take(context.Background(), h, "perfquery", sampleQueries, true, 0)
	if err != nil || len(problems) != 0 || h.calls != 1 || s.First != nil || len(s.Last) != 2 {
		t.Fatalf("err %v, problems %v, %d calls, sample %+v", err, problems, h.calls, s)
	}
}

func TestTakeStops(t *testing.T) {
	// Ports asked for by name must answer: the first failure stops the sample before the wait.
	h := &scriptedHost{batches: [][]string{{block(2, 40, 100), "rc=1 ibwarn: timeout"}}}
	s, problems, err := Take(context.Background(), h, "perfquery", sampleQueries, false, time.Hour)
	if err != nil || h.calls != 1 || s.Last != nil || len(problems) != 1 {
		t.Fatalf("err %v, %d calls, sample %+v, problems %v", err, h.calls, s, problems)
	}
	if p := problems[0]; !p.Error || p.Query != 1 || p.Summary != "perfquery failed" ||
		p.Detail != "perfquery 5 1 (gpu001/mlx5_0:1) exited with status 1: ibwarn: timeout" {
		t.Errorf("problem %+v", p)
	}

	// Output that is not counters is no read, and the problem quotes it.
	h = &scriptedHost{batches: [][]string{{block(2, 40, 100), "SymbolErrorCounter:....1\n"}}}
	_, problems, _ = Take(context.Background(), h, "perfquery", sampleQueries, true, 0)
	if len(problems) != 2 || problems[0].Error || problems[0].Summary != "Part of the perfquery output was not understood" ||
		!problems[1].Error || problems[1].Query != 1 || problems[1].Summary != "No counters for gpu001/mlx5_0:1" ||
		!strings.HasPrefix(problems[1].Detail, "perfquery printed no counter block:\nSymbolErrorCounter:....1\n") ||
		!strings.Contains(problems[0].Detail, `gpu001/mlx5_0:1: perfquery text: line 1: cannot read "SymbolErrorCounter:....1"`) {
		t.Errorf("problems %+v", problems)
	}

	// The session itself fails: no query to blame.
	h = &scriptedHost{err: errors.New("connection lost")}
	_, problems, _ = Take(context.Background(), h, "perfquery", sampleQueries, true, 0)
	if len(problems) != 1 || problems[0] != (Problem{Error: true, Query: -1, Summary: "perfquery failed", Detail: "connection lost"}) {
		t.Errorf("problems %+v", problems)
	}

	// Cancelled while waiting: no second read.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h = &scriptedHost{batches: [][]string{{block(2, 40, 100), block(5, 1, 0)}}}
	_, _, err = Take(ctx, h, "perfquery", sampleQueries, true, time.Hour)
	if err == nil || err.Error() != "cancelled while waiting between the two reads: context canceled" || h.calls != 1 {
		t.Errorf("err %v after %d calls", err, h.calls)
	}
}

func port(end string, lid, p int, at time.Duration, kv ...any) PortRead {
	return PortRead{Name: end, End: end, LID: lid, Port: p, Read: *read(at, kv...)}
}

// A port's rates come from its first read; a port the first read missed takes its record in the
// previous snapshot when that is older; otherwise it has none.
func TestList(t *testing.T) {
	first := []PortRead{port("leaf01:40", 2, 40, 0, SymbolErrorCounter, 100, PortXmitWait, 1000)}
	last := []PortRead{
		port("leaf01:40", 2, 40, 4*time.Second, SymbolErrorCounter, 300, PortXmitWait, 1000),
		port("spine01:8", 3, 8, 4*time.Second, SymbolErrorCounter, 128),
		port("spine01:9", 3, 9, 4*time.Second, SymbolErrorCounter, 5),
		port("spine01:10", 3, 10, 4*time.Second, SymbolErrorCounter, 5),
	}
	prev := &Snapshot{Ports: map[string]PortRecord{
		"spine01:8": {At: t0.Add(-60 * time.Second), Values: map[string]uint64{SymbolErrorCounter: 0}},
		"spine01:9": {At: t0.Add(4 * time.Second), Values: map[string]uint64{SymbolErrorCounter: 0}}, // not older: no window
	}}
	got := List(first, last, prev)
	if len(got) != 4 {
		t.Fatalf("%d ports", len(got))
	}
	// 200 errors in 4 s; PortXmitWait unchanged.
	if r := got[0].Rates; r[SymbolErrorCounter].PerSecond != 50 || r[PortXmitWait].PerSecond != 0 || r[SymbolErrorCounter].Delta != 200 {
		t.Errorf("leaf01:40: %+v", r)
	}
	// 128 errors since the snapshot 64 s earlier.
	if r := got[1].Rates; r[SymbolErrorCounter].PerSecond != 2 {
		t.Errorf("spine01:8: %+v", r)
	}
	if got[2].Rates != nil || got[3].Rates != nil {
		t.Errorf("spine01:9, spine01:10: %+v %+v", got[2].Rates, got[3].Rates)
	}
	if got[1].End != "spine01:8" || got[1].LID != 3 || got[1].Port != 8 {
		t.Errorf("identity: %+v", got[1].PortRead)
	}
}

// Totals do not wrap at 64 bits: two counters of 2^63 sum to 2^64.
func TestTotals(t *testing.T) {
	big63 := PortRead{Read: Read{Values: map[string]uint64{"PortXmitData": 1 << 63, SymbolErrorCounter: 100}}}
	other := PortRead{Read: Read{Values: map[string]uint64{"PortXmitData": 1 << 63, SymbolErrorCounter: 28}}}
	tot := Totals([]PortRead{big63, other})
	if s := tot["PortXmitData"].Text('f', 0); s != "18446744073709551616" {
		t.Errorf("PortXmitData %s", s)
	}
	if s := tot[SymbolErrorCounter].Text('f', 0); s != "128" {
		t.Errorf("SymbolErrorCounter %s", s)
	}
	if len(Totals(nil)) != 0 {
		t.Error("totals of nothing")
	}
}

// Reads join cables by LID and port. An end that answered only the first read did not answer:
// it has no counters and no rate; an end without a LID is not on the fabric.
func TestJudgeCables(t *testing.T) {
	cables := []opensm.FabricCable{
		{Label: "leaf01:40 <-> spine01:8", RateGbps: 400, Up: true,
			A: opensm.CablePort{Name: "leaf01:40", LID: 2, Port: 40, Switch: true}, B: opensm.CablePort{Name: "spine01:8", LID: 3, Port: 8, Switch: true}},
		{Label: "leaf01:41 <-> spine02:8", RateGbps: 400,
			A: opensm.CablePort{Name: "leaf01:41", LID: 2, Port: 41, Switch: true}, B: opensm.CablePort{Name: "spine02:8"}},
	}
	first := []PortRead{
		port("leaf01:40", 2, 40, 0, SymbolErrorCounter, 100),
		port("spine01:8", 3, 8, 0, SymbolErrorCounter, 0),
		port("leaf01:41", 2, 41, 0, SymbolErrorCounter, 0, LinkDownedCounter, 1),
	}
	last := []PortRead{
		port("leaf01:40", 2, 40, 2*time.Second, SymbolErrorCounter, 1500),
		port("leaf01:41", 2, 41, 2*time.Second, SymbolErrorCounter, 0, LinkDownedCounter, 1), // it went down: cabled
	}
	rs := JudgeCables(cables, first, last, t0.Add(2*time.Second), nil, Limits{})
	if len(rs) != 2 {
		t.Fatalf("%d reports", len(rs))
	}
	up := rs[0]
	// 1400 errors in 2 s at 400 Gb/s: 1400 / 8e11 = 1.75e-9 per bit.
	if up.Verdict != Suspect || !up.A.Answered || up.A.Window != 2 || up.A.SymbolBER == nil || *up.A.SymbolBER != 1.75e-9 {
		t.Errorf("A: %s %+v", up.Verdict, up.A)
	}
	if up.B.Answered || up.B.Rates != nil {
		t.Errorf("B: %+v", up.B)
	}
	down := rs[1]
	if down.Verdict != Down || !down.A.Answered || down.B.Answered || down.Label != "leaf01:41 <-> spine02:8" {
		t.Errorf("down: %s %+v %+v", down.Verdict, down.A, down.B)
	}
}
