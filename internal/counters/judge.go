package counters

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Verdict is what a cable's counters say.
type Verdict string

// Verdicts, as gpucluster_port_counters reports them.
const (
	OK      Verdict = "ok"
	Suspect Verdict = "suspect"
	Down    Verdict = "down"
	// Unread: up, nothing wrong seen, but not measured at both ends (an end that did not answer,
	// was read once with no earlier read to compare, or has no SymbolErrorCounter): no data is
	// not "ok" (issue 32).
	Unread Verdict = "unread"
	// Absent: designed, not shown by the fabric, and nothing says it was ever cabled (see
	// neverCabled): an absent node's cables, an uplink never plugged in. Not a failed cable.
	Absent Verdict = "absent"
)

// Limits say when a cable end is suspect.
type Limits struct {
	// MaxSymbolBER is the highest acceptable symbol error rate per bit (default 1e-14, NVIDIA's
	// NDR limit; the IBTA's requirement is 1e-12: see the package doc).
	MaxSymbolBER float64
	// MinSymbolErrors is the fewest symbol errors in a window that can make an end suspect
	// (default 3: NVIDIA's 12-minute threshold at 400 Gb/s is 2.88).
	MinSymbolErrors uint64
}

// DefaultLimits are NVIDIA's NDR limits (package doc).
func DefaultLimits() Limits { return Limits{MaxSymbolBER: 1e-14, MinSymbolErrors: 3} }

// End is one end of a cable as read: its two reads (First nil: a single read; Last nil: the end
// did not answer).
type End struct {
	Name        string // the end's label, "leaf01:40", "gpu001/mlx5_0:1"
	First, Last *Read
}

// Link is a cable with its ends' reads.
type Link struct {
	Label    string  // the cable's label, "leaf01:40 <-> spine01:8"
	A, B     End     // A is the lower-tier end
	RateGbps float64 // the link's rate, one direction (400 for NDR)
	Up       bool    // the fabric shows it (ibnetdiscover found both ends joined)
	SeenAt   time.Time
}

// EndReport is one end of a Report.
type EndReport struct {
	Name     string
	Answered bool              // the end's port answered the last read
	Counters map[string]uint64 // its last read
	Extended bool
	ReadAt   time.Time // when Counters were read
	Window   float64   // seconds the rates cover; 0 without rates
	Since    time.Time // start of the window: the first read, or the previous snapshot
	Rates    map[string]Rate
	// SymbolBER is symbol errors per bit over the window; nil without a window.
	SymbolBER *float64
	// DownedSincePrevious is how often the LinkDownedCounter rose since the previous snapshot
	// (or in the window without one); -1 when unknown.
	DownedSincePrevious int
}

// Report is the judgement of one cable.
type Report struct {
	Label    string
	A, B     EndReport
	RateGbps float64
	Up       bool
	Verdict  Verdict
	Reason   string
	// SymbolBER is the worse end's; nil without a window at either end.
	SymbolBER *float64
	// LastRates are the per-second rates of each answering end (end name, then counter) last
	// read while the cable was up, at LastRatesAt: this read's, or, for a cable down now, those
	// kept in the previous snapshot. Empty when never read up with a window.
	LastRates   map[string]map[string]float64
	LastRatesAt time.Time
	// DownSince is when a down cable was first read down (this read, or an earlier one).
	DownSince time.Time
}

// Judge gives a cable's verdict from its ends' reads, the previous snapshot (nil: none) and the
// limits (zero fields take DefaultLimits'). See the package doc for the rules.
func Judge(l Link, prev *Snapshot, lim Limits) Report {
	def := DefaultLimits()
	if lim.MaxSymbolBER <= 0 {
		lim.MaxSymbolBER = def.MaxSymbolBER
	}
	if lim.MinSymbolErrors == 0 {
		lim.MinSymbolErrors = def.MinSymbolErrors
	}
	r := Report{Label: l.Label, RateGbps: l.RateGbps, Up: l.Up,
		A: endReport(l.A, prev, l.RateGbps), B: endReport(l.B, prev, l.RateGbps)}
	for _, e := range []EndReport{r.A, r.B} {
		if e.SymbolBER != nil && (r.SymbolBER == nil || *e.SymbolBER > *r.SymbolBER) {
			v := *e.SymbolBER
			r.SymbolBER = &v
		}
	}
	var before *LinkRecord
	if prev != nil {
		if rec, ok := prev.Links[l.Label]; ok {
			before = &rec
		}
	}
	if !l.Up {
		if neverCabled(r, before) {
			judgeAbsent(&r)
			return r
		}
		judgeDown(&r, l, before, prev)
		return r
	}
	// Up: this read's rates are the last rates.
	for _, e := range []EndReport{r.A, r.B} {
		if e.Window > 0 {
			if r.LastRates == nil {
				r.LastRates = map[string]map[string]float64{}
			}
			m := map[string]float64{}
			for k, v := range e.Rates {
				m[k] = v.PerSecond
			}
			r.LastRates[e.Name] = m
			if e.ReadAt.After(r.LastRatesAt) {
				r.LastRatesAt = e.ReadAt
			}
		}
	}
	var why []string
	for _, e := range []EndReport{r.A, r.B} {
		sym, has := e.Rates[SymbolErrorCounter]
		switch {
		case !has:
		case sym.Saturated:
			why = append(why, fmt.Sprintf("%s: SymbolErrorCounter is at its maximum (%d) and no longer counts; clear the port's counters (perfquery -R) to measure it", e.Name, Max(SymbolErrorCounter, e.Extended)))
		case e.SymbolBER != nil && *e.SymbolBER > lim.MaxSymbolBER && sym.Delta >= lim.MinSymbolErrors:
			why = append(why, fmt.Sprintf("%s: %s, above %s", e.Name, symbolPhrase(e, l.RateGbps), ber(lim.MaxSymbolBER)))
		}
	}
	if r.A.DownedSincePrevious > 0 && r.B.DownedSincePrevious > 0 {
		why = append(why, fmt.Sprintf("the link went down %s (LinkDownedCounter +%d at %s, +%d at %s%s)",
			times(min(r.A.DownedSincePrevious, r.B.DownedSincePrevious)), r.A.DownedSincePrevious, r.A.Name,
			r.B.DownedSincePrevious, r.B.Name, sincePhrase(r.A)))
	}
	if len(why) > 0 {
		r.Verdict, r.Reason = Suspect, "suspect: "+strings.Join(why, "; ")
		return r
	}
	// ok is a measurement: a symbol error rate over a window at both ends (each end's receiver
	// counts one direction's errors, so one end read says nothing of the other direction).
	if !measured(r.A) || !measured(r.B) {
		r.Verdict, r.Reason = Unread, "unread: "+okPhrase(r, lim)
		return r
	}
	r.Verdict, r.Reason = OK, "ok: "+okPhrase(r, lim)
	return r
}

// measured says an end has what a verdict rests on: it answered, and its SymbolErrorCounter has
// a rate over a window (two reads, or a read and the previous snapshot's).
func measured(e EndReport) bool {
	_, has := e.Rates[SymbolErrorCounter]
	return e.Answered && e.Window > 0 && has
}

func endReport(e End, prev *Snapshot, rateGbps float64) EndReport {
	out := EndReport{Name: e.Name, DownedSincePrevious: -1}
	if e.Last == nil {
		return out
	}
	out.Answered, out.Counters, out.Extended, out.ReadAt = true, e.Last.Values, e.Last.Extended, e.Last.At
	first := e.First
	var before *Read
	if prev != nil {
		if p, ok := prev.Ports[e.Name]; ok && p.At.Before(e.Last.At) {
			before = &Read{At: p.At, Values: p.Values, Extended: p.Extended}
		}
	}
	if first == nil {
		first = before
	}
	if first != nil {
		out.Window, out.Rates = Rates(*first, *e.Last)
		out.Since = first.At
		if b, ok := SymbolBER(out.Rates, out.Window, rateGbps); ok {
			out.SymbolBER = &b
		}
	}
	// Went down since the previous snapshot (a flap between two plans), or in the window.
	switch {
	case before != nil:
		_, since := Rates(*before, *e.Last)
		if r, ok := since[LinkDownedCounter]; ok {
			out.DownedSincePrevious = int(r.Delta)
		}
	case out.Rates != nil:
		if r, ok := out.Rates[LinkDownedCounter]; ok {
			out.DownedSincePrevious = int(r.Delta)
		}
	}
	return out
}

// neverCabled says whether a cable the fabric does not show has no sign of ever having been
// cabled: no earlier read saw it up (no last rates, never judged ok or suspect), and every
// counter of each end that answers is zero. A port counts only while its link is up (IBA Vol. 1
// Rel. 1.3, 16.1.3.5: LinkDownedCounter counts the link going down from LinkUp, the others count
// traffic and errors on a trained link), so a port that was never linked reads all zero, while a
// cable that failed leaves at least its LinkDownedCounter behind, unless the counters were
// cleared since and no snapshot remembers it: then it reads absent, and the reason says that a
// cabled link in that state is down.
func neverCabled(r Report, before *LinkRecord) bool {
	if before != nil && (before.RatesAt != nil || before.Verdict == OK || before.Verdict == Suspect) {
		return false
	}
	for _, e := range []EndReport{r.A, r.B} {
		for _, v := range e.Counters {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// MarkAbsent applies absent_cables to reports judged on the whole design (its links not cabled
// yet included, so that they are reported too): a listed cable the fabric does not show is
// absent, whatever its counters say; one it shows up is judged as any cable, and its reason says
// to take it off the list. labels holds the listed cables' full labels.
func MarkAbsent(reports []Report, labels map[string]bool) {
	for i := range reports {
		r := &reports[i]
		if !labels[r.Label] {
			continue
		}
		if r.Up {
			r.Reason += "; it is in absent_cables but cabled and up: take it off absent_cables"
			continue
		}
		*r = Report{Label: r.Label, A: r.A, B: r.B, RateGbps: r.RateGbps, SymbolBER: r.SymbolBER, Verdict: Absent,
			Reason: "absent: in absent_cables (not cabled yet), and the fabric does not show it"}
	}
}

// judgeAbsent gives the verdict of a designed cable that was never cabled.
func judgeAbsent(r *Report) {
	r.Verdict = Absent
	var b strings.Builder
	b.WriteString("absent: the fabric does not show this cable and nothing says it was ever cabled")
	for _, e := range []EndReport{r.A, r.B} {
		if !e.Answered {
			fmt.Fprintf(&b, "; %s is not on the fabric", e.Name)
		} else {
			fmt.Fprintf(&b, "; %s answers with every counter at 0", e.Name)
		}
	}
	b.WriteString(" (never read up). Not cabled yet: record it in absent_cables, not failed_cables; if it is cabled, the link never came up: treat it as down")
	r.Reason = b.String()
}

func judgeDown(r *Report, l Link, before *LinkRecord, prev *Snapshot) {
	r.Verdict = Down
	r.DownSince = l.SeenAt
	if before != nil {
		if before.DownSince != nil && before.DownSince.Before(r.DownSince) {
			r.DownSince = *before.DownSince
		}
		if before.RatesAt != nil {
			r.LastRates, r.LastRatesAt = before.Rates, *before.RatesAt
		}
	}
	var b strings.Builder
	b.WriteString("down: the fabric does not show this cable")
	if !r.DownSince.IsZero() && r.DownSince.Before(l.SeenAt) {
		fmt.Fprintf(&b, " (down since %s at the latest)", stamp(r.DownSince))
	}
	answered := 0
	for _, e := range []EndReport{r.A, r.B} {
		if !e.Answered {
			fmt.Fprintf(&b, "; %s does not answer", e.Name)
			continue
		}
		answered++
		if v, ok := e.Counters[LinkDownedCounter]; ok {
			fmt.Fprintf(&b, "; %s LinkDownedCounter %d", e.Name, v)
			if e.DownedSincePrevious >= 0 && prev != nil {
				fmt.Fprintf(&b, " (+%d since %s)", e.DownedSincePrevious, stamp(prev.At))
			}
		}
		if v, ok := e.Counters[SymbolErrorCounter]; ok {
			fmt.Fprintf(&b, ", SymbolErrorCounter %d", v)
		}
	}
	if answered == 0 {
		b.WriteString(" (neither end answers: the devices themselves may be down)")
	}
	if len(r.LastRates) > 0 {
		fmt.Fprintf(&b, "; last read up at %s: %s", stamp(r.LastRatesAt), lastRatesPhrase(r.LastRates, before))
	} else {
		b.WriteString("; no rates were read while it was up (give previous to keep them)")
	}
	r.Reason = b.String()
}

// symbolPhrase is "1400 symbol errors in 2 s (700/s), BER 8.75e-10 at 400 Gb/s".
func symbolPhrase(e EndReport, rateGbps float64) string {
	sym := e.Rates[SymbolErrorCounter]
	s := fmt.Sprintf("%s in %s (%s/s)", plural(sym.Delta, "symbol error", "symbol errors"), secs(e.Window), num(sym.PerSecond))
	if e.SymbolBER != nil {
		s += fmt.Sprintf(", BER %s at %s Gb/s", ber(*e.SymbolBER), num(rateGbps))
	}
	if sym.Reset {
		s += " (its counters were cleared in the window: counted from zero)"
	}
	return s
}

func okPhrase(r Report, lim Limits) string {
	var parts []string
	for _, e := range []EndReport{r.A, r.B} {
		sym, has := e.Rates[SymbolErrorCounter]
		switch {
		case !e.Answered:
			parts = append(parts, e.Name+" does not answer")
		case e.Window <= 0:
			parts = append(parts, e.Name+" read once (no rate: set sample_seconds or previous)")
		case !has:
			parts = append(parts, e.Name+" has no SymbolErrorCounter (PortCountersExtended lacks it)")
		case sym.Delta == 0:
			parts = append(parts, fmt.Sprintf("%s no symbol error in %s", e.Name, secs(e.Window)))
		default:
			parts = append(parts, fmt.Sprintf("%s %s, within %s (or fewer than %d)", e.Name, symbolPhrase(e, r.RateGbps), ber(lim.MaxSymbolBER), lim.MinSymbolErrors))
		}
	}
	return strings.Join(parts, "; ")
}

func lastRatesPhrase(rates map[string]map[string]float64, before *LinkRecord) string {
	var parts []string
	for _, end := range sortedKeys(rates) {
		m := rates[end]
		p := fmt.Sprintf("%s %s symbol errors/s", end, num(m[SymbolErrorCounter]))
		if v := m[LinkDownedCounter]; v > 0 {
			p += fmt.Sprintf(", %s link downs/s", num(v))
		}
		parts = append(parts, p)
	}
	s := strings.Join(parts, "; ")
	if before != nil && before.SymbolBER != nil {
		s += fmt.Sprintf(" (BER %s)", ber(*before.SymbolBER))
	}
	if before != nil && before.Verdict != "" {
		s += ", judged " + string(before.Verdict)
	}
	return s
}

func sincePhrase(e EndReport) string {
	if e.Since.IsZero() {
		return ""
	}
	return " since " + stamp(e.Since)
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

func plural(n uint64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// num prints a rate: whole numbers as they are, others to 4 significant digits.
func num(x float64) string {
	if x == float64(int64(x)) {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

// ber prints a bit error rate: "1.75e-09".
func ber(x float64) string {
	if x == 0 {
		return "0"
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// secs prints a window to the millisecond: "2.003 s".
func secs(s float64) string {
	return strconv.FormatFloat(math.Round(s*1000)/1000, 'f', -1, 64) + " s"
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
