package counters

import (
	"encoding/json"
	"fmt"
	"time"
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
