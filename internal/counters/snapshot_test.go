package counters

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// snapAt is a snapshot taken at `at` of one cable read up at both ends with rates.
func snapAt(at time.Time) *Snapshot {
	t := at
	return &Snapshot{Version: snapshotVersion, At: at,
		Ports: map[string]PortRecord{
			"leaf01:40": {At: at, Values: map[string]uint64{SymbolErrorCounter: 0}},
			"spine01:8": {At: at, Values: map[string]uint64{SymbolErrorCounter: 0}},
		},
		Links: map[string]LinkRecord{"leaf01:40 <-> spine01:8": {Verdict: OK, RatesAt: &t,
			Rates: map[string]map[string]float64{"leaf01:40": {SymbolErrorCounter: 0}, "spine01:8": {SymbolErrorCounter: 0}}}},
	}
}

// TestSnapshotClock is issue 32's first case: a snapshot from a host with no clock (1970) or
// one ahead (2099) made a cable with 5,000 new symbol errors read "ok". Such a snapshot is
// refused, saying why; an honest one (a minute old) flags the cable. Each time in a snapshot is
// checked against the snapshot's own.
func TestSnapshotClock(t *testing.T) {
	now := t0.Add(time.Hour)
	climbed := func(prev *Snapshot) Report {
		l := Link{Label: "leaf01:40 <-> spine01:8", RateGbps: 400, Up: true, SeenAt: now,
			A: End{Name: "leaf01:40", Last: &Read{At: now, Values: map[string]uint64{SymbolErrorCounter: 5000}}},
			B: End{Name: "spine01:8", Last: &Read{At: now, Values: map[string]uint64{SymbolErrorCounter: 0}}}}
		return Judge(l, prev, Limits{})
	}
	honest := snapAt(now.Add(-time.Minute))
	if err := honest.CheckClock(now); err != nil {
		t.Fatalf("honest: %v", err)
	}
	if r := climbed(honest); r.Verdict != Suspect {
		t.Fatalf("honest snapshot: %s %s", r.Verdict, r.Reason)
	}
	// What the unchecked snapshots made of the same cable, and that they are refused.
	noClock := snapAt(time.Unix(0, 0).UTC())
	if r := climbed(noClock); r.Verdict == Suspect {
		t.Fatalf("the 1970 snapshot no longer hides the cable (%s): the check below proves nothing", r.Reason)
	}
	for _, c := range []struct {
		name string
		s    *Snapshot
		want string
	}{
		{"no clock", noClock, "taken at 1970-01-01T00:00:00Z, before InfiniBand existed (2000-10-24)"},
		{"ahead", snapAt(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)), "taken at 2099-01-01T00:00:00Z, after this read began (2026-03-14T10:00:00Z): a clock is ahead"},
		{"zero", &Snapshot{Version: snapshotVersion}, "before InfiniBand existed"},
		{"a port read after the snapshot", func() *Snapshot {
			s := snapAt(now.Add(-time.Minute))
			s.Ports["spine01:8"] = PortRecord{At: now.Add(-time.Second)}
			return s
		}(), "port spine01:8 read at 2026-03-14T09:59:59Z, outside the snapshot's own time"},
		{"down before InfiniBand", func() *Snapshot {
			s := snapAt(now.Add(-time.Minute))
			old := time.Unix(5, 0)
			s.Links["leaf01:40 <-> spine01:8"] = LinkRecord{Verdict: Down, DownSince: &old}
			return s
		}(), "cable leaf01:40 <-> spine01:8 down at 1970-01-01T00:00:05Z"},
	} {
		if err := c.s.CheckClock(now); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	var none *Snapshot
	if err := none.CheckClock(now); err != nil {
		t.Errorf("no snapshot: %v", err)
	}
}

// TestSnapshotFileBadClock: a kept file with a clock that cannot be right does not stop the read
// and is not used: a warning names the file and why.
func TestSnapshotFileBadClock(t *testing.T) {
	text, err := snapAt(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)).Encode()
	if err != nil {
		t.Fatal(err)
	}
	h := &fileHost{files: map[string]string{"/k/s.json": text}}
	prev, warn, err := ReadSnapshotFile(context.Background(), h, "/k/s.json")
	if prev != nil || err != nil || !strings.HasPrefix(warn, "/k/s.json on sm01:22: it was taken at 2099-01-01T00:00:00Z, after this read began") {
		t.Errorf("%v %q %v", prev, warn, err)
	}
}

// TestSnapshotForeign: a snapshot none of whose ports or cables is this fabric's is another
// fabric's; one label in common makes it this fabric's, changed.
func TestSnapshotForeign(t *testing.T) {
	cables := []opensm.FabricCable{{Label: "leaf01:40 <-> spine01:8",
		A: opensm.CablePort{Name: "leaf01:40"}, B: opensm.CablePort{Name: "spine01:8"}}}
	other := []opensm.FabricCable{{Label: "leafA:1 <-> spineA:1", A: opensm.CablePort{Name: "leafA:1"}, B: opensm.CablePort{Name: "spineA:1"}}}
	s := snapAt(t0)
	if s.Foreign(cables) {
		t.Error("its own fabric called foreign")
	}
	if !s.Foreign(other) {
		t.Error("another fabric's snapshot not called foreign")
	}
	onePort := &Snapshot{Ports: map[string]PortRecord{"spineA:1": {}}}
	if onePort.Foreign(other) {
		t.Error("a snapshot sharing one port called foreign")
	}
	if (&Snapshot{}).Foreign(other) || s.Foreign(nil) {
		t.Error("an empty snapshot, or no cable to compare, is not evidence of another fabric")
	}
}

// TestNoSMEveryLinkUnread is issue 32's third case: no subnet manager, so no LIDs and no port to
// read; every cable is unread (128 of them said "ok" before), none is suspect, and the snapshot
// written records no "ok" for the next read to inherit.
func TestNoSMEveryLinkUnread(t *testing.T) {
	var cables []opensm.FabricCable
	for i := 1; i <= 128; i++ {
		a, b := opensm.CablePort{Name: "leaf01:" + itoa(i), Port: i, Switch: true}, opensm.CablePort{Name: "spine01:" + itoa(i), Port: i, Switch: true}
		cables = append(cables, opensm.FabricCable{Label: a.Name + " <-> " + b.Name, A: a, B: b, Up: true, RateGbps: 400})
	}
	if q := opensm.CableQueries(cables, false); len(q) != 0 {
		t.Fatalf("%d queries without a LID", len(q))
	}
	rs := JudgeCables(cables, nil, nil, t0, snapAt(t0.Add(-time.Minute)), Limits{})
	if len(Unreads(rs)) != len(cables) || len(Suspects(rs)) != 0 {
		t.Fatalf("unread %d, suspect %d of %d", len(Unreads(rs)), len(Suspects(rs)), len(cables))
	}
	for label, rec := range NewSnapshot(t0, rs).Links {
		if rec.Verdict != Unread {
			t.Errorf("%s recorded %q", label, rec.Verdict)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
