package opensm

import (
	"fmt"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// FileTorus2QoS is torus-2QoS's torus description (torus-2QoS.conf(5)), one of the files of every
// set. It holds a description only for a torus generated from a design, whose coordinates the
// generator knows (fabric.Spec.Torus); otherwise it is a comment, and opensm.conf does not name
// it. It is always written, like the GUID lists, so that changing the design or the engine
// never leaves a file behind on the host that the set no longer accounts for.
const FileTorus2QoS = "torus-2QoS.conf"

// defaultPortGroupMax is torus-2QoS's PORTGRP_MAX_PORTS (osm_torus.c): the most parallel links
// in one direction, and the most host ports plus the switch's own port 0, that it accepts
// without portgroup_max_ports.
const defaultPortGroupMax = 16

// TorusSeed is what torus-2QoS.conf says about a torus: its sides, one seed (a switch and its
// neighbours in the positive direction of every dimension, and also the negative one where the
// side is 4) and the port group size it needs. Sources: torus-2QoS.conf(5) and torus-2QoS(8),
// TORUS TOPOLOGY DISCOVERY; osm_torus.c parse_config, parse_size (a side of 2 is routed as a
// mesh of 2 with parallel links), verify_setup (ERR 4E22-4E2D: both directions for a radix-4
// torus dimension, from a common switch) and connect_tlink / build_torus (ERR 4E17/4E18/4E1D/
// 4E1E: port groups beyond portgroup_max_ports).
type TorusSeed struct {
	Dims [3]int
	// Origin is the seed switch; Plus[d] its neighbour one step up dimension d, Minus[d] one
	// step down, set only where torus-2QoS needs it (a side of 4). Names are for the comments.
	Origin           GUID
	Plus, Minus      [3]GUID
	OriginName       string
	PlusN, MinusN    [3]string
	OriginCoordinate [3]int
	// PortGroupMax is portgroup_max_ports, 0 when the default of 16 is enough.
	PortGroupMax int
}

// Text renders the torus description.
func (s *TorusSeed) Text() string {
	var b strings.Builder
	b.WriteString("# torus-2QoS torus description (torus-2QoS.conf(5)), named by torus_config in opensm.conf.\n")
	b.WriteString(generatedBy)
	fmt.Fprintf(&b, "torus %d %d %d\n", s.Dims[0], s.Dims[1], s.Dims[2])
	o := s.OriginCoordinate
	fmt.Fprintf(&b, "# seed: %s at (%d,%d,%d) and its neighbours; a side of 4 needs both directions\n", s.OriginName, o[0], o[1], o[2])
	for d := 0; d < 3; d++ {
		if s.Plus[d] != 0 {
			fmt.Fprintf(&b, "# %s -> %s\n%cp_link %s %s\n", s.OriginName, s.PlusN[d], "xyz"[d], s.Origin, s.Plus[d])
		}
		if s.Minus[d] != 0 {
			fmt.Fprintf(&b, "# %s -> %s\n%cm_link %s %s\n", s.OriginName, s.MinusN[d], "xyz"[d], s.Origin, s.Minus[d])
		}
	}
	if s.PortGroupMax > 0 {
		b.WriteString("# more than 16 host ports (plus port 0) or parallel links on a switch\n")
		fmt.Fprintf(&b, "portgroup_max_ports %d\n", s.PortGroupMax)
	}
	return b.String()
}

// noTorusText is the file when the fabric has no generated torus.
const noTorusText = "# torus-2QoS torus description (torus-2QoS.conf(5)).\n" + generatedBy +
	"# Empty: only a torus generated from a design has coordinates to describe; opensm.conf does not name this file.\n"

// TorusFromGraph derives the torus description of a generated torus from its layout and the
// graph as built (so a switch the user replaced, or a cable left out with absent_cables, is
// taken into account). The seed is the first switch, in coordinate order, whose seed links are
// all cabled: torus-2QoS cannot discover the torus from a seed link that is not there.
func TorusFromGraph(g *fabric.Graph, l *fabric.TorusLayout, guids []GUID) (*TorusSeed, Errors) {
	var errs Errors
	k := l.Dims
	n := k[0] * k[1] * k[2]
	if n <= 0 || len(l.Switches) != n {
		errs.add(settingLoc("torus_config"), "torus_config", fmt.Sprintf("torus layout of %d switches does not fill %dx%dx%d", len(l.Switches), k[0], k[1], k[2]))
		return nil, errs
	}
	dev := make([]int32, n)
	for i, name := range l.Switches {
		d, ok := g.Lookup(name)
		if !ok || g.Devices[d].Kind != fabric.KindSwitch {
			errs.add(settingLoc("torus_config"), "torus_config", fmt.Sprintf("switch %s of the generated torus is not a switch of the fabric", name))
			continue
		}
		if guids[d] == 0 {
			errs.add(deviceField(&g.Devices[d]), "torus_config", fmt.Sprintf("torus switch %s has no GUID; torus-2QoS.conf names its seed switches by node GUID", name))
		}
		dev[i] = d
	}
	if len(errs) > 0 {
		return nil, errs
	}
	// Switch-to-switch link counts by pair, and host ports by switch.
	pair := func(a, b int32) [2]int32 { return [2]int32{min(a, b), max(a, b)} }
	links := map[[2]int32]int{}
	hosts := map[int32]int{}
	for _, lk := range g.Links {
		ka, kb := g.Devices[lk.A].Kind, g.Devices[lk.B].Kind
		switch {
		case ka == fabric.KindSwitch && kb == fabric.KindSwitch:
			links[pair(lk.A, lk.B)]++
		case ka == fabric.KindSwitch:
			hosts[lk.A]++
		case kb == fabric.KindSwitch:
			hosts[lk.B]++
		}
	}
	at := func(x, y, z int) int32 {
		x, y, z = (x%k[0]+k[0])%k[0], (y%k[1]+k[1])%k[1], (z%k[2]+k[2])%k[2]
		return dev[x+k[0]*(y+k[1]*z)]
	}
	step := func(c [3]int, d, by int) [3]int { c[d] += by; return c }
	var seed *TorusSeed
	for i := 0; i < n && seed == nil; i++ {
		c := [3]int{i % k[0], (i / k[0]) % k[1], i / (k[0] * k[1])}
		o := at(c[0], c[1], c[2])
		s := &TorusSeed{Dims: k, Origin: guids[o], OriginName: g.Devices[o].Name, OriginCoordinate: c}
		ok := true
		for d := 0; d < 3 && ok; d++ {
			if k[d] < 2 {
				continue
			}
			p := step(c, d, 1)
			pd := at(p[0], p[1], p[2])
			ok = links[pair(o, pd)] > 0
			s.Plus[d], s.PlusN[d] = guids[pd], g.Devices[pd].Name
			if k[d] == 4 && ok {
				m := step(c, d, -1)
				md := at(m[0], m[1], m[2])
				ok = links[pair(o, md)] > 0
				s.Minus[d], s.MinusN[d] = guids[md], g.Devices[md].Name
			}
		}
		if ok {
			seed = s
		}
	}
	if seed == nil {
		errs.add(settingLoc("torus_config"), "torus_config", "no switch of the generated torus has all its seed links cabled (torus-2QoS.conf(5) needs a switch and its +x, +y, +z neighbours, and the -1 neighbour along a side of 4)")
		return nil, errs
	}
	most := 0
	for _, d := range dev {
		most = max(most, hosts[d]+1) // the switch's own port 0 joins the host port group
	}
	for _, c := range links {
		most = max(most, c)
	}
	if most > defaultPortGroupMax {
		seed.PortGroupMax = most
	}
	return seed, nil
}

// attachTorus gives the Config the torus description of a generated torus when its routing runs
// on torus-2QoS and the user gave no torus_config of their own. A default engine that cannot
// get a description (no seed is cabled) becomes dfsssp, as for a torus without one (EngineFor).
func attachTorus(g *fabric.Graph, guids []GUID, c *Config, engineGiven bool, errs *Errors) {
	if g.Spec == nil || g.Spec.Torus == nil || strings.TrimSpace(c.Options["torus_config"]) != "" {
		return
	}
	engines, _, _ := ParseEnginesFor(c.Flavor, c.RoutingEngine)
	if !hasEngine(engines, EngineTorus, "ar_torus") {
		return
	}
	seed, terrs := TorusFromGraph(g, g.Spec.Torus, guids)
	if terrs != nil {
		if !engineGiven {
			c.RoutingEngine = EngineDFSSSP
			return
		}
		*errs = append(*errs, terrs...)
		return
	}
	c.Torus = seed
}
