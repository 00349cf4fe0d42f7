package analysis

import (
	"sort"
	"strconv"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// topo is the view of the fabric that every algorithm here works on: the switches that have a
// link, numbered 0..n-1 in graph order, joined by their switch-to-switch links in compressed
// rows. HCAs are left out of the rows because they are never transit (an InfiniBand HCA does not
// forward), and self-loops (a cable between two ports of one switch, which the builder accepts)
// because they carry nothing anywhere and never cross a cut. Each endpoint, an HCA port with a
// link, hangs on the switch its link reaches.
type topo struct {
	g     *fabric.Graph
	dev   []int32 // local switch -> device index
	local []int32 // device index -> local switch, -1 when not a switch of topo

	start []int32   // switch s's entries are start[s]:start[s+1]
	nbr   []int32   // the switch at the far end
	cap   []float64 // the link's rate, Gb/s per direction
	lnk   []int32   // index into g.Links

	level []int32 // fabric level (links from the nearest HCA), -1 when no HCA reaches it

	eps    []endpoint
	epN    []int32   // endpoints hung on each switch
	epGbps []float64 // their summed port rates

	maxLevel int     // highest switch level, 0 when there is no reachable switch
	rate     float64 // the most common endpoint port rate (lowest on a tie)
	half     int     // endpoints on side A of a balanced cut: floor(N/2)
}

// endpoint is one HCA port with a link to a switch.
type endpoint struct {
	hca  int32   // device index of the HCA
	sw   int32   // local switch it is cabled to
	link int32   // index into g.Links
	gbps float64 // port rate, Gb/s per direction
}

func newTopo(g *fabric.Graph) *topo {
	t := &topo{g: g, local: make([]int32, len(g.Devices))}
	for d := range g.Devices {
		t.local[d] = -1
		if g.Devices[d].Kind == fabric.KindSwitch && g.AdjStart[d+1] > g.AdjStart[d] {
			t.local[d] = int32(len(t.dev))
			t.dev = append(t.dev, int32(d))
		}
	}
	n := len(t.dev)
	t.start = make([]int32, n+1)
	t.level = make([]int32, n)
	t.epN = make([]int32, n)
	t.epGbps = make([]float64, n)
	entries := 0
	for s, d := range t.dev {
		t.level[s] = int32(g.Devices[d].Level)
		if int(t.level[s]) > t.maxLevel {
			t.maxLevel = int(t.level[s])
		}
		for _, li := range g.LinksOf(d) {
			l := &g.Links[li]
			if o := l.Other(d); o != d && g.Devices[o].Kind == fabric.KindSwitch {
				entries++
			}
		}
		t.start[s+1] = int32(entries)
	}
	t.nbr = make([]int32, entries)
	t.cap = make([]float64, entries)
	t.lnk = make([]int32, entries)
	k := 0
	for _, d := range t.dev {
		for _, li := range g.LinksOf(d) {
			l := &g.Links[li]
			if o := l.Other(d); o != d && g.Devices[o].Kind == fabric.KindSwitch {
				t.nbr[k], t.cap[k], t.lnk[k] = t.local[o], l.RateGbps, li
				k++
			}
		}
	}
	// Endpoints in device order, then in the HCA's link order: deterministic.
	for d := range g.Devices {
		if g.Devices[d].Kind != fabric.KindHCA {
			continue
		}
		for _, li := range g.LinksOf(int32(d)) {
			l := &g.Links[li]
			o := l.Other(int32(d))
			if s := t.local[o]; s >= 0 {
				t.eps = append(t.eps, endpoint{hca: int32(d), sw: s, link: li, gbps: l.RateGbps})
				t.epN[s]++
				t.epGbps[s] += l.RateGbps
			}
		}
	}
	t.half = len(t.eps) / 2
	t.rate = commonRate(t.eps)
	return t
}

// commonRate is the most common endpoint rate, the lowest of the most common ones on a tie.
func commonRate(eps []endpoint) float64 {
	count := map[float64]int{}
	for _, e := range eps {
		count[e.gbps]++
	}
	best, bestN := 0.0, 0
	for r, c := range count {
		if c > bestN || (c == bestN && r < best) {
			best, bestN = r, c
		}
	}
	return best
}

func (t *topo) n() int { return len(t.dev) }

func (t *topo) name(s int32) string { return t.g.Devices[t.dev[s]].Name }

// epName names an endpoint: the HCA's name, with ":port" when the HCA has more than one port.
func (t *topo) epName(i int) string {
	e := t.eps[i]
	d := &t.g.Devices[e.hca]
	if d.Ports <= 1 {
		return d.Name
	}
	l := &t.g.Links[e.link]
	port := l.PortA
	if l.B == e.hca {
		port = l.PortB
	}
	return d.Name + ":" + strconv.Itoa(port)
}

// bfs fills dist with hop counts from src over switch-to-switch links (-1: unreachable) and
// returns the switches in the order reached, which is by non-decreasing distance. queue is
// reused when it has room.
func (t *topo) bfs(src int32, dist []int32, queue []int32) []int32 {
	for i := range dist {
		dist[i] = -1
	}
	queue = append(queue[:0], src)
	dist[src] = 0
	for head := 0; head < len(queue); head++ {
		x := queue[head]
		dx := dist[x] + 1
		for k := t.start[x]; k < t.start[x+1]; k++ {
			if y := t.nbr[k]; dist[y] < 0 {
				dist[y] = dx
				queue = append(queue, y)
			}
		}
	}
	return queue
}

// twinClasses groups the given switches by their multiset of switch neighbours. Twins (false
// twins in graph terms) are at the same distance from every other switch, which lets a
// breadth-first search from one of them stand for all. The classes come in the order of their
// first member, members in the order given; keep(s) false puts s in a class of its own.
func (t *topo) twinClasses(members []int32, keep func(int32) bool) [][]int32 {
	byKey := map[string]int{}
	var classes [][]int32
	var buf []int32
	var key []byte
	for _, s := range members {
		if keep != nil && !keep(s) {
			classes = append(classes, []int32{s})
			continue
		}
		buf = append(buf[:0], t.nbr[t.start[s]:t.start[s+1]]...)
		sort.Slice(buf, func(i, j int) bool { return buf[i] < buf[j] })
		key = key[:0]
		for _, y := range buf {
			key = strconv.AppendInt(key, int64(y), 36)
			key = append(key, ',')
		}
		if c, ok := byKey[string(key)]; ok && len(buf) > 0 {
			classes[c] = append(classes[c], s)
			continue
		}
		byKey[string(key)] = len(classes)
		classes = append(classes, []int32{s})
	}
	return classes
}
