package counters

import (
	"math/rand"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)

// read is a read at t0+at of the counters given as name, value pairs.
func read(at time.Duration, kv ...any) *Read {
	r := &Read{At: t0.Add(at), Values: map[string]uint64{}}
	for i := 0; i+1 < len(kv); i += 2 {
		name, _ := kv[i].(string)
		v, _ := kv[i+1].(int)
		r.Values[name] = uint64(v)
	}
	return r
}

func TestRates(t *testing.T) {
	w, rs := Rates(*read(0, SymbolErrorCounter, 100, LinkDownedCounter, 7, PortXmitWait, 10, "PortXmitData", 5),
		*read(4*time.Second, SymbolErrorCounter, 65535, LinkDownedCounter, 2, PortXmitWait, 30))
	if w != 4 {
		t.Fatalf("window %v", w)
	}
	want := map[string]Rate{
		SymbolErrorCounter: {Delta: 65435, PerSecond: 65435.0 / 4, Saturated: true}, // 16 bits: stopped at 65535
		LinkDownedCounter:  {Delta: 2, PerSecond: 0.5, Reset: true},                 // 7 -> 2: cleared, counted from 0
		PortXmitWait:       {Delta: 20, PerSecond: 5},
	}
	if len(rs) != len(want) {
		t.Errorf("rates %v", rs)
	}
	for k, v := range want {
		if rs[k] != v {
			t.Errorf("%s: %+v, want %+v", k, rs[k], v)
		}
	}
	// 64-bit extended counters never saturate at a PortCounters width.
	last := *read(time.Second, "PortXmitWait", 1<<32-1)
	last.Extended = true
	if _, rs := Rates(*read(0, "PortXmitWait", 0), last); rs[PortXmitWait].Saturated {
		t.Error("extended PortXmitWait saturated at 2^32-1")
	}
	if w, rs := Rates(*read(time.Second), *read(time.Second)); w != 0 || rs != nil {
		t.Errorf("zero window: %v %v", w, rs)
	}
	if Max(LinkDownedCounter, false) != 255 || Max("LocalLinkIntegrityErrors", false) != 15 || Max("Unknown", false) != ^uint64(0) {
		t.Error("Max")
	}
}

// The symbol BER is errors per bit: 1400 errors in 2 s at 400 Gb/s is 1400 / 8e11 = 1.75e-9.
func TestSymbolBER(t *testing.T) {
	_, rs := Rates(*read(0, SymbolErrorCounter, 100), *read(2*time.Second, SymbolErrorCounter, 1500))
	if b, ok := SymbolBER(rs, 2, 400); !ok || b != 1.75e-9 {
		t.Errorf("BER %v %v", b, ok)
	}
	if _, ok := SymbolBER(rs, 2, 0); ok {
		t.Error("BER without a link rate")
	}
	if _, ok := SymbolBER(map[string]Rate{}, 2, 400); ok {
		t.Error("BER without the counter")
	}
}

// NVIDIA's 12-minute rule for NDR (UFM PDR plugin): a link is bad when its symbol errors within
// 12 minutes exceed 400e9 x 720 x 1e-14 = 2.88. On any window of at most 12 minutes, Judge with
// the default limits calls an end suspect exactly when that rule fires on the errors counted:
// checked on random windows and counts against the rule written as NVIDIA writes it.
func TestDefaultLimitsAgreeWithNVIDIA12MinuteRule(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	thd := 400e9 * 12 * 60 * 1e-14
	for i := 0; i < 20000; i++ {
		window := time.Duration(1+rng.Intn(720_000)) * time.Millisecond
		delta := rng.Intn(8)
		l := Link{Label: "a:1 <-> b:1", RateGbps: 400, Up: true,
			A: End{Name: "a:1", First: read(0, SymbolErrorCounter, 10), Last: read(window, SymbolErrorCounter, 10+delta)},
			B: End{Name: "b:1", First: read(0, SymbolErrorCounter, 0), Last: read(window, SymbolErrorCounter, 0)}}
		got := Judge(l, nil, Limits{}).Verdict == Suspect
		if want := float64(delta) > thd; got != want {
			t.Fatalf("%d errors in %s: suspect %v, NVIDIA's rule %v", delta, window, got, want)
		}
	}
}

func link(a, b End) Link {
	return Link{Label: "leaf01:40 <-> spine01:8", A: a, B: b, RateGbps: 400, Up: true, SeenAt: t0.Add(2 * time.Second)}
}

func TestJudgeUp(t *testing.T) {
	quiet := End{Name: "spine01:8", First: read(0, SymbolErrorCounter, 0, LinkDownedCounter, 1), Last: read(2*time.Second, SymbolErrorCounter, 0, LinkDownedCounter, 1)}
	for _, c := range []struct {
		name    string
		a       End
		b       End
		verdict Verdict
		reason  string
	}{
		{"climbing", End{Name: "leaf01:40", First: read(0, SymbolErrorCounter, 100), Last: read(2*time.Second, SymbolErrorCounter, 1500)}, quiet,
			Suspect, "suspect: leaf01:40: 1400 symbol errors in 2 s (700/s), BER 1.75e-09 at 400 Gb/s, above 1e-14"},
		{"two stray errors", End{Name: "leaf01:40", First: read(0, SymbolErrorCounter, 100), Last: read(2*time.Second, SymbolErrorCounter, 102)}, quiet,
			OK, "ok: leaf01:40 2 symbol errors in 2 s (1/s), BER 2.5e-12 at 400 Gb/s, within 1e-14 (or fewer than 3); spine01:8 no symbol error in 2 s"},
		{"quiet", End{Name: "leaf01:40", First: read(0, SymbolErrorCounter, 1500), Last: read(2*time.Second, SymbolErrorCounter, 1500)}, quiet,
			OK, "ok: leaf01:40 no symbol error in 2 s; spine01:8 no symbol error in 2 s"},
		{"saturated", End{Name: "leaf01:40", First: read(0, SymbolErrorCounter, 65535), Last: read(2*time.Second, SymbolErrorCounter, 65535)}, quiet,
			Suspect, "suspect: leaf01:40: SymbolErrorCounter is at its maximum (65535) and no longer counts"},
		{"flapped at both ends", End{Name: "leaf01:40", First: read(0, LinkDownedCounter, 4), Last: read(2*time.Second, LinkDownedCounter, 6)},
			End{Name: "spine01:8", First: read(0, LinkDownedCounter, 1), Last: read(2*time.Second, LinkDownedCounter, 3)},
			Suspect, "suspect: the link went down 2 times (LinkDownedCounter +2 at leaf01:40, +2 at spine01:8 since 2026-03-14T09:00:00Z)"},
		{"one end went down: a reboot seen from the switch", End{Name: "leaf01:40", First: read(0, SymbolErrorCounter, 0, LinkDownedCounter, 4), Last: read(2*time.Second, SymbolErrorCounter, 0, LinkDownedCounter, 5)},
			quiet, OK, "ok:"},
		// No data is not ok (issue 32): a verdict needs a rate at both ends.
		{"single read", End{Name: "leaf01:40", Last: read(0, SymbolErrorCounter, 1500)}, End{Name: "spine01:8", Last: read(0)},
			Unread, "unread: leaf01:40 read once (no rate: set sample_seconds or previous)"},
		{"one end does not answer", End{Name: "leaf01:40", First: read(0, SymbolErrorCounter, 1500), Last: read(2*time.Second, SymbolErrorCounter, 1500)},
			End{Name: "spine01:8"}, Unread, "unread: leaf01:40 no symbol error in 2 s; spine01:8 does not answer"},
		{"neither end answers (no LID: no SM)", End{Name: "leaf01:40"}, End{Name: "spine01:8"},
			Unread, "unread: leaf01:40 does not answer; spine01:8 does not answer"},
		{"no SymbolErrorCounter (extended)", End{Name: "leaf01:40", First: read(0, "PortXmitData", 1), Last: read(2*time.Second, "PortXmitData", 9)}, quiet,
			Unread, "unread: leaf01:40 has no SymbolErrorCounter"},
		{"one end climbing, the other silent: suspect on the evidence there is", End{Name: "leaf01:40", First: read(0, SymbolErrorCounter, 100), Last: read(2*time.Second, SymbolErrorCounter, 1500)},
			End{Name: "spine01:8"}, Suspect, "suspect: leaf01:40: 1400 symbol errors"},
	} {
		r := Judge(link(c.a, c.b), nil, Limits{})
		if r.Verdict != c.verdict || !strings.HasPrefix(r.Reason, c.reason) {
			t.Errorf("%s: %s %q, want %s %q", c.name, r.Verdict, r.Reason, c.verdict, c.reason)
		}
	}
}

// A cable that goes down keeps its evidence through every later read: the snapshot of the read
// that saw it suspect carries its rates into the reports (and snapshots) that see it down, and
// the report says down, never clean. Then it is replaced: counters cleared, link up, ok.
func TestDownKeepsEvidence(t *testing.T) {
	label := "leaf01:40 <-> spine01:8"
	step := func(at time.Duration, up bool, a, b *Read, prev *Snapshot) (Report, *Snapshot) {
		l := Link{Label: label, RateGbps: 400, Up: up, SeenAt: t0.Add(at), A: End{Name: "leaf01:40", Last: a}, B: End{Name: "spine01:8", Last: b}}
		r := Judge(l, prev, Limits{})
		s := NewSnapshot(t0.Add(at), []Report{r})
		text, err := s.Encode()
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeSnapshot(text)
		if err != nil {
			t.Fatal(err)
		}
		return r, back
	}
	// 1. A first single read: no rates yet.
	r, s := step(0, true, read(0, SymbolErrorCounter, 100, LinkDownedCounter, 0), read(0, SymbolErrorCounter, 0, LinkDownedCounter, 0), nil)
	if r.Verdict != Unread || !strings.Contains(r.Reason, "read once") || s.Links[label].Verdict != Unread {
		t.Fatalf("1: %s %s, recorded %q", r.Verdict, r.Reason, s.Links[label].Verdict)
	}
	// 2. Ten minutes later, from the snapshot: 1,100 errors in 600 s.
	r, s = step(10*time.Minute, true, read(10*time.Minute, SymbolErrorCounter, 1200, LinkDownedCounter, 0), read(10*time.Minute, SymbolErrorCounter, 0, LinkDownedCounter, 0), s)
	if r.Verdict != Suspect || !strings.Contains(r.Reason, "1100 symbol errors in 600 s (1.833/s), BER 4.58e-12") {
		t.Fatalf("2: %s %s", r.Verdict, r.Reason)
	}
	// 3. The cable goes down: both switch ends still answer, and it went down once.
	r, s = step(20*time.Minute, false, read(20*time.Minute, SymbolErrorCounter, 1300, LinkDownedCounter, 1), read(20*time.Minute, SymbolErrorCounter, 0, LinkDownedCounter, 1), s)
	want := "down: the fabric does not show this cable; leaf01:40 LinkDownedCounter 1 (+1 since 2026-03-14T09:10:00Z), SymbolErrorCounter 1300; " +
		"spine01:8 LinkDownedCounter 1 (+1 since 2026-03-14T09:10:00Z), SymbolErrorCounter 0; last read up at 2026-03-14T09:10:00Z: leaf01:40 1.833 symbol errors/s; spine01:8 0 symbol errors/s (BER 4.58e-12), judged suspect"
	if r.Verdict != Down || r.Reason != want {
		t.Fatalf("3: %s\n got %s\nwant %s", r.Verdict, r.Reason, want)
	}
	// 4. Still down an hour later, one end no longer answers: the evidence and the first down
	// time stay.
	r, s = step(80*time.Minute, false, read(80*time.Minute, SymbolErrorCounter, 1300, LinkDownedCounter, 1), nil, s)
	if r.Verdict != Down || !strings.Contains(r.Reason, "down since 2026-03-14T09:20:00Z at the latest") || !strings.Contains(r.Reason, "spine01:8 does not answer") ||
		!strings.Contains(r.Reason, "last read up at 2026-03-14T09:10:00Z: leaf01:40 1.833 symbol errors/s") || !r.DownSince.Equal(t0.Add(20*time.Minute)) {
		t.Fatalf("4: %s %s", r.Verdict, r.Reason)
	}
	// 5. Replaced: counters cleared, link up. The cleared counters count from zero: none at
	// leaf01:40; but spine01:8 did not answer the last read, so it has nothing to compare with:
	// no verdict without its reading.
	r, s = step(90*time.Minute, true, read(90*time.Minute, SymbolErrorCounter, 0, LinkDownedCounter, 0), read(90*time.Minute, SymbolErrorCounter, 0, LinkDownedCounter, 0), s)
	if r.Verdict != Unread || !strings.Contains(r.Reason, "leaf01:40 no symbol error in 600 s") || !strings.Contains(r.Reason, "spine01:8 read once") {
		t.Fatalf("5: %s %s", r.Verdict, r.Reason)
	}
	// 6. The next read has both ends' history: ok.
	r, _ = step(95*time.Minute, true, read(95*time.Minute, SymbolErrorCounter, 0, LinkDownedCounter, 0), read(95*time.Minute, SymbolErrorCounter, 0, LinkDownedCounter, 0), s)
	if r.Verdict != OK || r.Reason != "ok: leaf01:40 no symbol error in 300 s; spine01:8 no symbol error in 300 s" {
		t.Fatalf("6: %s %s", r.Verdict, r.Reason)
	}
}

func TestDecodeSnapshotRefuses(t *testing.T) {
	if s, err := DecodeSnapshot(""); s != nil || err != nil {
		t.Errorf("empty: %v %v", s, err)
	}
	if _, err := DecodeSnapshot("{"); err == nil || !strings.Contains(err.Error(), "give its `snapshot` output as it was") {
		t.Errorf("garbage: %v", err)
	}
	if _, err := DecodeSnapshot(`{"version":9}`); err == nil || !strings.Contains(err.Error(), "version 9") {
		t.Errorf("version: %v", err)
	}
}
