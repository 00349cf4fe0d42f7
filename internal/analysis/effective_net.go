package analysis

import (
	"fmt"
	"math/bits"
	"sort"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// noPort marks "no route" in a forwarding table, as OpenSM's OSM_NO_PATH (0xff) does.
const noPort = 0xff

// lftTable holds every switch's forwarding entry for every endpoint, stored by destination:
// the entries of all switches towards one endpoint are contiguous, so following the paths to
// one destination stays in one cache line or two.
type lftTable struct {
	nsw int
	a   []uint8
}

func newLFTTable(nsw, neps int) lftTable {
	t := lftTable{nsw: nsw, a: make([]uint8, nsw*neps)}
	for i := range t.a {
		t.a[i] = noPort
	}
	return t
}

func (t lftTable) set(s, e int32, p uint8) { t.a[int(e)*t.nsw+int(s)] = p }

// rnet is the fabric as a subnet manager sees it: switches with numbered ports, each port
// cabled to another switch's port or to an HCA port (an endpoint, one LID each with LMC 0).
// Switches are numbered 0..n-1 in graph order; only switches with a link are present.
type rnet struct {
	g     *fabric.Graph
	dev   []int32  // switch -> device index
	local []int32  // device index -> switch, -1 for HCAs and unlinked switches
	guid  []uint64 // switch node GUID
	// order is the switches in OpenSM's sw_guid_tbl order: a cl_qmap keyed by the node GUID in
	// network byte order, which on a little-endian host iterates by the byte-reversed GUID.
	order []int32

	nports []int     // per switch: physical ports (radix); ports are 1..nports
	peer   [][]rpeer // per switch, indexed by port number (entry 0 unused)
	base   []int32   // channel index of (switch s, port 0): channels base[s]+p

	eps []rendpoint
	// epOf maps an HCA device's port to its endpoint: key device<<8 | port.
	epOf map[int64]int32

	channels int // switch out-ports plus one injection channel per endpoint
	// Per channel base[s]+p: the switch and the endpoint behind it (-1 when none), flat for the
	// pattern walks.
	chanSw, chanEp []int32
}

// rpeer is what a switch port is cabled to. sw >= 0: another switch (port rport); ep >= 0: an
// endpoint; both -1: nothing.
type rpeer struct {
	sw, ep int32
	rport  int
	gbps   float64
}

// rendpoint is one HCA port with a link to a switch.
type rendpoint struct {
	hca    int32 // device index
	port   int   // HCA port number
	sw     int32 // switch it is cabled to
	swPort int   // the switch's port number
	gbps   float64
}

// netKey is the byte-reversed GUID: the order of OpenSM's GUID-keyed maps on x86.
func netKey(guid uint64) uint64 { return bits.ReverseBytes64(guid) }

func newRnet(g *fabric.Graph, guids []uint64) (*rnet, error) {
	n := &rnet{g: g, local: make([]int32, len(g.Devices)), epOf: map[int64]int32{}}
	for d := range g.Devices {
		n.local[d] = -1
		dev := &g.Devices[d]
		if dev.Kind == fabric.KindSwitch && g.AdjStart[d+1] > g.AdjStart[d] {
			n.local[d] = int32(len(n.dev))
			n.dev = append(n.dev, int32(d))
		}
	}
	n.guid = make([]uint64, len(n.dev))
	n.nports = make([]int, len(n.dev))
	n.peer = make([][]rpeer, len(n.dev))
	seen := map[uint64]int32{}
	for s, d := range n.dev {
		if int(d) < len(guids) {
			n.guid[s] = guids[d]
		}
		if n.guid[s] == 0 {
			return nil, fmt.Errorf("switch %s has no GUID: the routing engines order switches by GUID", g.Devices[d].Name)
		}
		if o, dup := seen[n.guid[s]]; dup {
			return nil, fmt.Errorf("switches %s and %s share GUID %#x", g.Devices[n.dev[o]].Name, g.Devices[d].Name, n.guid[s])
		}
		seen[n.guid[s]] = int32(s)
		np := g.Devices[d].Ports
		for _, li := range g.LinksOf(d) {
			l := &g.Links[li]
			if l.A == d && l.PortA > np {
				np = l.PortA
			}
			if l.B == d && l.PortB > np {
				np = l.PortB
			}
		}
		if np > 254 {
			return nil, fmt.Errorf("switch %s has %d ports; an InfiniBand switch has at most 254", g.Devices[d].Name, np)
		}
		n.nports[s] = np
		n.peer[s] = make([]rpeer, np+1)
		for p := range n.peer[s] {
			n.peer[s][p] = rpeer{sw: -1, ep: -1}
		}
	}
	// Endpoints in device order, then port order: HCA ports with a link to a switch.
	for d := range g.Devices {
		if g.Devices[d].Kind != fabric.KindHCA {
			continue
		}
		for _, li := range g.LinksOf(int32(d)) {
			l := &g.Links[li]
			hp, o, op := l.PortA, l.B, l.PortB
			if l.B == int32(d) {
				hp, o, op = l.PortB, l.A, l.PortA
			}
			s := n.local[o]
			if s < 0 {
				continue // HCA to HCA: no switch forwards it
			}
			e := int32(len(n.eps))
			n.eps = append(n.eps, rendpoint{hca: int32(d), port: hp, sw: s, swPort: op, gbps: l.RateGbps})
			n.epOf[int64(d)<<8|int64(hp)] = e
			n.peer[s][op] = rpeer{sw: -1, ep: e, gbps: l.RateGbps}
		}
	}
	for s, d := range n.dev {
		for _, li := range g.LinksOf(d) {
			l := &g.Links[li]
			if l.A == l.B {
				// A cable between two ports of one switch: OpenSM sees the ports linked to
				// their own node and routes nothing through them.
				n.peer[s][l.PortA] = rpeer{sw: int32(s), ep: -1, rport: l.PortB, gbps: l.RateGbps}
				n.peer[s][l.PortB] = rpeer{sw: int32(s), ep: -1, rport: l.PortA, gbps: l.RateGbps}
				continue
			}
			p, o, op := l.PortA, l.B, l.PortB
			if l.B == d {
				p, o, op = l.PortB, l.A, l.PortA
			}
			if r := n.local[o]; r >= 0 {
				n.peer[s][p] = rpeer{sw: r, ep: -1, rport: op, gbps: l.RateGbps}
			}
		}
	}
	n.order = make([]int32, len(n.dev))
	for i := range n.order {
		n.order[i] = int32(i)
	}
	sortInt32(n.order, func(a, b int32) bool { return netKey(n.guid[a]) < netKey(n.guid[b]) })
	n.base = make([]int32, len(n.dev))
	c := 0
	for s := range n.dev {
		n.base[s] = int32(c)
		c += n.nports[s] + 1
	}
	n.channels = c + len(n.eps)
	n.chanSw = make([]int32, c)
	n.chanEp = make([]int32, c)
	for s := range n.dev {
		for p := 0; p <= n.nports[s]; p++ {
			pr := n.peer[s][p]
			sw := pr.sw
			if sw == int32(s) || p == 0 {
				sw = -1
			}
			n.chanSw[int(n.base[s])+p], n.chanEp[int(n.base[s])+p] = sw, pr.ep
		}
	}
	return n, nil
}

// toSwitch returns the switch that port p of switch s leads to, and whether it is another switch.
func (n *rnet) toSwitch(s int32, p int) (int32, bool) {
	pr := n.peer[s][p]
	return pr.sw, pr.sw >= 0 && pr.sw != s
}

// sortInt32 sorts stably, like glibc's qsort (a merge sort whenever the array fits in memory),
// which OpenSM's comparators rely on for ties.
func sortInt32(a []int32, less func(a, b int32) bool) {
	sort.SliceStable(a, func(i, j int) bool { return less(a[i], a[j]) })
}
