package analysis

// The route model's tables, readable by the tests that compare them with OpenSM's dumped LFTs
// (lft_test.go, lft_sim_test.go) and check they route every pair (effective_test.go). The
// planner reads the tables only through sample's inlined walk, so these stay out of the build.

// RouteEndpoint names an endpoint of Routes: an HCA port and the switch port it is cabled to.
type RouteEndpoint struct {
	HCA        string // device name
	Port       int
	Switch     string
	SwitchPort int
}

// Hop is one switch a path crosses and the port it leaves by.
type Hop struct {
	Switch string
	Port   int
}

// Endpoints lists the endpoints in the order Path indexes them.
func (rt *Routes) Endpoints() []RouteEndpoint {
	out := make([]RouteEndpoint, len(rt.n.eps))
	for i, e := range rt.n.eps {
		out[i] = RouteEndpoint{HCA: rt.n.g.Devices[e.hca].Name, Port: e.port, Switch: rt.n.swName(e.sw), SwitchPort: e.swPort}
	}
	return out
}

// OutPort is the port switch sw (a device name) forwards endpoint dst's LID to; ok is false
// when the switch has no route or is unknown.
func (rt *Routes) OutPort(sw string, dst int) (int, bool) {
	d, ok := rt.n.g.Lookup(sw)
	if !ok || rt.n.local[d] < 0 {
		return 0, false
	}
	p := rt.lft.get(rt.n.local[d], int32(dst))
	return int(p), p != noPort
}

// Path follows the forwarding tables from endpoint src to endpoint dst: the switches crossed
// and the ports they forward by. ok is false when a table has no entry or the path loops.
func (rt *Routes) Path(src, dst int) ([]Hop, bool) {
	var hops []Hop
	ok := rt.walk(int32(src), int32(dst), func(s int32, p uint8) {
		hops = append(hops, Hop{Switch: rt.n.swName(s), Port: int(p)})
	})
	return hops, ok
}

func (rt *Routes) walk(src, dst int32, visit func(s int32, p uint8)) bool {
	n := rt.n
	s := n.eps[src].sw
	for i := 0; i < maxPathHops; i++ {
		p := rt.lft.get(s, dst)
		if p == noPort || int(p) > n.nports[s] {
			return false
		}
		visit(s, p)
		pr := n.peer[s][p]
		switch {
		case pr.ep == dst:
			return true
		case pr.sw >= 0 && pr.sw != s:
			s = pr.sw
		default:
			return false
		}
	}
	return false
}

func (t lftTable) get(s, e int32) uint8 { return t.a[int(e)*t.nsw+int(s)] }

func (n *rnet) swName(s int32) string { return n.g.Devices[n.dev[s]].Name }
