package counters

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// FuzzSnapshot fuzzes the snapshot text (a `previous`, or the kept file) with issue 32's
// properties: it never panics; one accepted reads back the same through Encode; one whose clock
// CheckClock passes holds only times between InfiniBand's first specification and its own time,
// itself no later than now (checked here time by time, not by CheckClock's code); and, judged
// against it, no cable is ok without a reading: ok only when both ends answered and the snapshot
// holds each end's SymbolErrorCounter from before this read, and a cable whose ends did not answer
// is never ok, nor recorded ok in the snapshot that follows. The seeds run in `go test`.
func FuzzSnapshot(f *testing.F) {
	now := t0.Add(time.Hour)
	for _, s := range []*Snapshot{snapAt(now.Add(-time.Minute)), snapAt(time.Unix(0, 0).UTC()), snapAt(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)), {Version: 1}} {
		b, _ := json.Marshal(s)
		f.Add(string(b))
	}
	f.Add(`{"version":1,"at":"2026-03-14T09:59:00Z","ports":{"leaf01:40":{"at":"2026-03-14T09:59:00Z","values":{"SymbolErrorCounter":0}}},"links":{}}`)
	f.Add(`{"version":1,"at":"2026-03-14T09:59:00Z","ports":{"spine01:8":{"at":"2026-03-14T10:30:00Z","values":{}}},"links":{"x":{"verdict":"ok"}}}`)
	f.Add(`{"version":2}`)
	f.Add(`{`)
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := DecodeSnapshot(text)
		if err != nil || s == nil {
			return
		}
		enc, err := s.Encode()
		if err != nil {
			return // a float the text held that JSON cannot write back (NaN): not a snapshot Encode wrote
		}
		back, err := DecodeSnapshot(enc)
		if err != nil {
			t.Fatalf("Encode's text refused: %v\n%s", err, enc)
		}
		if enc2, _ := back.Encode(); enc2 != enc {
			t.Fatalf("not stable:\n%s\n%s", enc, enc2)
		}
		if s.CheckClock(now) != nil {
			return
		}
		within := func(tm time.Time) bool { return !tm.Before(epoch) && !tm.After(s.At) }
		if s.At.After(now) || !within(s.At) {
			t.Fatalf("accepted a snapshot taken at %s (now %s)", s.At, now)
		}
		for name, p := range s.Ports {
			if !within(p.At) {
				t.Fatalf("accepted port %s read at %s", name, p.At)
			}
		}
		for label, l := range s.Links {
			if (l.RatesAt != nil && !within(*l.RatesAt)) || (l.DownSince != nil && !within(*l.DownSince)) {
				t.Fatalf("accepted cable %s with a time outside the snapshot's", label)
			}
		}
		// Judge, against it, a cable read once at both ends and one whose ends did not answer.
		single := func(name string) End {
			return End{Name: name, Last: &Read{At: now, Values: map[string]uint64{SymbolErrorCounter: 10}}}
		}
		rs := []Report{
			Judge(Link{Label: "leaf01:40 <-> spine01:8", A: single("leaf01:40"), B: single("spine01:8"), RateGbps: 400, Up: true, SeenAt: now}, s, Limits{}),
			Judge(Link{Label: "leaf01:41 <-> spine01:9", A: End{Name: "leaf01:41"}, B: End{Name: "spine01:9"}, RateGbps: 400, Up: true, SeenAt: now}, s, Limits{}),
		}
		readBefore := func(name string) bool {
			p, ok := s.Ports[name]
			_, has := p.Values[SymbolErrorCounter]
			return ok && has && p.At.Before(now)
		}
		if rs[0].Verdict == OK && (!readBefore("leaf01:40") || !readBefore("spine01:8")) {
			t.Fatalf("ok without a reading at both ends: %s", rs[0].Reason)
		}
		if rs[1].Verdict != Unread {
			t.Fatalf("a cable with no reading judged %s: %s", rs[1].Verdict, rs[1].Reason)
		}
		next := NewSnapshot(now, rs)
		for i, r := range rs {
			rec := next.Links[r.Label]
			if rec.Verdict != r.Verdict {
				t.Fatalf("recorded %s for a cable judged %s", rec.Verdict, r.Verdict)
			}
			if rec.Verdict == OK && (len(rec.Rates) != 2 || rec.RatesAt == nil) {
				t.Fatalf("recorded ok without both ends' rates: %+v", rec)
			}
			if i == 1 && !reflect.DeepEqual(rec, LinkRecord{Verdict: Unread}) {
				t.Fatalf("the unread cable recorded %+v", rec)
			}
		}
	})
}
