package scheduler

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Options carry what the graph does not say.
type Options struct {
	// Groups maps a switch name to the generator's group it belongs to (topogen.Design.Groups:
	// "su01", "pod01", "group01"); it names multi-leaf units and Kueue domains. May be nil.
	Groups map[string]string
	// RootName names the virtual top switch written to topology.conf when no switch of the
	// fabric reaches every node (dragonfly+ groups, torus switches); default "fabric".
	RootName string
	// TopologyName is the Kueue Topology's metadata.name; default "gpucluster".
	TopologyName string
	// LabelKeys are the node label keys of the fabric tiers, tier 0 (the unit) first; missing
	// keys default to Topograph's fabric.topograph.run/tier-N.
	LabelKeys []string
	// NoHostnameLevel leaves kubernetes.io/hostname out of the Kueue levels.
	NoHostnameLevel bool
	// Drain maps a node to drain to why (policy.CutOff: an HCA of it is cut off by its own
	// failed cables). The node keeps its place in the topology, so that it comes back where it
	// was once the cable is replaced; Topology.Drain lists it for the scheduler to drain.
	Drain map[string]string
}

// Unit is a leaf-level domain: one leaf switch, or the leaves that share nodes.
type Unit struct {
	Name   string
	Leaves []string // switch names, graph order
	Nodes  []string // node names, spec order
}

// Switch is an upper-tier switch with its children one level down.
type Switch struct {
	Name     string
	Level    int      // graph level: 2 spine, 3 core, ...
	Children []string // unit names (for level 2) or switch names, graph order
}

// Topology is the scheduler view of a fabric.
type Topology struct {
	Units []Unit
	Upper []Switch
	// Root is the name of the virtual top switch when no switch of the fabric reaches every
	// node; "" when one does.
	Root         string
	RootChildren []string
	// Tiers is the number of Kueue fabric tiers: 1 (units) + the upper levels.
	Tiers int
	// Domains[node][k] is the node's domain at tier k.
	Domains    map[string][]string
	NodeOrder  []string // nodes in units, spec order
	Unattached []string // nodes without a cabled HCA
	// Drain are the nodes of Options.Drain, spec order: nodes to take out of service (Slurm's
	// State=DRAIN, kubectl cordon) while a cable of theirs is down.
	Drain []string
	// Omitted are switches left out: leaves without nodes, switches no HCA reaches.
	Omitted []string
	opts    Options
}

// Name is the topology's name (Options.TopologyName, default "gpucluster"), which the Slurm
// files' headers carry as the fabric's.
func (t *Topology) Name() string { return t.opts.TopologyName }

// UnitLeaves are the leaves of each unit by unit name, graph order.
func (t *Topology) UnitLeaves() map[string][]string {
	m := make(map[string][]string, len(t.Units))
	for _, u := range t.Units {
		m[u.Name] = u.Leaves
	}
	return m
}

// Notes say, for people, what the topology leaves out.
func (t *Topology) Notes() []string {
	var notes []string
	if len(t.Unattached) > 0 {
		notes = append(notes, "nodes without a cabled HCA, left out: "+Compress(t.Unattached))
	}
	if len(t.Omitted) > 0 {
		notes = append(notes, "switches without nodes below them, left out: "+strings.Join(t.Omitted, ", "))
	}
	if len(t.Drain) > 0 {
		notes = append(notes, "nodes to drain while their failed cables are down (kept in the topology): "+Compress(t.Drain))
	}
	return notes
}

// badName says why a name cannot go into topology.conf or a label value, or "" when it can.
// A line break or another control character would end the line it is written on and start
// another one (issue 22: root_name = "x\nSwitchName=evil Nodes=ALL" wrote a switch of its own).
func badName(s string) string {
	switch {
	case s == "":
		return "it is empty"
	case len(s) > 64:
		return "it is longer than 64 characters (Slurm's HOST_NAME_MAX)"
	case strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0:
		return "it contains a line break or another control character, which would end its line of topology.conf and start another"
	case strings.ContainsAny(s, " ,[]=#\"'"):
		return "it contains a space, comma, bracket, '=', '#' or quote, which Slurm's hostlist parser splits on"
	}
	return ""
}

// CheckName says why a name the user gives for topology.conf (root_name) cannot be written
// there, or "" when it can.
func CheckName(s string) string {
	if r := badName(s); r != "" {
		return fmt.Sprintf("%q cannot be a switch name in topology.conf: %s; use letters, digits, '-', '_' or '.'", s, r)
	}
	return ""
}

// Build derives the scheduler view. It refuses names that Slurm or Kubernetes cannot carry.
//
// Units are the connected pieces of the leaves under the relation "shares a node" (a union-find,
// fabric.UnionFind): one leaf of a fat tree, all rail leaves of a scalable unit, which NVIDIA DGX
// SuperPOD RA-11333-001 makes the one-hop domain ("always one hop away from the other 31 nodes in
// a SU"), and what Slurm's topology/tree plugin needs, one leaf switch per node (topology.conf(5);
// src/plugins/topology/tree/switch_record.c).
func Build(g *fabric.Graph, opts Options) (*Topology, error) {
	if g == nil || g.Spec == nil {
		return nil, fmt.Errorf("scheduler: no fabric graph")
	}
	if opts.RootName == "" {
		opts.RootName = "fabric"
	}
	if msg := CheckName(opts.RootName); msg != "" {
		return nil, fmt.Errorf("root_name %s", msg)
	}
	if opts.TopologyName == "" {
		opts.TopologyName = "gpucluster"
	}
	t := &Topology{Domains: map[string][]string{}, opts: opts}
	n := int32(len(g.Devices))

	// Leaves of each node, and which switches carry HCAs.
	nodeLeaves := map[string][]int32{}
	hasHCA := make([]bool, n)
	for i := int32(0); i < n; i++ {
		d := &g.Devices[i]
		if d.Kind != fabric.KindHCA {
			continue
		}
		for _, li := range g.LinksOf(i) {
			o := g.Links[li].Other(i)
			if g.Devices[o].Kind == fabric.KindSwitch {
				nodeLeaves[d.Node] = append(nodeLeaves[d.Node], o)
				hasHCA[o] = true
			}
		}
	}
	for _, nd := range g.Spec.Nodes {
		if r := badName(nd.Name); r != "" {
			return nil, fmt.Errorf("node name %q cannot be used in topology.conf: %s", nd.Name, r)
		}
	}
	skip := make([]bool, n)
	for i := int32(0); i < int32(g.NumSwitches()); i++ {
		d := &g.Devices[i]
		if r := badName(d.Name); r != "" {
			return nil, fmt.Errorf("switch name %q cannot be used in topology.conf: %s", d.Name, r)
		}
		if d.Level < 0 || (!hasHCA[i] && d.Role == fabric.RoleLeaf) {
			skip[i] = true
			t.Omitted = append(t.Omitted, d.Name)
		}
	}

	// Units: leaves joined by the nodes they share.
	uf := fabric.NewUnionFind(int(n)) // the lower index stays the root, so roots follow graph order
	seenNode := map[string]bool{}
	var nodes []string
	for _, nd := range g.Spec.Nodes {
		if seenNode[nd.Name] {
			continue
		}
		seenNode[nd.Name] = true
		if _, ok := opts.Drain[nd.Name]; ok {
			t.Drain = append(t.Drain, nd.Name)
		}
		ls := nodeLeaves[nd.Name]
		if len(ls) == 0 {
			t.Unattached = append(t.Unattached, nd.Name)
			continue
		}
		nodes = append(nodes, nd.Name)
		for _, l := range ls[1:] {
			uf.Union(ls[0], l)
		}
	}
	unitOf := map[int32]int{} // root switch -> index in t.Units
	for i := int32(0); i < int32(g.NumSwitches()); i++ {
		if !hasHCA[i] {
			continue
		}
		r := uf.Find(i)
		k, ok := unitOf[r]
		if !ok {
			k = len(t.Units)
			unitOf[r] = k
			t.Units = append(t.Units, Unit{})
		}
		t.Units[k].Leaves = append(t.Units[k].Leaves, g.Devices[i].Name)
	}
	nodeUnit := map[string]int{}
	for _, nd := range nodes {
		k := unitOf[uf.Find(nodeLeaves[nd][0])]
		nodeUnit[nd] = k
		t.Units[k].Nodes = append(t.Units[k].Nodes, nd)
	}
	names := map[string]bool{}
	for i := 0; i < g.NumSwitches(); i++ {
		names[g.Devices[i].Name] = true
	}
	for _, nd := range nodes {
		names[nd] = true
	}
	for k := range t.Units {
		u := &t.Units[k]
		if len(u.Leaves) == 1 {
			u.Name = u.Leaves[0]
			continue
		}
		u.Name = commonGroup(u.Leaves, opts.Groups)
		if u.Name == "" || names[u.Name] {
			u.Name = u.Leaves[0] + "-group"
		}
		names[u.Name] = true
	}
	// Units in the order of their first node, so blocks follow the node numbering.
	pos := make(map[string]int, len(nodes))
	for i, nd := range nodes {
		pos[nd] = i
	}
	sort.SliceStable(t.Units, func(a, b int) bool { return pos[t.Units[a].Nodes[0]] < pos[t.Units[b].Nodes[0]] })
	for k, u := range t.Units {
		for _, nd := range u.Nodes {
			nodeUnit[nd] = k
		}
	}
	unitName := map[int32]string{}
	for _, u := range t.Units {
		for _, l := range u.Leaves {
			i, _ := g.Lookup(l)
			unitName[i] = u.Name
		}
	}
	for _, u := range t.Units {
		t.NodeOrder = append(t.NodeOrder, u.Nodes...)
	}

	// Upper switches with their children one level down.
	maxLevel := 1
	for i := int32(0); i < int32(g.NumSwitches()); i++ {
		d := &g.Devices[i]
		if skip[i] || hasHCA[i] || d.Level < 2 {
			continue
		}
		sw := Switch{Name: d.Name, Level: d.Level}
		seen := map[string]bool{}
		for _, li := range g.LinksOf(i) {
			o := g.Links[li].Other(i)
			od := &g.Devices[o]
			if od.Kind != fabric.KindSwitch || skip[o] || od.Level != d.Level-1 {
				continue
			}
			c := od.Name
			if od.Level == 1 {
				c = unitName[o]
			}
			if !seen[c] {
				seen[c] = true
				sw.Children = append(sw.Children, c)
			}
		}
		if len(sw.Children) == 0 {
			t.Omitted = append(t.Omitted, d.Name)
			continue
		}
		maxLevel = max(maxLevel, d.Level)
		t.Upper = append(t.Upper, sw)
	}
	t.Tiers = maxLevel

	// Kueue domains: tier k joins units and switches up to level k+1 along child edges.
	idx := map[string]int32{}
	var members []string
	add := func(s string) {
		if _, ok := idx[s]; ok {
			return
		}
		idx[s] = int32(len(members))
		members = append(members, s)
	}
	for _, u := range t.Units {
		add(u.Name)
	}
	for _, s := range t.Upper {
		add(s.Name)
	}
	duf := fabric.NewUnionFind(len(members))
	for _, nd := range t.NodeOrder {
		t.Domains[nd] = make([]string, t.Tiers)
		t.Domains[nd][0] = t.Units[nodeUnit[nd]].Name
	}
	for k := 1; k < t.Tiers; k++ {
		level := k + 1
		var tops []string
		for _, s := range t.Upper {
			if s.Level != level {
				continue
			}
			tops = append(tops, s.Name)
			for _, c := range s.Children {
				duf.Union(idx[s.Name], idx[c])
			}
		}
		// Name each domain root after its top-level switches.
		byRoot := map[int32][]string{}
		for _, s := range tops {
			r := duf.Find(idx[s])
			byRoot[r] = append(byRoot[r], s)
		}
		domainName := map[int32]string{}
		for r, ss := range byRoot {
			name := ""
			switch {
			case len(ss) == 1:
				name = ss[0]
			default:
				name = commonGroup(ss, opts.Groups)
				if name == "" {
					name = ss[0]
				}
			}
			domainName[r] = name
		}
		for _, u := range t.Units {
			r := duf.Find(idx[u.Name])
			for _, nd := range u.Nodes {
				if name, ok := domainName[r]; ok {
					t.Domains[nd][k] = name
				} else {
					t.Domains[nd][k] = t.Domains[nd][k-1] // the unit tops out below this tier
				}
			}
		}
	}

	// A virtual root when no switch reaches every node: Slurm's topology guide says no job
	// spans leaf switches without a common parent.
	var tops []string
	covered := map[string]int{} // switch -> units below it
	var unitsBelow func(name string, level int, memo map[string]map[string]bool) map[string]bool
	unitsBelow = func(name string, level int, memo map[string]map[string]bool) map[string]bool {
		if m, ok := memo[name]; ok {
			return m
		}
		out := map[string]bool{}
		memo[name] = out
		if level <= 1 {
			out[name] = true
			return out
		}
		for _, s := range t.Upper {
			if s.Name != name {
				continue
			}
			for _, c := range s.Children {
				for u := range unitsBelow(c, level-1, memo) {
					out[u] = true
				}
			}
		}
		return out
	}
	memo := map[string]map[string]bool{}
	full := false
	for _, s := range t.Upper {
		covered[s.Name] = len(unitsBelow(s.Name, s.Level, memo))
		if covered[s.Name] == len(t.Units) {
			full = true
		}
	}
	if len(t.Units) > 1 && !full {
		// Every switch that has no parent becomes a child of the root.
		hasParent := map[string]bool{}
		for _, s := range t.Upper {
			for _, c := range s.Children {
				hasParent[c] = true
			}
		}
		for _, u := range t.Units {
			if !hasParent[u.Name] {
				tops = append(tops, u.Name)
			}
		}
		for _, s := range t.Upper {
			if !hasParent[s.Name] {
				tops = append(tops, s.Name)
			}
		}
		t.Root = opts.RootName
		for names[t.Root] {
			t.Root += "-root"
		}
		t.RootChildren = tops
	}
	return t, nil
}

// commonGroup is the group all names share, or "".
func commonGroup(names []string, groups map[string]string) string {
	if groups == nil || len(names) == 0 {
		return ""
	}
	g := groups[names[0]]
	for _, n := range names[1:] {
		if groups[n] != g {
			return ""
		}
	}
	if badName(g) != "" {
		return ""
	}
	return g
}
