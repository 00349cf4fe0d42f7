package opensm

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/partition"
)

// GraphOptions are the subnet-manager settings the user gives beside the fabric graph.
type GraphOptions struct {
	// RoutingEngine overrides the engine chosen from the topology (DefaultEngine).
	RoutingEngine string
	LMC           int
	Options       map[string]string
	// Roots overrides the root switches (GUID strings as the user wrote them); they must be
	// the whole top tier of the fabric for ftree.
	Roots             []string
	DefaultMembership string
	Paths             Paths
	Flavor            Flavor // the subnet manager build: engines and options are checked against it
}

// Topology kinds as FromGraph tells them apart.
const (
	TopoFatTree   = "fat-tree"   // HCAs at the bottom, every link one level up: ftree
	TopoDragonfly = "dragonfly+" // switches declare groups: updn
	TopoTorus     = "torus"      // every switch is a leaf and the switches' links close cycles: torus-2QoS
	TopoOther     = "other"      // anything else (one switch, leaves cabled back to back, a chain): minhop
)

// Classify tells the topology from the graph. Rail-optimized fabrics are fat trees (rails are
// leaves, every link goes one level up), so they classify as TopoFatTree. Switches that all hold
// HCAs and link sideways are a torus (or mesh) only when those links close a cycle: two leaves
// cabled back to back, or a chain of leaves, is a tree of switches, where the only path between
// two switches is the shortest one.
func Classify(g *fabric.Graph) string {
	maxLevel, lateral, switches := 0, 0, 0
	for i := 0; i < g.NumSwitches(); i++ {
		d := &g.Devices[i]
		if d.Kind != fabric.KindSwitch || d.Level < 1 {
			continue
		}
		switches++
		if d.Group != "" {
			return TopoDragonfly
		}
		if d.Level > maxLevel {
			maxLevel = d.Level
		}
	}
	for _, l := range g.Links {
		a, b := &g.Devices[l.A], &g.Devices[l.B]
		if a.Kind == fabric.KindSwitch && b.Kind == fabric.KindSwitch && a.Level == b.Level {
			lateral++
		}
	}
	switch {
	case switches == 0:
		return TopoOther
	case maxLevel == 1 && lateral > 0 && switchCycle(g):
		return TopoTorus
	case lateral == 0 && maxLevel >= 2:
		return TopoFatTree
	}
	return TopoOther
}

// switchCycle tells whether the switch-to-switch links, parallel links counted once, close a
// cycle: a forest of n switches in c pieces has exactly n-c distinct switch pairs, and any more
// close a cycle (union-find over the pairs).
func switchCycle(g *fabric.Graph) bool {
	uf := fabric.NewUnionFind(g.NumSwitches())
	seen := map[[2]int32]bool{}
	for _, l := range g.Links {
		if g.Devices[l.A].Kind != fabric.KindSwitch || g.Devices[l.B].Kind != fabric.KindSwitch {
			continue
		}
		pair := [2]int32{min(l.A, l.B), max(l.A, l.B)}
		if seen[pair] {
			continue // a parallel link adds bandwidth, not a cycle of switches
		}
		seen[pair] = true
		if !uf.Union(l.A, l.B) {
			return true
		}
	}
	return false
}

// Routing engines the provider picks (opensm(8), ROUTING).
const (
	EngineFtree  = "ftree"
	EngineUpdn   = "updn"
	EngineTorus  = "torus-2QoS"
	EngineDFSSSP = "dfsssp"
	EngineMinhop = "minhop"
)

// DefaultEngine is the routing engine the provider picks when the user sets none: ftree for fat
// trees and rail-optimized fabrics, updn for dragonfly+, torus-2QoS for tori, and minhop
// otherwise. minhop is OpenSM's own default, and on a single switch or a tree of switches (leaves
// cabled back to back, the smallest real fabric) it is also deadlock-free: the only route between
// two switches of a tree is the shortest one, so the channel dependency graph has no cycle
// (Dally and Seitz, "Deadlock-free message routing in multiprocessor interconnection networks",
// IEEE Trans. Computers C-36(5), 1987), and updn would route exactly the same paths.
//
// torus-2QoS routes only with its torus description (torus-2QoS.conf(5)); see EngineFor for the
// choice when there is none.
func DefaultEngine(g *fabric.Graph) string {
	switch Classify(g) {
	case TopoFatTree:
		return EngineFtree
	case TopoDragonfly:
		return EngineUpdn
	case TopoTorus:
		return EngineTorus
	}
	return EngineMinhop
}

// EngineFor is DefaultEngine given the OpenSM options: a torus without a torus description
// (options.torus_config) gets dfsssp, which routes any topology, tori included, deadlock-free
// over virtual lanes (Domke, Hoefler and Nagel, "Deadlock-Free Oblivious Routing for Arbitrary
// Topologies", IPDPS 2011; opensm(8), DFSSSP) and needs no description; torus-2QoS without one
// logs ERR 4E11 and falls back to minhop, which deadlocks on a ring. A torus generated from a
// design carries its coordinates (fabric.Spec.Torus), from which the provider writes the
// description itself (torus.go), so it keeps torus-2QoS. torus-2QoS is refused only where the
// user asked for it without a description (Config.Validate).
func EngineFor(g *fabric.Graph, options map[string]string) string {
	e := DefaultEngine(g)
	if e == EngineTorus && strings.TrimSpace(options["torus_config"]) == "" && (g.Spec == nil || g.Spec.Torus == nil) {
		return EngineDFSSSP
	}
	return e
}

// TopTier returns the switches at the highest level HCAs reach (the spines of a 2-tier fat tree,
// the cores of a 3-tier one), in device order.
func TopTier(g *fabric.Graph) []int32 {
	top := 0
	for i := 0; i < g.NumSwitches(); i++ {
		if l := g.Devices[i].Level; g.Devices[i].Kind == fabric.KindSwitch && l > top {
			top = l
		}
	}
	var out []int32
	for i := 0; i < g.NumSwitches(); i++ {
		if d := &g.Devices[i]; d.Kind == fabric.KindSwitch && d.Level == top && top > 0 {
			out = append(out, int32(i))
		}
	}
	return out
}

// HCADescription is the NodeDescription a declared HCA shows on the fabric: "<host> <device>",
// as mlx5 HCAs describe themselves and as ExpectedTopology names them ("gpu001 mlx5_0").
func HCADescription(g *fabric.Graph, d int32) string {
	dev := &g.Devices[d]
	if g.Spec != nil && dev.Spec >= 0 && dev.Spec < len(g.Spec.HCAs) {
		h := g.Spec.HCAs[dev.Spec]
		if h.Node != "" && h.Device != "" {
			return h.Node + " " + h.Device
		}
	}
	return strings.ReplaceAll(dev.Name, "/", " ")
}

// deviceField is the attribute path of a device's GUID in the fabric's lists.
func deviceField(d *fabric.Device) Loc {
	if d.Kind == fabric.KindSwitch {
		return elemLoc(fabric.MapSwitches, d.Spec, "guid")
	}
	return elemLoc(fabric.MapHCAs, d.Spec, "port_guid")
}

// DeviceGUIDs parses the declared GUIDs of every device (switch node GUIDs, HCA port GUIDs):
// guids[d] is 0 for a device without one. Syntax errors and GUIDs used twice are reported
// against the device's attribute.
func DeviceGUIDs(g *fabric.Graph) ([]GUID, Errors) {
	var errs Errors
	guids := make([]GUID, len(g.Devices))
	owner := map[GUID]int{}
	for i := range g.Devices {
		d := &g.Devices[i]
		if d.GUID == "" {
			continue
		}
		v, err := ParseGUID(d.GUID)
		if err != nil {
			errs.add(deviceField(d), "", err.Error())
			continue
		}
		if j, dup := owner[v]; dup {
			errs.add(deviceField(d), "", fmt.Sprintf("GUID %s of %s is already the GUID of %s; GUIDs are unique on a fabric", v, d.Name, g.Devices[j].Name))
			continue
		}
		owner[v] = i
		guids[i] = v
	}
	return guids, errs
}

// FromGraph derives the OpenSM Config from the fabric graph: the routing engine (DefaultEngine
// unless given), the roots (the top tier) and compute nodes (every cabled HCA port; see
// Config.Roots for why whatever the engine), the node name map (switches by name, HCAs as "<host> <device>") and the
// partitions. It returns the Config even when there are errors, so a plan can still show what
// would be written; Render validates the rest.
func FromGraph(g *fabric.Graph, o GraphOptions) (Config, error) {
	guids, errs := DeviceGUIDs(g)
	c := Config{
		RoutingEngine: o.RoutingEngine, LMC: o.LMC, Options: copyOptions(o.Options),
		DefaultMembership: o.DefaultMembership, Paths: o.Paths, Flavor: o.Flavor,
	}
	if c.RoutingEngine == "" {
		c.RoutingEngine = EngineFor(g, c.Options)
	}
	attachTorus(g, guids, &c, o.RoutingEngine != "", &errs) // torus.go: a generated torus's description
	engines, _, _ := ParseEnginesFor(c.Flavor, c.RoutingEngine)
	if hasEngine(engines, "torus-2QoS", "lash", "dfsssp") {
		if _, set := c.Options["qos"]; !set && o.RoutingEngine == "" {
			c.Options["qos"] = "TRUE" // these engines need VLs; see Validate
		}
	}
	// Roots and compute nodes are filled whatever the engine (see Config.Roots); a missing
	// GUID is an error only for the engines that read the files.
	usesRoots, usesCNs := hasEngine(engines, rootEngines...), hasEngine(engines, cnEngines...)
	if len(o.Roots) > 0 {
		for i, s := range o.Roots {
			v, err := ParseGUID(s)
			if err != nil {
				errs.add(settingLoc("roots").At(i), "root_guid_file", err.Error())
				continue
			}
			c.Roots = append(c.Roots, v)
		}
		if usesRoots {
			errs = append(errs, ValidateRoots(g, c.Roots, usesCNs)...)
		}
	} else {
		for _, s := range TopTier(g) {
			if guids[s] == 0 {
				if g.Devices[s].GUID == "" && usesRoots {
					errs.add(deviceField(&g.Devices[s]), "root_guid_file", fmt.Sprintf("top-tier switch %s has no GUID; %s needs the root switches' GUIDs in root_guid_file", g.Devices[s].Name, c.RoutingEngine))
				}
				continue
			}
			c.Roots = append(c.Roots, guids[s])
		}
	}
	for _, d := range g.Endpoints() {
		if guids[d] == 0 {
			if g.Devices[d].GUID == "" && usesCNs {
				errs.add(deviceField(&g.Devices[d]), "cn_guid_file", fmt.Sprintf("HCA %s has no port GUID; ftree's cn_guid_file must list every compute HCA port or ftree routes it as an I/O node", g.Devices[d].Name))
			}
			continue
		}
		for p := 0; p < g.Devices[d].Ports; p++ {
			if portCabled(g, d, p+1) {
				c.ComputeNodes = append(c.ComputeNodes, guids[d]+GUID(p))
			}
		}
	}
	for i := range g.Devices {
		if guids[i] == 0 {
			continue
		}
		name := g.Devices[i].Name
		if g.Devices[i].Kind == fabric.KindHCA {
			name = HCADescription(g, int32(i))
		}
		c.NodeNames = append(c.NodeNames, NodeName{GUID: guids[i], Name: name})
	}
	if g.Spec != nil {
		for pi, fp := range g.Spec.Partitions {
			c.Partitions = append(c.Partitions, partitionFrom(g, guids, pi, fp, &errs))
		}
	}
	return c, errs.Err()
}

func copyOptions(in map[string]string) map[string]string {
	out := make(map[string]string, len(in)+1)
	for k, v := range in {
		out[k] = v
	}
	return out
}

func portCabled(g *fabric.Graph, d int32, port int) bool {
	for _, li := range g.LinksOf(d) {
		l := &g.Links[li]
		if (l.A == d && l.PortA == port) || (l.B == d && l.PortB == port) {
			return true
		}
	}
	return false
}

func partitionFrom(g *fabric.Graph, guids []GUID, pi int, fp fabric.Partition, errs *Errors) Partition {
	f := elemLoc(fabric.MapPartitions, pi)
	p := Partition{Name: fp.Name, IPoIB: fp.IPoIB, MTU: fp.MTU, RateGbps: float64(fp.RateGbps), SL: fp.SL}
	if v, err := strconv.ParseUint(strings.TrimSpace(fp.PKey), 0, 16); err != nil {
		errs.add(f.Attr("pkey"), "", fmt.Sprintf("P_Key %q is not a number: write it as \"0x0001\"-\"0x7ffe\"", fp.PKey))
	} else if v > 0x7fff {
		errs.add(f.Attr("pkey"), "", fmt.Sprintf("P_Key %s has the membership bit (0x8000) set: give the 15-bit P_Key (0x0001-0x7ffe) and set membership per member", fp.PKey))
	} else {
		p.PKey = uint16(v)
	}
	for mi, fm := range fp.Members {
		mf := f.Attr("members").At(mi)
		m := Member{Membership: fm.Membership}
		switch {
		case fm.HCA != "":
			d, ok := g.Lookup(fm.HCA)
			switch {
			case !ok || g.Devices[d].Kind != fabric.KindHCA:
				errs.add(mf.Attr("hca"), "", fmt.Sprintf("%q is not an HCA of this fabric", fm.HCA))
				continue
			case guids[d] == 0:
				errs.add(mf.Attr("hca"), "", fmt.Sprintf("HCA %s has no port GUID, and partitions.conf names members by port GUID", fm.HCA))
				continue
			}
			m.GUID = guids[d]
		case partition.IsKeyword(strings.TrimSpace(fm.GUID)):
			m.Keyword = strings.TrimSpace(fm.GUID)
		default:
			v, err := ParseGUID(fm.GUID)
			if err != nil {
				errs.add(mf.Attr("guid"), "", fmt.Sprintf("%v; or use one of %s", err, strings.Join(Keywords, ", ")))
				continue
			}
			m.GUID = v
		}
		p.Members = append(p.Members, m)
	}
	return p
}

// ValidateRoots checks user-chosen roots against the graph: every root must be a top-tier
// switch, and for ftree the roots must be the whole top tier. OpenSM does not refuse wrong roots:
// leaf roots make ftree give up and fall back to minhop, and a partial set of spines "succeeds"
// with a wrong rank count (seen with OpenSM 3.3.24 on ibsim).
func ValidateRoots(g *fabric.Graph, roots []GUID, ftree bool) Errors {
	var errs Errors
	guids, _ := DeviceGUIDs(g)
	top := TopTier(g)
	inTop := map[GUID]bool{}
	for _, s := range top {
		inTop[guids[s]] = true
	}
	byGUID := map[GUID]int32{}
	for i, v := range guids {
		if v != 0 {
			byGUID[v] = int32(i)
		}
	}
	listed := map[GUID]bool{}
	for i, r := range roots {
		f := settingLoc("roots").At(i)
		listed[r] = true
		d, known := byGUID[r]
		switch {
		case !known:
			errs.add(f, "root_guid_file", fmt.Sprintf("%s is not the GUID of a switch of this fabric", r))
		case g.Devices[d].Kind != fabric.KindSwitch:
			errs.add(f, "root_guid_file", fmt.Sprintf("%s is HCA %s; roots are the top-tier switches", r, g.Devices[d].Name))
		case !inTop[r]:
			errs.add(f, "root_guid_file", fmt.Sprintf("%s is %s (level %d), not a top-tier switch; with it as a root ftree cannot rank the fabric and OpenSM falls back to minhop", r, g.Devices[d].Name, g.Devices[d].Level))
		}
	}
	if ftree && len(errs) == 0 {
		var missing []string
		for _, s := range top {
			if !listed[guids[s]] {
				missing = append(missing, g.Devices[s].Name)
			}
		}
		if len(missing) > 0 {
			errs.add(settingLoc("roots"), "root_guid_file", fmt.Sprintf("ftree needs every top-tier switch as a root; missing %s (with a partial set ftree ranks the other spines wrongly)", strings.Join(missing, ", ")))
		}
	}
	return errs
}

// derivedGUID is a stable stand-in GUID for a device declared without one, so that the
// expected topology always loads in ibsim: 0x02 (locally administered) followed by 56 bits of a
// hash of the device name. It is never written to OpenSM's files.
func derivedGUID(name string, kind fabric.DeviceKind) GUID {
	h := fnv.New64a()
	_, _ = h.Write([]byte(name)) // hash writes never fail
	v := h.Sum64()&0x00ffffffffffff00 | 0x0200000000000000
	if kind == fabric.KindHCA {
		v |= 0x10 // port GUIDs start at node GUID + 1; leave room below
	}
	return GUID(v)
}
