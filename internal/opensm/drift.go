package opensm

import (
	"fmt"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// End is a port in a drift report: a declared device and port, or a port of a device that is
// not declared (Device "").
type End struct {
	Device string // declared device name; "" when no declared device has this port
	Port   int
	GUID   GUID   // as discovered: switch node GUID or CA port GUID; 0 when not discovered
	Desc   string // NodeDescription as discovered
}

func (e End) String() string {
	if e.Device != "" {
		return fmt.Sprintf("%s[%d]", e.Device, e.Port)
	}
	return fmt.Sprintf("undeclared %q (%s)[%d]", e.Desc, e.GUID, e.Port)
}

// LinkDrift is a link in a drift report. Want and Got are set for degraded links ("4xNDR").
type LinkDrift struct {
	A, B      End
	Want, Got string
}

func (l LinkDrift) String() string {
	s := fabric.JoinEnds(l.A.String(), l.B.String())
	if l.Want != "" {
		s += fmt.Sprintf(" runs at %s, declared %s", l.Got, l.Want)
	}
	return s
}

// Miswire is a declared cable whose ends are cabled elsewhere: ActualA is where A's port really
// goes (nil: nowhere), ActualB likewise.
type Miswire struct {
	A, B             End
	ActualA, ActualB *End
}

func (m Miswire) String() string {
	where := func(e *End) string {
		if e == nil {
			return "nothing"
		}
		return e.String()
	}
	return fmt.Sprintf("declared %s <-> %s, but %s goes to %s and %s goes to %s", m.A, m.B, m.A, where(m.ActualA), m.B, where(m.ActualB))
}

// GUIDDrift is a discovered node whose GUID is not declared. With Device set it was recognised
// by its description as that declared device, whose declared GUID differs: a replaced HCA or
// switch. With Device "" nothing declared matches it.
type GUIDDrift struct {
	Device   string
	Declared GUID
	Found    GUID
	Desc     string
}

func (g GUIDDrift) String() string {
	if g.Device != "" {
		return fmt.Sprintf("%s is declared with GUID %s but the fabric shows %s (%q): replaced hardware? update the declared GUID", g.Device, g.Declared, g.Found, g.Desc)
	}
	return fmt.Sprintf("unknown GUID %s (%q) is on the fabric", g.Found, g.Desc)
}

// Report is the difference between the declared and the discovered fabric.
type Report struct {
	Missing        []LinkDrift // declared, and neither end is cabled anywhere
	Miswired       []Miswire   // declared, and at least one end is cabled to another port
	Unexpected     []LinkDrift // discovered between ports that carry no declared cable
	Degraded       []LinkDrift // as declared, but at another speed or width
	UnknownGUIDs   []GUIDDrift
	MissingDevices []string // declared devices with cables that were not found at all
}

// Clean reports whether the fabric is exactly as declared.
func (r Report) Clean() bool {
	return len(r.Missing)+len(r.Miswired)+len(r.Unexpected)+len(r.Degraded)+len(r.UnknownGUIDs)+len(r.MissingDevices) == 0
}

// AddCounts adds each category's size to counts, by the names the discovered fabric reports them
// under.
func (r Report) AddCounts(counts map[string]int) {
	counts["missing"], counts["miswired"], counts["unexpected"] = len(r.Missing), len(r.Miswired), len(r.Unexpected)
	counts["degraded"], counts["unknown_guids"], counts["missing_devices"] = len(r.Degraded), len(r.UnknownGUIDs), len(r.MissingDevices)
}

// Lines renders the report, one finding per line, in a stable order.
func (r Report) Lines() []string {
	var out []string
	for _, d := range r.MissingDevices {
		out = append(out, "missing device: "+d)
	}
	for _, l := range r.Missing {
		out = append(out, "missing link: "+l.String())
	}
	for _, m := range r.Miswired {
		out = append(out, "miswired: "+m.String())
	}
	for _, l := range r.Unexpected {
		out = append(out, "unexpected link: "+l.String())
	}
	for _, l := range r.Degraded {
		out = append(out, "degraded link: "+l.String())
	}
	for _, g := range r.UnknownGUIDs {
		out = append(out, "guid: "+g.String())
	}
	return out
}

// DriftOptions tune the comparison.
type DriftOptions struct {
	// Simulated expects the speeds ibsim shows for the expected topology (SimSpeed: 4xHDR
	// for NDR links) instead of the real ones.
	Simulated bool
}

type devPort struct {
	dev  int32
	port int
}

// DriftWith compares a declared fabric with a discovered one. Discovered ports are matched to
// declared devices by GUID (switch node GUIDs, HCA port GUIDs; port p of an HCA has the declared
// GUID + p - 1), then by description (a switch's name, an HCA's "<host> <device>") for devices
// declared without a GUID or replaced since.
func DriftWith(declared *fabric.Graph, discovered *Discovered, o DriftOptions) Report {
	g, t := declared, discovered
	var r Report
	guids, _ := DeviceGUIDs(g)
	switchByGUID, hcaPortByGUID := map[GUID]int32{}, map[GUID]devPort{}
	byDesc := map[string]int32{}
	for i := range g.Devices {
		d := &g.Devices[i]
		if d.Kind == fabric.KindSwitch {
			byDesc[d.Name] = int32(i)
			if guids[i] != 0 {
				switchByGUID[guids[i]] = int32(i)
			}
			continue
		}
		byDesc[HCADescription(g, int32(i))] = int32(i)
		if guids[i] != 0 {
			for p := 1; p <= d.Ports; p++ {
				hcaPortByGUID[guids[i]+GUID(p-1)] = devPort{int32(i), p}
			}
		}
	}
	found := make([]bool, len(g.Devices))
	reported := map[GUID]bool{}
	// resolve maps a discovered port to a declared device port (dev -1: none).
	resolve := func(ref PortRef) (devPort, End) {
		n := &t.Nodes[ref.Node]
		e := End{Port: ref.Port, GUID: t.PortGUID(ref), Desc: n.Desc}
		dp := devPort{-1, ref.Port}
		if n.Kind == NodeSwitch {
			if d, ok := switchByGUID[n.GUID]; ok {
				dp.dev = d
			} else if d, ok := byDesc[switchName(n.Desc)]; ok && g.Devices[d].Kind == fabric.KindSwitch {
				dp.dev = d
				if guids[d] != 0 && !reported[n.GUID] {
					r.UnknownGUIDs = append(r.UnknownGUIDs, GUIDDrift{Device: g.Devices[d].Name, Declared: guids[d], Found: n.GUID, Desc: n.Desc})
				}
			}
		} else {
			pg := e.GUID
			if hp, ok := hcaPortByGUID[pg]; ok {
				dp = hp
			} else if d, ok := byDesc[n.Desc]; ok && g.Devices[d].Kind == fabric.KindHCA {
				dp.dev = d
				if guids[d] != 0 && !reported[pg] {
					r.UnknownGUIDs = append(r.UnknownGUIDs, GUIDDrift{Device: g.Devices[d].Name, Declared: guids[d] + GUID(ref.Port-1), Found: pg, Desc: n.Desc})
				}
			}
		}
		if dp.dev < 0 && !reported[e.GUID] {
			r.UnknownGUIDs = append(r.UnknownGUIDs, GUIDDrift{Found: e.GUID, Desc: n.Desc})
		}
		reported[e.GUID] = true
		if n.Kind == NodeSwitch {
			reported[n.GUID] = true
		}
		if dp.dev >= 0 {
			found[dp.dev] = true
			e.Device = g.Devices[dp.dev].Name
		}
		return dp, e
	}
	// Declared link by port.
	declByPort := map[devPort]int{}
	for li, l := range g.Links {
		declByPort[devPort{l.A, l.PortA}] = li
		declByPort[devPort{l.B, l.PortB}] = li
	}
	actual := map[devPort]End{} // declared port -> where the discovered cable goes
	matched := make([]bool, len(g.Links))
	for _, dl := range t.Links {
		pa, ea := resolve(dl.A)
		pb, eb := resolve(dl.B)
		if pa.dev >= 0 {
			actual[pa] = eb
		}
		if pb.dev >= 0 {
			actual[pb] = ea
		}
		la, okA := declByPort[pa]
		lb, okB := declByPort[pb]
		if pa.dev >= 0 && pb.dev >= 0 && okA && okB && la == lb {
			matched[la] = true
			l := &g.Links[la]
			want := "4x" + LaneSpeed(l.RateGbps)
			if o.Simulated {
				want = "4x" + SimSpeed(LaneSpeed(l.RateGbps))
			}
			if got := dl.Width + dl.Speed; dl.Speed != "" && LaneSpeed(l.RateGbps) != "" && got != want {
				r.Degraded = append(r.Degraded, LinkDrift{A: ea, B: eb, Want: want, Got: got})
			}
			continue
		}
		if declaredA, declaredB := pa.dev >= 0 && okA, pb.dev >= 0 && okB; !declaredA && !declaredB {
			r.Unexpected = append(r.Unexpected, LinkDrift{A: ea, B: eb})
		}
	}
	for li, l := range g.Links {
		if matched[li] {
			continue
		}
		a := End{Device: g.Devices[l.A].Name, Port: l.PortA}
		b := End{Device: g.Devices[l.B].Name, Port: l.PortB}
		xa, okA := actual[devPort{l.A, l.PortA}]
		xb, okB := actual[devPort{l.B, l.PortB}]
		if !okA && !okB {
			r.Missing = append(r.Missing, LinkDrift{A: a, B: b})
			continue
		}
		m := Miswire{A: a, B: b}
		if okA {
			m.ActualA = &xa
		}
		if okB {
			m.ActualB = &xb
		}
		r.Miswired = append(r.Miswired, m)
	}
	for i := range g.Devices {
		if !found[i] && g.AdjStart[i+1] > g.AdjStart[i] {
			r.MissingDevices = append(r.MissingDevices, g.Devices[i].Name)
		}
	}
	return r
}

// switchName extracts the switch name from a NodeDescription: managed NVIDIA switches describe
// themselves as "MF0;<hostname>:<model>/U1"; the simulator and unmanaged switches as the name.
func switchName(desc string) string {
	if strings.HasPrefix(desc, "MF0;") {
		s := strings.TrimPrefix(desc, "MF0;")
		if i := strings.IndexByte(s, ':'); i >= 0 {
			s = s[:i]
		}
		return s
	}
	return desc
}
