package topogen

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// torus3DKind is a 3D torus of switches, each hosting endpoints, built whole.
var torus3DKind = &Kind{
	Name:     KindTorus3D,
	Doc:      "wraparound in x, y and z",
	Args:     []*Arg{torusDimsArg, endpointsPerSwitchArg},
	Uses:     []string{"node_count"},
	Generate: buildWith((*gen).torus),
	Largest: largestWith(func(g *gen) string {
		k := g.largestCube(orInt(g.p.EndpointsPerSwitch, g.h))
		return fmt.Sprintf("torus_dims = [%d, %d, %d]", k, k, k)
	}),
	Normalize: func(d *Design, p *Params) {
		if p.EndpointsPerSwitch == 0 && len(d.SwitchList) > 0 {
			p.EndpointsPerSwitch = d.endpointsPerSwitch()
		}
	},
	SizeAttribute: func(p Params) string {
		if p.Nodes == 0 {
			return "torus_dims"
		}
		return "node_count"
	},
}

var (
	torusDimsArg = &Arg{Name: "torus_dims", Type: ArgInts3, Least: 2, dims: func(p *Params) *[3]int { return &p.TorusDims },
		Doc: "`torus-3d`: switches along x, y and z, each at least 2, e.g. `[4, 4, 4]`. The torus is built whole; changing its " +
			"dimensions re-cables the wraparound links."}
	endpointsPerSwitchArg = intArg("endpoints_per_switch", "`torus-3d`: HCA ports per switch (default: one node's compute HCAs); "+
		"six ports stay for the neighbours.", 1, "one node's compute HCAs", func(p *Params) *int { return &p.EndpointsPerSwitch })
)

// endpointsPerSwitch is the torus's HCA ports per switch: the most node links of one switch
// (a partial fill leaves later switches short, never the first).
func (d *Design) endpointsPerSwitch() int {
	if d.Params.EndpointsPerSwitch != 0 {
		return d.Params.EndpointsPerSwitch
	}
	first := d.SwitchList[0].Name
	n := 0
	for i, c := range d.CableList {
		if d.CableTiers[d.CableKeys[i]] == TierNodeLeaf && (c.A.Device == first || c.B.Device == first) {
			n++
		}
	}
	return n
}

// torus builds a k1 x k2 x k3 torus of switches with wraparound in every dimension, each switch
// hosting EndpointsPerSwitch HCA ports (a direct network: Dally & Towles, Principles and Practices of Interconnection
// Networks, Morgan Kaufmann 2004).
//
// Port plan: ports 1..E face endpoints; E+1/E+2 are +x/-x, E+3/E+4 +y/-y, E+5/E+6 +z/-z. The
// cable from a switch's + port to its neighbour's - port is keyed by the + end, so every switch
// owns its three + links. A side of 2 therefore gives a double link (the +x and -x neighbours are
// the same switch, and both cables exist): the port plan stays uniform, every switch uses all six
// torus ports, and the cut between the two halves of that dimension carries 2*k^2 links as the
// k-ary n-cube closed form says (2k^(n-1) links, Dally & Towles). A side of 1 would cable a switch to itself and is
// refused. The torus is built whole: growing nodes fills switches in order, but changing the
// dimensions re-cables the wraparound links.
func (g *gen) torus() *Error {
	p := g.p
	b := g.b
	r, h := g.r, g.h
	k := p.TorusDims
	for i, v := range k {
		if v < 2 {
			near := k
			for j := range near {
				if near[j] < 2 {
					near[j] = 2
				}
			}
			return refuse("torus_dims", fmt.Sprintf("torus_dims = [%d, %d, %d]", near[0], near[1], near[2]),
				"side %d of the torus is %d; every side needs at least 2 switches (a side of 1 cables a switch to itself)", i+1, v)
		}
	}
	e := orInt(p.EndpointsPerSwitch, h)
	if e < 1 || e > r-6 {
		return refuse("endpoints_per_switch", fmt.Sprintf("endpoints_per_switch = %d", max(1, min(e, r-6))),
			"a %d-port %s keeps 6 ports for its torus neighbours, leaving 1-%d for endpoints; asked %d", r, g.sw.Name, r-6, e)
	}
	// Each dimension is at most MaxObjects (checkArgs), so the product cannot overflow.
	nsw := k[0] * k[1] * k[2]
	if nsw > MaxObjects || torusObjects(nsw, nsw*e/h, h) > MaxObjects {
		c := g.largestCube(e)
		return refuse("torus_dims", fmt.Sprintf("torus_dims = [%d, %d, %d] (or any dims of at most %d switches at %d endpoints per switch)", c, c, c, largestTorusSwitches(e, h), e),
			"%s", budgetReason(fmt.Sprintf("a %dx%dx%d torus of %d switches with %d endpoints each", k[0], k[1], k[2], nsw, e), torusObjects(nsw, nsw*e/h, h)))
	}
	// Filling the torus (node_count 0) with whole nodes must reach every switch: with e < h a
	// node spreads over several switches, and when the switch count is not a multiple of that
	// spread the last switches would get no endpoint, transit-only routers that the summary would
	// not mention (5x5x5 at 1 endpoint per switch: 15 DGX take 120 of 125 ports, 5 switches
	// empty). A partial last switch (spare ports) is fine and noted.
	if fill := nsw * e / h * h; p.Nodes == 0 && nsw*e-fill >= e {
		return refuse("endpoints_per_switch", fmt.Sprintf("endpoints_per_switch = %d (one %s per switch), or torus_dims whose product is a multiple of %d", h, g.nm.Name, ceilDiv(h, e)),
			"a %dx%dx%d torus with %d endpoint(s) per switch has %d endpoint ports, which %d-HCA %s nodes do not fill: %d whole nodes take %d ports and %d switch(es) would stay without an endpoint",
			k[0], k[1], k[2], e, nsw*e, h, g.nm.Name, nsw*e/h, fill, (nsw*e-fill)/e)
	}
	capNodes := nsw * e / h
	nodes := p.Nodes
	switch {
	case nodes < 0:
		return refuse("node_count", "node_count = 0", "node_count cannot be negative")
	case nodes == 0:
		nodes = capNodes
	case nodes > capNodes:
		return refuse("node_count", fmt.Sprintf("node_count = %d, or a larger torus_dims or endpoints_per_switch", capNodes),
			"a %dx%dx%d torus with %d endpoints per switch holds %d nodes of %d HCAs; asked %d", k[0], k[1], k[2], e, capNodes, h, nodes)
	}
	if nodes < 1 {
		return refuse("endpoints_per_switch", fmt.Sprintf("endpoints_per_switch = %d", h), "the torus holds no whole node of %d HCAs", h)
	}
	b.des.Tiers = 1
	g.torusNames = true
	b.des.Summary.PlannedNodes = capNodes
	b.reserve(nsw, nodes, nodes*h, nodes*h+3*nsw)
	if spare := nsw*e - capNodes*h; spare > 0 && p.Nodes == 0 {
		b.note("%d endpoint port(s) of the last switch stay spare: %d switches x %d ports do not divide into %d-HCA nodes", spare, nsw, e, h)
	}
	if used := ceilDiv(nodes*h, e); used < nsw {
		b.note("%d of %d switches host no endpoint yet (node_count %d of %d); they forward torus traffic only", nsw-used, nsw, nodes, capNodes)
	}
	plane := k[0] * k[1]
	if err := g.setLayout(k[2], ceilDiv(plane*e, h), plane, 0, capNodes); err != nil {
		return err
	}
	cw := [3]int{digits(k[0] - 1), digits(k[1] - 1), digits(k[2] - 1)}
	planeW := width(k[2], 2)
	grp := func(z int) *groupSet { return b.group(name("plane", planeW, z+1), GroupPlane) }
	swName := func(i int) string {
		x, y, z := i%k[0], (i/k[0])%k[1], i/plane
		return fmt.Sprintf("%s%0*d-%0*d-%0*d", p.TorusPrefix, cw[0], x, cw[1], y, cw[2], z)
	}
	b.tiers(TierNodeLeaf, TierTorus)
	for z := 0; z < k[2]; z++ {
		grp(z)
	}
	for i := 0; i < nsw; i++ {
		z := i / plane
		gs := grp(z)
		rack, u := b.blockSwitch(gs, z, i%plane)
		b.addSwitch(gs, fabric.Switch{Name: swName(i), Model: g.sw.Name, Rack: rack, PositionU: u, Role: fabric.RoleLeaf, GUID: g.switchGUID(1, i+1)})
	}
	firstNode := func(z int) int { return ceilDiv(z*plane*e, h) }
	for n := 0; n < nodes; n++ {
		z := (n * h / e) / plane
		gs := grp(z)
		rack, u := b.nodeSlot(gs, z, n-firstNode(z))
		node := g.node(gs, n, rack, u)
		for i := 0; i < h; i++ {
			ep := n*h + i
			hca := g.hca(gs, node, n, i, -1)
			b.addCable(gs, TierNodeLeaf, g.cable(hca, 1, swName(ep/e), ep%e+1))
		}
	}
	for i := 0; i < nsw; i++ {
		x, y, z := i%k[0], (i/k[0])%k[1], i/plane
		gs := grp(z)
		next := [3]int{
			(x+1)%k[0] + k[0]*y + plane*z,
			x + k[0]*((y+1)%k[1]) + plane*z,
			x + k[0]*y + plane*((z+1)%k[2]),
		}
		for dim := 0; dim < 3; dim++ {
			b.addCable(gs, TierTorus, g.link(swName(i), e+1+2*dim, swName(next[dim]), e+2+2*dim))
		}
	}
	b.des.PortPlan = append(b.des.PortPlan,
		PortRange{Role: fabric.RoleLeaf, First: 1, Last: e, Faces: "nodes", Rule: fmt.Sprintf("node n (1-based) HCA i is endpoint q = (n-1)*%d+i, on switch q/%d (x fastest, then y, then z), port q mod %d + 1", h, e, e)},
		PortRange{Role: fabric.RoleLeaf, First: e + 1, Last: e + 6, Faces: "torus neighbours", Rule: "+x, -x, +y, -y, +z, -z in that order; the cable runs from a switch's + port to the next switch's - port, wrapping around"},
	)
	for i, v := range k {
		if v == 2 {
			b.note("side %d is 2: each switch has a double link to its neighbour along it (both +%c and -%c cables)", i+1, "xyz"[i], "xyz"[i])
		}
	}
	b.note("torus built whole for %dx%dx%d switches (%d nodes at most); changing torus_dims re-cables the wraparound links", k[0], k[1], k[2], capNodes)
	return nil
}

// largestTorusSwitches is the most switches a filled torus with e endpoints per switch may have.
func largestTorusSwitches(e, h int) int {
	n := MaxObjects / 4
	for n > 1 && torusObjects(n, n*e/h, h) > MaxObjects {
		n--
	}
	return n
}

// TorusLayout is where each switch of a generated torus-3d sits: its sides and the switch at
// every coordinate, in the order torus() adds them (x fastest, then y, then z). The OpenSM
// rendering derives torus-2QoS's torus description from it (torus-2QoS.conf(5): the sides and
// the seed links by switch GUID). nil for the other kinds, or when the design holds fewer
// switches than its sides promise.
func (d *Design) TorusLayout() *fabric.TorusLayout {
	if d.Kind != KindTorus3D {
		return nil
	}
	k := d.Params.TorusDims
	n := k[0] * k[1] * k[2]
	if n <= 0 || len(d.SwitchList) < n {
		return nil
	}
	l := &fabric.TorusLayout{Dims: k, Switches: make([]string, n)}
	for i := 0; i < n; i++ {
		l.Switches[i] = d.SwitchList[i].Name
	}
	return l
}
