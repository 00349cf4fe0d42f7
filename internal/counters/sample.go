package counters

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// PortRead is one port's counters in one read, with what identifies it.
type PortRead struct {
	Query int    // index of the perfquery run that read it
	Name  string // the run's label
	GUID  string // the run's GUID; empty when asked by LID
	LID   int
	Port  int
	End   string // the port as a cable end, the key of Snapshot.Ports
	Read  Read
}

// Problem is a diagnostic of a sample for the caller to place: Query is the index of the
// perfquery run it concerns, -1 for the perfquery session as a whole.
type Problem struct {
	Error           bool
	Query           int
	Summary, Detail string
}

// Sample is what Take read: Last always, First only when it waited between two reads.
type Sample struct {
	First, Last []PortRead
	At          time.Time // when the last read began
}

// Take runs every query on h and runs them again `wait` after the first read began, so that
// rates say what happens now rather than since the last reset; wait 0 reads once (rates then
// come from a Snapshot). The wait counts from the start of the first read, not its end: each
// port is read at about the same offset into both reads, so its window is about `wait` either
// way, and the sample takes max(wait, one read) plus one read instead of wait plus two reads
// (on a floor of hundreds of HCA ports a read takes seconds: one perfquery run per port).
// With tolerant, a run that fails leaves its ports out: a device behind a failed cable does not
// answer, and its cable's verdict keeps that evidence (the end does not answer). Otherwise it
// stops the sample. problems lists what was not understood and, last, what stopped the sample;
// err is the context's, when it ended during the wait.
func Take(ctx context.Context, h opensm.Runner, perf string, queries []opensm.PerfQuery, tolerant bool, wait time.Duration) (s Sample, problems []Problem, err error) {
	first, at, problems := readOnce(ctx, h, perf, queries, tolerant)
	if failed(problems) {
		return Sample{}, problems, nil
	}
	if wait <= 0 {
		return Sample{Last: first, At: at}, problems, nil
	}
	if rest := wait - clock.now().Sub(at); rest > 0 {
		select {
		case <-ctx.Done():
			return Sample{}, problems, fmt.Errorf("cancelled while waiting between the two reads: %w", ctx.Err())
		case <-clock.after(rest):
		}
	}
	last, at, more := readOnce(ctx, h, perf, queries, tolerant)
	problems = append(problems, more...)
	if failed(problems) {
		return Sample{}, problems, nil
	}
	return Sample{First: first, Last: last, At: at}, problems, nil
}

// clock is the time Take reads and waits on: time's own, replaced by a test so that the schedule
// of the two reads is checked exactly rather than by timing a test on a loaded machine.
var clock = struct {
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
}{time.Now, time.After}

func failed(ps []Problem) bool {
	return len(ps) > 0 && ps[len(ps)-1].Error
}

// readOnce runs every query once and returns the ports read, in query order, with the time the
// read began.
func readOnce(ctx context.Context, h opensm.Runner, perf string, queries []opensm.PerfQuery, tolerant bool) ([]PortRead, time.Time, []Problem) {
	at := clock.now()
	results, err := opensm.RunEachPerfQuery(ctx, h, perf, queries)
	if err != nil {
		return nil, at, []Problem{{Error: true, Query: -1, Summary: "perfquery failed", Detail: err.Error()}}
	}
	var out []PortRead
	var problems []Problem
	for qi, q := range queries {
		if results[qi].Err != nil {
			if !tolerant {
				return nil, at, append(problems, Problem{Error: true, Query: qi, Summary: "perfquery failed", Detail: results[qi].Err.Error()})
			}
			continue
		}
		blocks, perr := opensm.ParsePerfQuery(results[qi].Out)
		if perr != nil {
			problems = append(problems, Problem{Query: qi, Summary: "Part of the perfquery output was not understood", Detail: fmt.Sprintf("%s: %v", q.Name, perr)})
		}
		if len(blocks) == 0 {
			return nil, at, append(problems, Problem{Error: true, Query: qi, Summary: "No counters for " + q.Name,
				Detail: "perfquery printed no counter block:\n" + opensm.Truncate(results[qi].Out, 2000)})
		}
		for _, b := range blocks {
			vals, ok := q.Counts(b)
			if !ok {
				continue
			}
			out = append(out, PortRead{Query: qi, Name: q.Name, GUID: q.GUID, LID: b.LID, Port: b.Port, End: endLabel(q, b),
				Read: Read{At: at, Values: vals, Extended: b.Extended}})
		}
	}
	return out, at, problems
}

// endLabel is a port's label as a cable end: "leaf01:40" for a port of a switch read whole (the
// run names the switch), the run's own label otherwise (an HCA port, a port asked for by itself).
func endLabel(q opensm.PerfQuery, b opensm.PortCounters) string {
	if q.Linked != nil {
		return fabric.End{Device: q.Name, Port: b.Port}.String()
	}
	return q.Name
}

// JudgeCables joins the reads into cables, by each end's LID and port, and judges each at
// seenAt. An end read only once (it stopped answering in between) has no first read.
func JudgeCables(cables []opensm.FabricCable, first, last []PortRead, seenAt time.Time, prev *Snapshot, lim Limits) []Report {
	r1, r2 := byKey(first), byKey(last)
	end := func(p opensm.CablePort) End {
		e := End{Name: p.Name}
		if p.LID == 0 {
			return e
		}
		k := opensm.EndKey(p.LID, p.Port)
		e.First, e.Last = r1[k], r2[k]
		if e.Last == nil {
			e.First = nil
		}
		return e
	}
	out := make([]Report, len(cables))
	for i, c := range cables {
		out[i] = Judge(Link{Label: c.Label, A: end(c.A), B: end(c.B), RateGbps: c.RateGbps, Up: c.Up, SeenAt: seenAt}, prev, lim)
	}
	return out
}

func byKey(ports []PortRead) map[[2]int]*Read {
	m := make(map[[2]int]*Read, len(ports))
	for i := range ports {
		m[opensm.EndKey(ports[i].LID, ports[i].Port)] = &ports[i].Read
	}
	return m
}

// PortRates is each port of the last read with its rates (nil when none can be computed).
type PortRates struct {
	PortRead
	Rates map[string]Rate
}

// List is each port of last with its rates against its first read or, for a port first did not
// read, against its record in prev when that is older.
func List(first, last []PortRead, prev *Snapshot) []PortRates {
	before := byKey(first)
	out := make([]PortRates, len(last))
	for i, p := range last {
		out[i].PortRead = p
		b := before[opensm.EndKey(p.LID, p.Port)]
		if b == nil && prev != nil {
			if rec, has := prev.Ports[p.End]; has && rec.At.Before(p.Read.At) {
				b = &Read{At: rec.At, Values: rec.Values, Extended: rec.Extended}
			}
		}
		if b != nil {
			_, out[i].Rates = Rates(*b, p.Read)
		}
	}
	return out
}

// Totals sums each counter over ports in a big.Float: a sum of 64-bit counters can exceed 64
// bits, and a Terraform number is a big.Float.
func Totals(ports []PortRead) map[string]*big.Float {
	out := map[string]*big.Float{}
	for _, p := range ports {
		for k, v := range p.Read.Values {
			if out[k] == nil {
				out[k] = new(big.Float)
			}
			out[k].Add(out[k], new(big.Float).SetUint64(v))
		}
	}
	return out
}
