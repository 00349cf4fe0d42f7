package counters

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// snapshotVersion is the version of the Snapshot text; a snapshot of another version is refused
// with a message, never misread.
const snapshotVersion = 1

// Snapshot is what one read saw, kept for the next one (package doc, "Remembering"): each end's
// counters and each cable's verdict, its last rates while up and since when it is down.
type Snapshot struct {
	Version int                   `json:"version"`
	At      time.Time             `json:"at"`
	Ports   map[string]PortRecord `json:"ports"` // by end label
	Links   map[string]LinkRecord `json:"links"` // by cable label
}

// PortRecord is one end's last read.
type PortRecord struct {
	At       time.Time         `json:"at"`
	Extended bool              `json:"extended,omitempty"`
	Values   map[string]uint64 `json:"values"`
}

// LinkRecord is one cable's state as a snapshot keeps it.
type LinkRecord struct {
	Verdict   Verdict                       `json:"verdict"`
	SymbolBER *float64                      `json:"symbol_ber,omitempty"`
	RatesAt   *time.Time                    `json:"rates_at,omitempty"`
	Rates     map[string]map[string]float64 `json:"rates,omitempty"`
	DownSince *time.Time                    `json:"down_since,omitempty"`
}

// NewSnapshot records reports read at `at`: every answering end's last read and every cable's
// verdict, last rates and down time (carried from the previous snapshot through the reports).
func NewSnapshot(at time.Time, reports []Report) Snapshot {
	s := Snapshot{Version: snapshotVersion, At: at.UTC(), Ports: map[string]PortRecord{}, Links: map[string]LinkRecord{}}
	for _, r := range reports {
		for _, e := range []EndReport{r.A, r.B} {
			if e.Answered {
				s.Ports[e.Name] = PortRecord{At: e.ReadAt.UTC(), Extended: e.Extended, Values: e.Counters}
			}
		}
		rec := LinkRecord{Verdict: r.Verdict, SymbolBER: r.SymbolBER}
		if len(r.LastRates) > 0 {
			t := r.LastRatesAt.UTC()
			rec.RatesAt, rec.Rates = &t, r.LastRates
		}
		if r.Verdict == Down {
			t := r.DownSince.UTC()
			rec.DownSince = &t
		}
		s.Links[r.Label] = rec
	}
	return s
}

// Encode is the snapshot as JSON text (keys sorted: the same snapshot is the same text).
func (s Snapshot) Encode() (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

// DecodeSnapshot reads Encode's text; "" is no snapshot (nil).
func DecodeSnapshot(text string) (*Snapshot, error) {
	if text == "" {
		return nil, nil
	}
	var s Snapshot
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		return nil, fmt.Errorf("not a snapshot of gpucluster_port_counters (give its `snapshot` output as it was): %v", err)
	}
	if s.Version != snapshotVersion {
		return nil, fmt.Errorf("a snapshot of version %d, this provider reads version %d: drop it once, the next read writes a new one", s.Version, snapshotVersion)
	}
	return &s, nil
}

// epoch is the earliest time a snapshot can hold: no InfiniBand port counted anything before the
// InfiniBand Architecture Specification Release 1.0 (InfiniBand Trade Association, 24 October
// 2000). A time before it is a clock that was never set (a host booted at 1970-01-01).
var epoch = time.Date(2000, time.October, 24, 0, 0, 0, 0, time.UTC)

// CheckClock refuses a snapshot whose times cannot be right for a read beginning at now: taken
// after now (its clock, or this one, is ahead), before InfiniBand existed (a host with no
// clock), or holding a port read, a rate or a down time after the snapshot itself. Rates against
// such a snapshot would be over a window that did not happen: a cable's 5,000 new symbol errors
// spread over 56 years read as none (issue 32).
func (s *Snapshot) CheckClock(now time.Time) error {
	if s == nil {
		return nil
	}
	at := s.At
	if at.Before(epoch) {
		return fmt.Errorf("it was taken at %s, before InfiniBand existed (%s): the clock of the machine that read it was not set. Drop it once; the next read writes a new one",
			stamp(at), epoch.Format(time.DateOnly))
	}
	if at.After(now) {
		return fmt.Errorf("it was taken at %s, after this read began (%s): a clock is ahead. Set the clocks right and drop it once; the next read writes a new one",
			stamp(at), stamp(now))
	}
	late := func(what string, t time.Time) error {
		if t.Before(epoch) || t.After(at) {
			return fmt.Errorf("%s at %s, outside the snapshot's own time (%s to %s): it was not written by a read of gpucluster_port_counters as it is. Drop it once; the next read writes a new one",
				what, stamp(t), epoch.Format(time.DateOnly), stamp(at))
		}
		return nil
	}
	for _, name := range sortedKeys(s.Ports) {
		if err := late("port "+name+" read", s.Ports[name].At); err != nil {
			return err
		}
	}
	for _, label := range sortedKeys(s.Links) {
		l := s.Links[label]
		if l.RatesAt != nil {
			if err := late("cable "+label+" rates read", *l.RatesAt); err != nil {
				return err
			}
		}
		if l.DownSince != nil {
			if err := late("cable "+label+" down", *l.DownSince); err != nil {
				return err
			}
		}
	}
	return nil
}

// Foreign says a snapshot belongs to another fabric: it records ports or cables, and not one of
// them is a cable or a cable end of this one. Judged against it, every cable would go without its
// history and no one would know (issue 32); a snapshot that shares some labels with this fabric is
// this fabric's, changed.
func (s *Snapshot) Foreign(cables []opensm.FabricCable) bool {
	if s == nil || len(cables) == 0 || len(s.Ports)+len(s.Links) == 0 {
		return false
	}
	for _, c := range cables {
		if _, ok := s.Links[c.Label]; ok {
			return false
		}
		for _, e := range []opensm.CablePort{c.A, c.B} {
			if _, ok := s.Ports[e.Name]; ok {
				return false
			}
		}
	}
	return true
}
