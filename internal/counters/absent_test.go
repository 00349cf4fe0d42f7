package counters

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

// Links never cabled (issue 27 item 6) against cables that failed, each case built by hand with
// its expected verdict: an absent node (its HCA end not on the fabric, the leaf port all zero)
// and a missing uplink (both ends answer, all zero) are `absent` and stay out of Suspects; a
// down cable with its LinkDownedCounter, or one an earlier read saw up (counters cleared since),
// is `down` and listed.
func TestAbsentVerdict(t *testing.T) {
	zero := func(at time.Duration) *Read {
		return read(at, SymbolErrorCounter, 0, LinkDownedCounter, 0, "PortXmitData", 0)
	}
	up := time.Now().UTC()
	seenUp := &Snapshot{At: t0, Links: map[string]LinkRecord{
		"leaf02:17 <-> spine03:4": {Verdict: OK, RatesAt: &up},
		"leaf02:18 <-> spine03:5": {Verdict: Absent},
	}, Ports: map[string]PortRecord{}}
	cases := []struct {
		label string
		a, b  *Read // nil: not on the fabric
		prev  *Snapshot
		want  Verdict
	}{
		{"gpu032/mlx5_0:1 <-> leaf01:64", nil, zero(time.Second), nil, Absent},
		{"leaf03:1 <-> spine01:3", zero(time.Second), zero(time.Second), nil, Absent},
		{"leaf02:18 <-> spine03:5", zero(time.Second), zero(time.Second), seenUp, Absent},
		{"leaf01:40 <-> spine01:8", read(time.Second, SymbolErrorCounter, 0, LinkDownedCounter, 1), zero(time.Second), nil, Down},
		{"gpu005/mlx5_3:1 <-> leaf02:4", nil, read(time.Second, SymbolErrorCounter, 12, LinkDownedCounter, 0), nil, Down},
		{"leaf02:17 <-> spine03:4", zero(time.Second), zero(time.Second), seenUp, Down},
		{"gpu001/mlx5_0:1 <-> leaf01:1", nil, nil, nil, Absent},
	}
	var reports []Report
	var wantSuspects []string
	for _, c := range cases {
		aName, bName, _ := strings.Cut(c.label, " <-> ")
		l := Link{Label: c.label, RateGbps: 400, SeenAt: t0.Add(time.Minute), A: End{Name: aName, Last: c.a}, B: End{Name: bName, Last: c.b}}
		r := Judge(l, c.prev, Limits{})
		if r.Verdict != c.want {
			t.Errorf("%s: %s (%s), want %s", c.label, r.Verdict, r.Reason, c.want)
		}
		if c.want == Down {
			wantSuspects = append(wantSuspects, c.label)
		}
		reports = append(reports, r)
	}
	want := "absent: the fabric does not show this cable and nothing says it was ever cabled; gpu032/mlx5_0:1 is not on the fabric; " +
		"leaf01:64 answers with every counter at 0 (never read up). Not cabled yet: record it in absent_cables, not failed_cables; " +
		"if it is cabled, the link never came up: treat it as down"
	if reports[0].Reason != want {
		t.Errorf("reason\n got %s\nwant %s", reports[0].Reason, want)
	}
	got := Suspects(reports)
	sort.Strings(wantSuspects)
	if !reflect.DeepEqual(got, wantSuspects) {
		t.Errorf("suspects %q, want %q (cabled links only)", got, wantSuspects)
	}
	// The snapshot keeps the verdict, without a down time, and the next read of the same zeros
	// is absent again.
	s := NewSnapshot(t0.Add(time.Minute), reports)
	if rec := s.Links[cases[1].label]; rec.Verdict != Absent || rec.DownSince != nil {
		t.Errorf("snapshot record %+v", rec)
	}
	l := Link{Label: cases[1].label, RateGbps: 400, SeenAt: t0.Add(time.Hour), A: End{Name: "leaf03:1", Last: zero(time.Hour)}, B: End{Name: "spine01:3", Last: zero(time.Hour)}}
	if r := Judge(l, &s, Limits{}); r.Verdict != Absent {
		t.Errorf("read again: %s %s", r.Verdict, r.Reason)
	}
	// Plugged in and up: judged as any cable.
	l.Up = true
	if r := Judge(l, &s, Limits{}); r.Verdict != OK {
		t.Errorf("plugged in: %s %s", r.Verdict, r.Reason)
	}
}

// absent_cables: a listed cable the fabric does not show is absent whatever its counters say (a
// LinkDownedCounter from a cable since pulled out), and stays out of Suspects; one it shows up
// keeps its verdict and is told to leave the list; unlisted cables are untouched.
func TestMarkAbsent(t *testing.T) {
	downed := read(time.Second, SymbolErrorCounter, 0, LinkDownedCounter, 2)
	links := []Link{
		{Label: "leaf01:64 <-> gpu032/mlx5_0:1", RateGbps: 400, A: End{Name: "leaf01:64", Last: downed}, B: End{Name: "gpu032/mlx5_0:1"}},
		{Label: "leaf02:1 <-> spine01:2", RateGbps: 400, Up: true, // measured at both ends: two reads each
			A: End{Name: "leaf02:1", First: read(0, SymbolErrorCounter, 0), Last: read(time.Second, SymbolErrorCounter, 0)},
			B: End{Name: "spine01:2", First: read(0, SymbolErrorCounter, 0), Last: read(time.Second, SymbolErrorCounter, 0)}},
		{Label: "leaf01:40 <-> spine01:8", RateGbps: 400, A: End{Name: "leaf01:40", Last: downed}, B: End{Name: "spine01:8", Last: downed}},
	}
	var rs []Report
	for _, l := range links {
		rs = append(rs, Judge(l, nil, Limits{}))
	}
	if rs[0].Verdict != Down || rs[2].Verdict != Down {
		t.Fatalf("fixture: %s %s", rs[0].Verdict, rs[2].Verdict)
	}
	MarkAbsent(rs, map[string]bool{links[0].Label: true, links[1].Label: true})
	if rs[0].Verdict != Absent || rs[0].Reason != "absent: in absent_cables (not cabled yet), and the fabric does not show it" || !rs[0].DownSince.IsZero() {
		t.Errorf("listed, not shown: %s %s", rs[0].Verdict, rs[0].Reason)
	}
	if rs[1].Verdict != OK || !strings.HasSuffix(rs[1].Reason, "; it is in absent_cables but cabled and up: take it off absent_cables") {
		t.Errorf("listed, up: %s %s", rs[1].Verdict, rs[1].Reason)
	}
	if rs[2].Verdict != Down {
		t.Errorf("unlisted: %s", rs[2].Verdict)
	}
	if got := Suspects(rs); !reflect.DeepEqual(got, []string{links[2].Label}) {
		t.Errorf("suspects %q", got)
	}
}
