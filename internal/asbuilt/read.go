package asbuilt

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// ReadOptions tune Read.
type ReadOptions struct {
	// NodeNameMap names devices by GUID, as OpenSM's node-name-map does (opensm.ParseNodeNameMap):
	// a switch by its node GUID, a CA by its node GUID or one of its port GUIDs. Where it names a
	// GUID it wins over the node description.
	NodeNameMap map[opensm.GUID]string
	// Simulated reads ibsim's 4xHDR, the stand-in ibsim is given for a 400G port
	// (opensm.SimSpeed), as 4xNDR.
	Simulated bool
	// Catalog holds the models; nil is catalog.Default().
	Catalog *catalog.Catalog
}

// Floor is the fabric on the floor as data.
type Floor struct {
	// Spec holds the switches, nodes, HCAs and cables, in the shapes of the fabric's maps, each
	// with its key in Ref.Key (a cable is keyed by its lower-tier end, "hgx-a001/mlx5_0:1",
	// "ib-leaf-07:33"). No racks: discovery does not see them.
	Spec *fabric.Spec
	// Links[i] is what discovery saw of Spec.Cables[i].
	Links []Link
	// Notes say once each what could not be known and what was assumed: locations, models,
	// simulated speeds, links below full width or speed.
	Notes []string
}

// Link is a cable's width and speed as discovered ("4x", "NDR"), after the simulated stand-in
// is read as what it stands for.
type Link struct {
	Width string
	Speed string
}

// nodeName is a discovered node's name and, for a managed switch, the part its description
// names.
type nodeName struct {
	name, part string // switch
	host, dev  string // CA
}

// Read turns a discovered fabric (opensm.ParseTopology of ibnetdiscover output) into the
// declaration it is, in the fabric's own shapes.
//
// Names: a switch is named by the node name map, else by its description, where a managed
// switch's "MF0;ib-leaf-07:MQM9700/U1" names ib-leaf-07 (and the part MQM9700); a CA describes
// itself as "<host> <device>" (rdma-ndd's "%h %d": "hgx-a001 mlx5_0" is HCA hgx-a001/mlx5_0 of
// node hgx-a001), and a node name map entry for it is read the same way. Names that are not
// valid in this provider (fabric.CheckName) or that two nodes share are errors naming the GUIDs,
// all of them at once; nothing is renamed behind the user's back.
//
// Models: a switch takes the part its description names; otherwise the catalog model with its
// port count and, where the text gives a device ID, its family; an HCA likewise; a host the node
// model whose HCAs it has. Where several models fit, the default is taken and said; where none
// does, the model is a descriptive name the fabric refuses, with a note (switchModel,
// hcaModel, nodeModel).
//
// Ports and GUIDs are as discovered: a switch's node GUID, an HCA's port GUID (of port 1; for a
// CA seen only on another port p, that port's GUID - (p-1), the fabric's rule). Routers are left
// out and said.
func Read(d *opensm.Discovered, opts ReadOptions) (*Floor, error) {
	if d == nil {
		return nil, errors.New("no discovered fabric")
	}
	cat := opts.Catalog
	if cat == nil {
		cat = catalog.Default()
	}
	r := reader{d: d, opts: opts, cat: cat, names: make([]nodeName, len(d.Nodes))}
	r.resolveNames()
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("the discovered fabric has names this provider cannot use:\n- %s", capList(r.errs, "\n- ", "problem"))
	}
	f := r.build()
	if len(r.errs) > 0 {
		return nil, fmt.Errorf("the discovered fabric is not one this provider can adopt as it is (nothing is dropped or clamped to make it one):\n- %s", capList(r.errs, "\n- ", "problem"))
	}
	return f, nil
}

// maxListed is how many items of one kind an error or note spells out; the rest are counted
// (issue 32: a text of millions of bad lines made a warning of 328 MB), as opensm's
// TopologyError and the plan's problems do.
const maxListed = 20

// capList joins the first maxListed items with sep and counts the rest ("; and 3 more
// problems").
func capList(items []string, sep, what string) string {
	if len(items) <= maxListed {
		return strings.Join(items, sep)
	}
	return fmt.Sprintf("%s; and %d more %ss", strings.Join(items[:maxListed], sep), len(items)-maxListed, what)
}

// checkRadix refuses a cable on a port a switch's model does not have (port 80 of a 64-port
// QM9700): the header's port count is what the device says of itself, the model's is what the
// fabric will be checked against, and a cable beyond it would be dropped or moved by the fit.
func (r *reader) checkRadix(i int, sw fabric.Switch) {
	m, ok := r.cat.Switches[sw.Model]
	if !ok {
		return // not in the catalog: the fabric refuses the model itself, with a note
	}
	var over []int
	r.ports.each(i, func(p int) {
		if p > m.Ports {
			over = append(over, p)
		}
	})
	if len(over) == 0 {
		return
	}
	sort.Ints(over)
	r.errs = append(r.errs, fmt.Sprintf("switch %s (%s) is a %s, which has %d ports, but cables are on its port(s) %s: correct the model (the node description's part, or the catalog) or the topology",
		sw.Name, sw.GUID, sw.Model, m.Ports, strings.Trim(fmt.Sprint(over), "[]")))
}

type reader struct {
	d     *opensm.Discovered
	opts  ReadOptions
	cat   *catalog.Catalog
	names []nodeName
	errs  []string
	notes modelNotes
	// ports[i] holds port p of node i when it is on a link (for the CA port GUIDs).
	ports    portSets
	interned map[string]string
}

// portSets is a set of ports per node, as bits: a map per node cost 29 MB for a
// 65,536-endpoint floor (issue 32 point 5), a node's 64 ports fit in two words.
type portSets [][]uint64

func (s portSets) add(node, p int) {
	if p < 0 {
		return // no port a link is on; a map held it, and nothing read it
	}
	w := p / 64
	if len(s[node]) <= w {
		s[node] = append(s[node], make([]uint64, w+1-len(s[node]))...)
	}
	s[node][w] |= 1 << (p % 64)
}

func (s portSets) has(node, p int) bool {
	w := p / 64
	return p >= 0 && w < len(s[node]) && s[node][w]&(1<<(p%64)) != 0
}

// each calls f with each port of node, ascending.
func (s portSets) each(node int, f func(p int)) {
	for w, bits := range s[node] {
		for b := 0; b < 64; b++ {
			if bits&(1<<b) != 0 {
				f(w*64 + b)
			}
		}
	}
}

// mappedName returns the node name map's name for node i: by node GUID, or for a CA by one of
// its ports' GUIDs.
func (r *reader) mappedName(i int) (string, bool) {
	if len(r.opts.NodeNameMap) == 0 {
		return "", false
	}
	n := &r.d.Nodes[i]
	if s, ok := r.opts.NodeNameMap[n.GUID]; ok {
		return s, true
	}
	if n.Kind == opensm.NodeSwitch {
		return "", false
	}
	for p := 1; p <= n.Ports; p++ {
		if s, ok := r.opts.NodeNameMap[r.d.PortGUID(opensm.PortRef{Node: i, Port: p})]; ok {
			return s, true
		}
	}
	return "", false
}

// splitSwitchDesc reads a managed switch's description "MF0;<hostname>:<part>/<slot>" as
// NVIDIA's switch OS sets it; anything else is the name as it stands.
func splitSwitchDesc(desc string) (name, part string) {
	_, rest, ok := strings.Cut(desc, ";")
	if !ok {
		return desc, ""
	}
	host, model, ok := strings.Cut(rest, ":")
	if !ok || host == "" {
		return desc, ""
	}
	part, _, _ = strings.Cut(model, "/")
	return host, part
}

// intern is s as a copy of its own, one per distinct value (a floor's 65,536 HCAs have a few
// device names and one host name per 8).
func (r *reader) intern(s string) string {
	if v, ok := r.interned[s]; ok {
		return v
	}
	if r.interned == nil {
		r.interned = map[string]string{}
	}
	v := strings.Clone(s)
	r.interned[v] = v
	return v
}

func (r *reader) resolveNames() {
	const fix = "name it in a node_name_map file (OpenSM's format: `0x<guid> \"name\"`), or set the node description on the device"
	type owner struct {
		guid opensm.GUID
		from string
	}
	switches := map[string]owner{}
	hcas := map[string]owner{}
	r.ports = make(portSets, len(r.d.Nodes))
	for _, l := range r.d.Links {
		r.ports.add(l.A.Node, l.A.Port)
		r.ports.add(l.B.Node, l.B.Port)
	}
	for i := range r.d.Nodes {
		n := &r.d.Nodes[i]
		text, mapped := r.mappedName(i)
		from := "described as"
		if mapped {
			from = "named by the node name map"
		} else {
			text = n.Desc
		}
		switch n.Kind {
		case opensm.NodeSwitch:
			name, part := splitSwitchDesc(text)
			if _, p := splitSwitchDesc(n.Desc); part == "" {
				part = p // a mapped name; the description may still name the part
			}
			if msg := fabric.CheckName(name); msg != "" {
				r.errs = append(r.errs, fmt.Sprintf("switch %s is %s %q: %s; %s", n.GUID, from, text, msg, fix))
				continue
			}
			if o, dup := switches[name]; dup {
				r.errs = append(r.errs, fmt.Sprintf("switches %s (%s %q) and %s (%s %q) are both named %q; names are unique on a fabric: %s", o.guid, o.from, name, n.GUID, from, text, name, fix))
				continue
			}
			switches[name] = owner{n.GUID, from}
			// Copies, not substrings of the text: the floor outlives the read (the record's
			// decoded floor is kept), and a substring kept all of a 64 MiB text alive with it.
			r.names[i] = nodeName{name: strings.Clone(name), part: strings.Clone(part)}
		case opensm.NodeCA:
			f := strings.Fields(text)
			if len(f) != 2 {
				r.errs = append(r.errs, fmt.Sprintf("CA %s is %s %q, not \"<host> <device>\" (rdma-ndd's \"%%h %%d\", e.g. \"hgx-a001 mlx5_0\"); %s", n.GUID, from, text, fix))
				continue
			}
			bad := false
			for _, part := range []struct{ what, s string }{{"host", f[0]}, {"device", f[1]}} {
				if msg := fabric.CheckName(part.s); msg != "" {
					r.errs = append(r.errs, fmt.Sprintf("CA %s is %s %q: its %s %s; %s", n.GUID, from, text, part.what, msg, fix))
					bad = true
				}
			}
			if bad {
				continue
			}
			hn := fabric.HCAName(f[0], f[1])
			if o, dup := hcas[hn]; dup {
				r.errs = append(r.errs, fmt.Sprintf("CAs %s (%s %q) and %s (%s %q) are both HCA %s; names are unique on a fabric: %s", o.guid, o.from, text, n.GUID, from, text, hn, fix))
				continue
			}
			hcas[hn] = owner{n.GUID, from}
			r.names[i] = nodeName{host: r.intern(f[0]), dev: r.intern(f[1])} // as a switch's name
		}
	}
}

// levels returns, for each discovered node, its distance in links from the nearest CA (CAs 0;
// -1 where none reaches), which orients cables lower tier first.
func levels(d *opensm.Discovered) []int {
	// The links of each node in one array (compressed rows: node i's neighbours are
	// adj[start[i]:start[i+1]]), not a slice per node grown by append: 14 MB of garbage for a
	// 65,536-endpoint floor (issue 32 point 5).
	start := make([]int32, len(d.Nodes)+1)
	for _, l := range d.Links {
		start[l.A.Node+1]++
		start[l.B.Node+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	adj := make([]int32, 2*len(d.Links))
	fill := slices.Clone(start[:len(d.Nodes)])
	for _, l := range d.Links {
		adj[fill[l.A.Node]] = int32(l.B.Node)
		fill[l.A.Node]++
		adj[fill[l.B.Node]] = int32(l.A.Node)
		fill[l.B.Node]++
	}
	lv := make([]int, len(d.Nodes))
	queue := make([]int, 0, len(d.Nodes))
	for i := range d.Nodes {
		lv[i] = -1
		if d.Nodes[i].Kind == opensm.NodeCA {
			lv[i] = 0
			queue = append(queue, i)
		}
	}
	for h := 0; h < len(queue); h++ {
		n := queue[h]
		for _, o := range adj[start[n]:start[n+1]] {
			if lv[o] < 0 {
				lv[o] = lv[n] + 1
				queue = append(queue, int(o))
			}
		}
	}
	return lv
}

func (r *reader) build() *Floor {
	d, cat := r.d, r.cat
	spec := &fabric.Spec{}
	f := &Floor{Spec: spec}
	var routers []string
	cas := 0
	for i := range d.Nodes {
		if d.Nodes[i].Kind == opensm.NodeCA {
			cas++
		}
	}
	spec.HCAs = make([]fabric.HCA, 0, cas)

	type host struct {
		hcas []int // discovered node indexes
	}
	hosts := map[string]*host{}
	for i := range d.Nodes {
		n := &d.Nodes[i]
		switch n.Kind {
		case opensm.NodeSwitch:
			nm := r.names[i]
			sw := fabric.Switch{
				Ref: fabric.Ref{Key: nm.name}, Name: nm.name, Model: switchModel(cat, n, nm.part, &r.notes), GUID: n.GUID.String(),
			}
			r.checkRadix(i, sw)
			spec.Switches = append(spec.Switches, sw)
		case opensm.NodeCA:
			nm := r.names[i]
			h := hosts[nm.host]
			if h == nil {
				h = &host{}
				hosts[nm.host] = h
			}
			h.hcas = append(h.hcas, i)
		default:
			routers = append(routers, fmt.Sprintf("%s (%q)", n.GUID, n.Desc))
		}
	}
	hostNames := make([]string, 0, len(hosts))
	for name := range hosts {
		hostNames = append(hostNames, name)
	}
	sort.Slice(hostNames, func(a, b int) bool { return naturalLess(hostNames[a], hostNames[b]) })
	for _, hn := range hostNames {
		h := hosts[hn]
		models := map[string]string{}
		counts := map[string]int{}
		for _, i := range h.hcas {
			m := hcaModel(cat, &d.Nodes[i], &r.notes)
			models[r.names[i].dev] = m
			counts[m]++
		}
		// The node model follows the HCA model most of its HCAs have.
		main, most := "", 0
		for m, c := range counts {
			if c > most || c == most && m < main {
				main, most = m, c
			}
		}
		nmodel, compute := nodeModel(cat, main, len(h.hcas), &r.notes)
		spec.Nodes = append(spec.Nodes, fabric.Node{Ref: fabric.Ref{Key: hn}, Name: hn, Model: nmodel, ComputeHCAs: compute})
		nodeHCA := ""
		if m, ok := cat.Nodes[nmodel]; ok {
			nodeHCA = m.HCAModel
		}
		for _, i := range h.hcas {
			dev := r.names[i].dev
			hm := models[dev]
			if hm == nodeHCA {
				hm = "" // the node model's own: left to the default, as the generator writes it
			}
			spec.HCAs = append(spec.HCAs, fabric.HCA{
				Ref: fabric.Ref{Key: fabric.HCAName(hn, dev)}, Name: fabric.HCAName(hn, dev), Node: hn, Device: dev,
				Model: hm, PortGUID: r.hcaPortGUID(i).String(), Rail: -1,
			})
		}
	}
	// Natural order (mlx5_3 before mlx5_10): the BOM puts a node's HCAs two per twin-port cage in
	// this order, as a DGX H100 pairs its compute HCAs.
	sort.Slice(spec.Switches, func(a, b int) bool { return naturalLess(spec.Switches[a].Name, spec.Switches[b].Name) })
	sort.Slice(spec.HCAs, func(a, b int) bool { return naturalLess(spec.HCAs[a].Name, spec.HCAs[b].Name) })

	lv := levels(d)
	endOf := func(p opensm.PortRef) fabric.End {
		nm := r.names[p.Node]
		if d.Nodes[p.Node].Kind == opensm.NodeCA {
			return fabric.End{Device: fabric.HCAName(nm.host, nm.dev), Port: p.Port}
		}
		return fabric.End{Device: nm.name, Port: p.Port}
	}
	// Sized once, and built in place: a floor's cables are most of its memory, and growing them
	// by doubling, or through a list of cable and link pairs copied out after the sort, cost
	// twice the floor in garbage (a 65,536-endpoint floor read; issue 32 point 5).
	spec.Cables = make([]fabric.Cable, 0, len(d.Links))
	f.Links = make([]Link, 0, len(d.Links))
	simulated, slow := 0, []string{}
	for _, l := range d.Links {
		if d.Nodes[l.A.Node].Kind == opensm.NodeRouter || d.Nodes[l.B.Node].Kind == opensm.NodeRouter {
			continue
		}
		a, b := endOf(l.A), endOf(l.B)
		as := a.String()
		la, lb := lv[l.A.Node], lv[l.B.Node]
		if lb < la {
			a, b, as = b, a, b.String()
		} else if lb == la {
			if bs := b.String(); bs < as {
				a, b, as = b, a, bs
			}
		}
		lk := Link{Width: l.Width, Speed: l.Speed}
		if r.opts.Simulated && l.Speed == opensm.SimSpeed("NDR") {
			lk.Speed = "NDR"
			simulated++
		}
		c := fabric.Cable{Ref: fabric.Ref{Key: as}, A: a, B: b}
		if lk.Width != "4x" || lk.Speed != "NDR" {
			slow = append(slow, fmt.Sprintf("%s at %s%s", c.Label(), lk.Width, lk.Speed))
		}
		spec.Cables = append(spec.Cables, c)
		f.Links = append(f.Links, lk)
	}
	sort.Sort(cablesByKey{spec.Cables, f.Links})
	if len(spec.Cables) == 0 {
		spec.Cables, f.Links = nil, nil // none, as before: a record writes an empty list as null
	}

	if len(spec.Switches)+len(spec.Nodes) > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("location unknown for %d switches and %d nodes: cable reach and rack power are not checked (give them rack and position_u to check)",
			len(spec.Switches), len(spec.Nodes)))
	}
	f.Notes = append(f.Notes, r.notes.lines()...)
	if simulated > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("simulated: %d link(s) at ibsim's 4x%s stand-in read as 4xNDR", simulated, opensm.SimSpeed("NDR")))
	}
	if len(slow) > 0 {
		sort.Strings(slow)
		more := ""
		if len(slow) > 5 {
			more = fmt.Sprintf(" and %d more", len(slow)-5)
			slow = slow[:5]
		}
		f.Notes = append(f.Notes, fmt.Sprintf("links below 4xNDR: %s%s", strings.Join(slow, "; "), more))
	}
	if len(routers) > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d router(s) left out: %s", len(routers), capList(routers, ", ", "router")))
	}
	return f
}

// cablesByKey sorts a floor's cables by key and their links with them.
type cablesByKey struct {
	cables []fabric.Cable
	links  []Link
}

func (c cablesByKey) Len() int           { return len(c.cables) }
func (c cablesByKey) Less(i, j int) bool { return c.cables[i].Key < c.cables[j].Key }
func (c cablesByKey) Swap(i, j int) {
	c.cables[i], c.cables[j] = c.cables[j], c.cables[i]
	c.links[i], c.links[j] = c.links[j], c.links[i]
}

// hcaPortGUID is the GUID of port 1 of CA i: as listed, or derived from the first cabled port p
// as that port's GUID - (p-1), the rule the fabric and OpenSM's files use.
func (r *reader) hcaPortGUID(i int) opensm.GUID {
	n := &r.d.Nodes[i]
	if g, ok := n.PortGUIDs[1]; ok || r.ports.has(i, 1) {
		if ok {
			return g
		}
		return r.d.PortGUID(opensm.PortRef{Node: i, Port: 1})
	}
	for p := 2; p <= n.Ports; p++ {
		if r.ports.has(i, p) {
			return r.d.PortGUID(opensm.PortRef{Node: i, Port: p}) - opensm.GUID(p-1)
		}
	}
	return r.d.PortGUID(opensm.PortRef{Node: i, Port: 1})
}
