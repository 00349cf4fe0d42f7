package opensm

// Where the designed cables are on the discovered fabric, so that perfquery can read both ends of
// each by LID and the reads can be joined into cables again (internal/counters judges them).

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// CablePort is one end of a cable as the discovered fabric shows it.
type CablePort struct {
	Name   string // the end's label: "leaf01:40", "gpu001/mlx5_0:1"
	Port   int
	Switch bool
	LID    int  // the device's LID (a switch's port 0, a CA port's own); 0: not found on the fabric
	GUID   GUID // the switch's node GUID or the CA port's GUID as discovered; 0: not found
}

// FabricCable is a cable with both ends located.
type FabricCable struct {
	Label    string // "leaf01:40 <-> spine01:8": the design's label, or one made from descriptions
	A, B     CablePort
	RateGbps float64 // the designed rate; for a discovered cable, its speed's (4xNDR: 400)
	Up       bool    // ibnetdiscover shows the two ends joined
}

// LocateCables places every link of a declared fabric on the discovered one: each end's LID, and
// whether the link is up. Devices are recognised as DriftWith recognises them: by declared GUID
// (switch node GUID; HCA port GUID, port p of an HCA being its GUID + p - 1), then by description
// (a switch's name, an HCA's "<host> <device>"). Cables come in graph link order, labelled as the
// design labels them ("<a.device>:<a.port> <-> <b.device>:<b.port>").
func LocateCables(g *fabric.Graph, disc *Discovered) []FabricCable {
	guids, _ := DeviceGUIDs(g)
	switchByGUID, hcaPortByGUID, byDesc := map[GUID]int32{}, map[GUID]devPort{}, map[string]int32{}
	for i := range g.Devices {
		d := &g.Devices[i]
		if d.Kind == fabric.KindSwitch {
			byDesc["S "+d.Name] = int32(i)
			if guids[i] != 0 {
				switchByGUID[guids[i]] = int32(i)
			}
			continue
		}
		byDesc["H "+HCADescription(g, int32(i))] = int32(i)
		if guids[i] != 0 {
			for p := 1; p <= d.Ports; p++ {
				hcaPortByGUID[guids[i]+GUID(p-1)] = devPort{int32(i), p}
			}
		}
	}
	// Every discovered port that is a declared device's: its LID and GUID.
	lid := map[devPort]int{}
	guid := map[devPort]GUID{}
	resolve := func(ref PortRef) (devPort, bool) {
		n := &disc.Nodes[ref.Node]
		if n.Kind == NodeSwitch {
			if d, ok := switchByGUID[n.GUID]; ok {
				return devPort{d, ref.Port}, true
			}
			d, ok := byDesc["S "+switchName(n.Desc)]
			return devPort{d, ref.Port}, ok
		}
		if dp, ok := hcaPortByGUID[disc.PortGUID(ref)]; ok {
			return dp, true
		}
		d, ok := byDesc["H "+n.Desc]
		return devPort{d, ref.Port}, ok
	}
	up := map[[2]devPort]bool{}
	for _, l := range disc.Links {
		a, okA := resolve(l.A)
		b, okB := resolve(l.B)
		for _, e := range []struct {
			dp  devPort
			ok  bool
			ref PortRef
		}{{a, okA, l.A}, {b, okB, l.B}} {
			if e.ok && disc.Nodes[e.ref.Node].LID > 0 {
				lid[e.dp] = disc.Nodes[e.ref.Node].LID
				guid[e.dp] = disc.PortGUID(e.ref)
			}
		}
		if okA && okB {
			up[[2]devPort{a, b}], up[[2]devPort{b, a}] = true, true
		}
	}
	// A switch answers on every port at its one LID, wherever its links go.
	switchLID, switchGUID := map[int32]int{}, map[int32]GUID{}
	for dp, l := range lid {
		if g.Devices[dp.dev].Kind == fabric.KindSwitch {
			switchLID[dp.dev], switchGUID[dp.dev] = l, guid[dp]
		}
	}
	port := func(d int32, p int) CablePort {
		dev := &g.Devices[d]
		c := CablePort{Name: fabric.End{Device: dev.Name, Port: p}.String(), Port: p, Switch: dev.Kind == fabric.KindSwitch,
			LID: lid[devPort{d, p}], GUID: guid[devPort{d, p}]}
		if c.Switch {
			c.LID, c.GUID = switchLID[d], switchGUID[d]
		}
		return c
	}
	out := make([]FabricCable, len(g.Links))
	for i, l := range g.Links {
		a, b := devPort{l.A, l.PortA}, devPort{l.B, l.PortB}
		label := fabric.CableLabel(fabric.End{Device: g.Devices[l.A].Name, Port: l.PortA}, fabric.End{Device: g.Devices[l.B].Name, Port: l.PortB})
		if g.Spec != nil && l.Cable >= 0 && l.Cable < len(g.Spec.Cables) {
			label = g.Spec.Cables[l.Cable].Label()
		}
		ca, cb := port(l.A, l.PortA), port(l.B, l.PortB)
		if g.Spec != nil && l.Cable >= 0 && l.Cable < len(g.Spec.Cables) && g.Spec.Cables[l.Cable].A.String() == cb.Name {
			ca, cb = cb, ca // keep the ends in the order of the label
		}
		out[i] = FabricCable{Label: label, A: ca, B: cb, RateGbps: l.RateGbps, Up: up[[2]devPort{a, b}]}
	}
	return out
}

// DiscoveredCables labels the links ibnetdiscover found, for reads without a declared fabric: a
// switch end by its name ("leaf01:40", from a managed switch's "MF0;leaf01:MQM9700/U1" too), an
// HCA end by its description as "<host>/<device>:<port>" ("gpu001 mlx5_0" port 1 is
// "gpu001/mlx5_0:1"), the HCA end first, then the lower name. Every one is up.
func DiscoveredCables(disc *Discovered) []FabricCable {
	name := func(ref PortRef) CablePort {
		n := &disc.Nodes[ref.Node]
		c := CablePort{Port: ref.Port, Switch: n.Kind == NodeSwitch, LID: n.LID, GUID: disc.PortGUID(ref)}
		if c.Switch {
			c.Name = switchName(n.Desc) + ":" + strconv.Itoa(ref.Port)
		} else {
			c.Name = strings.Replace(strings.TrimSpace(n.Desc), " ", "/", 1) + ":" + strconv.Itoa(ref.Port)
		}
		return c
	}
	out := make([]FabricCable, 0, len(disc.Links))
	for _, l := range disc.Links {
		a, b := name(l.A), name(l.B)
		if (a.Switch && !b.Switch) || (a.Switch == b.Switch && b.Name < a.Name) {
			a, b = b, a
		}
		rate := 0.0
		for _, r := range []float64{800, 400, 200, 100, 56, 40, 20, 10} {
			if LaneSpeed(r) == l.Speed {
				rate = r
			}
		}
		if w, err := strconv.Atoi(strings.TrimSuffix(l.Width, "x")); err == nil && rate > 0 {
			rate = rate * float64(w) / 4
		}
		out = append(out, FabricCable{Label: fabric.JoinEnds(a.Name, b.Name), A: a, B: b, RateGbps: rate, Up: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

// CableQueries are the perfquery runs that read both ends of the cables: one per switch LID
// (`perfquery -l LID 255`, keeping the cable ports), one per CA port (`perfquery LID PORT`). Ends
// without a LID are not on the fabric and are left out. The blocks of the output are matched to
// ends by LID and port (EndKey).
func CableQueries(cables []FabricCable, extended bool) []PerfQuery {
	switches := map[int]*PerfQuery{}
	var order []int
	var cas []PerfQuery
	seen := map[[2]int]bool{}
	for _, c := range cables {
		for _, e := range []CablePort{c.A, c.B} {
			if e.LID == 0 || seen[[2]int{e.LID, e.Port}] {
				continue
			}
			seen[[2]int{e.LID, e.Port}] = true
			if !e.Switch {
				cas = append(cas, PerfQuery{Name: e.Name, GUID: guidText(e.GUID), Args: append(perfFlags(extended), strconv.Itoa(e.LID), strconv.Itoa(e.Port))})
				continue
			}
			q := switches[e.LID]
			if q == nil {
				dev, _, _ := strings.Cut(e.Name, ":")
				q = &PerfQuery{Name: dev, GUID: guidText(e.GUID), Linked: map[int]bool{}, Args: append(perfFlags(extended), "-l", strconv.Itoa(e.LID), "255")}
				switches[e.LID] = q
				order = append(order, e.LID)
			}
			q.Linked[e.Port] = true
		}
	}
	out := make([]PerfQuery, 0, len(order)+len(cas))
	for _, l := range order {
		out = append(out, *switches[l])
	}
	return append(out, cas...)
}

func guidText(g GUID) string {
	if g == 0 {
		return ""
	}
	return g.String()
}

// EndKey is how a perfquery block is matched to a cable end: its LID and port.
func EndKey(lid, port int) [2]int { return [2]int{lid, port} }

// EndLIDs is each cable end's device LID by the end's label ("leaf01:40"), 0 for a device the
// fabric does not show: what a report of the reads says of the end, since the counters judged
// (counters.EndReport) carry labels, not LIDs. An end named twice keeps its last cable's LID.
func EndLIDs(cables []FabricCable) map[string]int {
	out := make(map[string]int, 2*len(cables))
	for _, c := range cables {
		out[c.A.Name], out[c.B.Name] = c.A.LID, c.B.LID
	}
	return out
}
