package opensm

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// LaneSpeed names the InfiniBand signalling rate of a 4x port of the given rate, as
// ibnetdiscover prints it (4xNDR is a 400 Gb/s port). Unknown rates return "".
func LaneSpeed(rateGbps float64) string {
	switch rateGbps {
	case 800:
		return "XDR"
	case 400:
		return "NDR"
	case 200:
		return "HDR"
	case 100:
		return "EDR"
	case 56:
		return "FDR"
	case 40:
		return "QDR"
	case 20:
		return "DDR"
	case 10:
		return "SDR"
	}
	return ""
}

// SimSpeed is the speed ibsim 0.10 is given for a real one: it cannot parse NDR (nor XDR), so
// those are written as HDR, the fastest it knows; the link then shows up as 4xHDR.
func SimSpeed(speed string) string {
	switch speed {
	case "NDR", "XDR", "":
		return "HDR"
	}
	return speed
}

// nodeGUIDs returns, for every device, the node GUID ExpectedTopology gives it: the declared
// switch GUID; for an HCA, the declared port GUID - 1, because ibsim derives a CA's port GUIDs as
// node GUID + port number and the simulated port GUIDs must equal the declared ones. Devices
// without a usable GUID get a derived stand-in.
func nodeGUIDs(g *fabric.Graph) []GUID {
	guids, _ := DeviceGUIDs(g)
	out := make([]GUID, len(g.Devices))
	for i := range g.Devices {
		d := &g.Devices[i]
		v := guids[i]
		if v == 0 || (d.Kind == fabric.KindHCA && v == 1) {
			v = derivedGUID(d.Name, d.Kind)
		}
		if d.Kind == fabric.KindHCA {
			v--
		}
		out[i] = v
	}
	return out
}

// simID is the node id of a device in the expected topology: a switch by name, an HCA by its
// NodeDescription ("gpu001 mlx5_0"). ibsim uses the id as the NodeDescription.
func simID(g *fabric.Graph, d int32) string {
	if g.Devices[d].Kind == fabric.KindHCA {
		return HCADescription(g, d)
	}
	return g.Devices[d].Name
}

// ExpectedTopology writes the declared fabric in ibnetdiscover format, the net-file format ibsim
// reads (`ibsim -s file`): a `switchguid=`/`caguid=` line pins each node's GUID, a
// `Switch <ports> "<name>"` or `Ca <ports> "<host> <device>"` header starts it, and one
// `[port] "peer"[peerport] # lid 0 4xHDR` line per cabled port follows. Every link is written
// from both ends, with the same speed at both ends (ibsim refuses mismatched enabled speeds).
// Devices appear in graph order (switches, then HCAs), ports in ascending order; uncabled
// devices are left out, as ibnetdiscover cannot see them.
//
// ibsim refuses two nodes with one GUID, so an HCA port GUID must not be another node's GUID + 1
// (declared GUIDs from a GUID base with a stride of 2 or more never are). Node ids must not hold
// '"', '#' or '@' (ibsim reserves the last two) and lines stay under ibsim's 256-byte buffer.
// Devices declared without a GUID get a stable stand-in (0x02..., from a hash of the name) so
// that the file always loads; DriftWith then matches them by description.
func ExpectedTopology(g *fabric.Graph) string {
	nguid := nodeGUIDs(g)
	type portLine struct {
		port int
		text string
	}
	ports := make([][]portLine, len(g.Devices))
	for _, l := range g.Links {
		speed := "4x" + SimSpeed(LaneSpeed(l.RateGbps))
		ends := [2]struct {
			d    int32
			p    int
			peer int32
			pp   int
		}{{l.A, l.PortA, l.B, l.PortB}, {l.B, l.PortB, l.A, l.PortA}}
		for _, e := range ends {
			ports[e.d] = append(ports[e.d], portLine{e.p, fmt.Sprintf("[%d]\t\"%s\"[%d]\t\t# lid 0 %s", e.p, simID(g, e.peer), e.pp, speed)})
		}
	}
	var b strings.Builder
	b.WriteString("# Expected topology, written by terraform-provider-gpucluster from the declared fabric.\n")
	b.WriteString("# ibnetdiscover format; ibsim loads it as is (ibsim -s <file>).\n")
	b.WriteString("# 400G (NDR) links are written as 4xHDR because ibsim 0.10 cannot parse NDR.\n")
	b.WriteString("# HCA node GUIDs are the declared port GUID - 1: ibsim gives port p the GUID node+p.\n")
	for i := range g.Devices {
		d := &g.Devices[i]
		if len(ports[i]) == 0 {
			continue
		}
		sort.Slice(ports[i], func(a, c int) bool { return ports[i][a].port < ports[i][c].port })
		b.WriteString("\n")
		if d.Kind == fabric.KindSwitch {
			fmt.Fprintf(&b, "switchguid=%s\nSwitch\t%d \"%s\"\n", nguid[i], d.Ports, simID(g, int32(i)))
		} else {
			fmt.Fprintf(&b, "caguid=%s\nCa\t%d \"%s\"\n", nguid[i], d.Ports, simID(g, int32(i)))
		}
		for _, p := range ports[i] {
			b.WriteString(p.text + "\n")
		}
	}
	return b.String()
}

// Node kinds in ibnetdiscover output.
const (
	NodeSwitch = "Switch"
	NodeCA     = "Ca"
	NodeRouter = "Rt"
)

// DiscoveredNode is a node of a discovered fabric.
type DiscoveredNode struct {
	Kind  string // NodeSwitch, NodeCA or NodeRouter
	ID    string // the quoted id: "S-0002c90000000001" from ibnetdiscover, a name in a net file
	GUID  GUID   // node GUID
	Desc  string // NodeDescription ("leaf01", "gpu001 mlx5_0")
	Ports int    // number of ports
	LID   int    // switch port 0 LID, or the LID of the CA's first listed port; 0 if unknown
	// VendorID and DeviceID are the NodeInfo IDs from the vendid=/devid= lines before the node
	// (0x2c9 and 0xd2f2 for a Quantum-2 switch); 0 when the text has none, and ibsim prints 0.
	VendorID uint32
	DeviceID uint32
	// PortGUIDs of CA and router ports, as listed; switch ports all carry the node GUID.
	PortGUIDs map[int]GUID
}

// PortRef is a port of a discovered node (Node indexes Discovered.Nodes).
type PortRef struct {
	Node int
	Port int
}

// DiscoveredLink is a cable seen by ibnetdiscover, once, whichever end listed it first.
type DiscoveredLink struct {
	A, B  PortRef
	Width string // "4x"
	Speed string // "NDR", "HDR", ...
}

// Discovered is a parsed ibnetdiscover output (or net file).
type Discovered struct {
	Nodes []DiscoveredNode
	Links []DiscoveredLink
}

// Counts is how many nodes of each kind and links t holds, by the names the discovered fabric
// reports them under: "switches", "cas", "routers", "links". A node of an unknown kind is a CA.
func (t *Discovered) Counts() map[string]int {
	counts := map[string]int{"switches": 0, "cas": 0, "routers": 0, "links": len(t.Links)}
	for _, n := range t.Nodes {
		switch n.Kind {
		case NodeSwitch:
			counts["switches"]++
		case NodeRouter:
			counts["routers"]++
		default:
			counts["cas"]++
		}
	}
	return counts
}

// PortGUID returns the GUID of a port: the node GUID for a switch, the listed port GUID for a
// CA, or node GUID + port when the text did not list it (a net file, where ibsim's rule holds).
func (t *Discovered) PortGUID(r PortRef) GUID {
	n := &t.Nodes[r.Node]
	if n.Kind == NodeSwitch {
		return n.GUID
	}
	if g, ok := n.PortGUIDs[r.Port]; ok {
		return g
	}
	return n.GUID + GUID(r.Port)
}

// The bounds of the numbers an ibnetdiscover text holds (InfiniBand Architecture Specification,
// Volume 1, Release 1.3, section 14.2.5.3 NodeInfo and 4.1.3 LIDs): NumPorts is an 8-bit field,
// so a node has 1 to 255 ports (ibsim's net files say the same, "ports(1-255)"); a cable is on
// a physical port 1 to NumPorts (port 0 is a switch's management port, which no cable reaches);
// a LID is 16 bits.
const (
	maxNodePorts = 255
	maxLID       = 0xffff
)

// maxListed is how many problems of one kind a TopologyError spells out; the rest are counted,
// so that a text of millions of bad lines makes a message of a few kilobytes.
const maxListed = 20

// TopologyError is what ParseTopology found wrong with a text. Unread are lines it could not
// read and left out, which an ibnetdiscover run may print (a warning, the rest was used);
// Conflicts are what makes the text no one fabric: a port on two cables or on itself, a port
// beyond its node's port count, a number out of its field's range, a description that does not
// parse, a cable line that cannot be read. Any floor read from such a text would drop, clamp or
// rename something, so a reader refuses it (Refusal), naming each line.
type TopologyError struct {
	Unread, Conflicts         []string
	moreUnread, moreConflicts int
}

func (e *TopologyError) unread(format string, args ...any) {
	if len(e.Unread) < maxListed {
		e.Unread = append(e.Unread, fmt.Sprintf(format, args...))
		return
	}
	e.moreUnread++
}

func (e *TopologyError) conflict(format string, args ...any) {
	if len(e.Conflicts) < maxListed {
		e.Conflicts = append(e.Conflicts, fmt.Sprintf(format, args...))
		return
	}
	e.moreConflicts++
}

func (e *TopologyError) Error() string {
	var parts []string
	if r := e.Refusal(); r != nil {
		parts = append(parts, r.Error())
	}
	if u := e.Unparsed(); u != nil {
		parts = append(parts, u.Error())
	}
	return strings.Join(parts, "; ")
}

// Unparsed is the lines left out, as an error for a warning; nil when every line was read.
func (e *TopologyError) Unparsed() error {
	if e == nil || len(e.Unread) == 0 {
		return nil
	}
	return fmt.Errorf("ibnetdiscover text: %s%s", strings.Join(e.Unread, "; "), more(e.moreUnread, "line", "lines"))
}

// Refusal is why the text is no one fabric, as an error; nil when it is one.
func (e *TopologyError) Refusal() error {
	if e == nil || len(e.Conflicts) == 0 {
		return nil
	}
	return fmt.Errorf("the ibnetdiscover text is not one fabric (nothing is dropped, clamped or renamed to make it one):\n- %s%s",
		strings.Join(e.Conflicts, "\n- "), more(e.moreConflicts, "problem", "problems"))
}

func more(n int, one, many string) string {
	switch n {
	case 0:
		return ""
	case 1:
		return "; and 1 more " + one
	}
	return fmt.Sprintf("; and %d more %s", n, many)
}

// TopologyProblems splits an error of ParseTopology into what a reader warns of (lines left out)
// and what it refuses the text for; both nil for nil.
func TopologyProblems(err error) (unparsed, refusal error) {
	var te *TopologyError
	if errors.As(err, &te) {
		return te.Unparsed(), te.Refusal()
	}
	return err, nil
}

// number reads a decimal field of a line: ok false when it does not fit in [lo, hi].
func number(s string, lo, hi int) (int, bool) {
	v, err := strconv.Atoi(s)
	return v, err == nil && v >= lo && v <= hi
}

// descAfter checks the text that follows a quoted id: nothing, or blanks (then a comment). Text
// glued to the closing quote, as in "spi"ne01", is a quote inside the id: the id does not parse.
func descAfter(rest string) bool {
	return rest == "" || rest[0] == ' ' || rest[0] == '\t'
}

// ParseTopology reads ibnetdiscover output (infiniband-diags) or an ibsim net file such as
// ExpectedTopology writes. Node GUIDs come from the switchguid=/caguid= lines, or from the
// "S-<guid>"/"H-<guid>" ids; descriptions from the quoted text after '#', or the id. Each link
// appears from both ends in ibnetdiscover output and is kept once.
//
// The error is a *TopologyError (TopologyProblems splits it). Lines it cannot read outside a
// node's cable lines are reported, with their numbers, as Unread, and what could be read is
// returned all the same. What makes the text no one fabric is a Conflict, with its line number:
// a port on two cables (leaf01[33] to spine01[1] and to spine01[2]; an HCA port to two leaves),
// a cable to a node the text does not hold (the text is cut short),
// a port cabled to itself, a port above its node's port count or 0, a port count or LID out of
// its field's range (TopologyProblems' bounds), a number or GUID that does not fit, a
// description with a quote in it, a cable line that cannot be read. The fabric returned then is
// what the text says, conflicts included, for the caller to show, not to adopt.
func ParseTopology(text string) (*Discovered, error) {
	t := &Discovered{}
	te := &TopologyError{}
	var pending GUID
	var vendID, devID uint32 // from the vendid=/devid= lines of the node that follows
	cur := -1
	// half is a cable line, kept until every node is read. Compact (48 bytes, 80 with ints and
	// two strings): a 65,536-endpoint floor has 400,000 of them. A node index and a port fit in
	// 32 bits (a node has at most 255 ports, one header line each); speed indexes speeds.
	type half struct {
		line                     int
		node, port, peerP, speed int32
		peerID                   string
	}
	// The widths and speeds the cable lines name, each once ("4x" "NDR"); index 0 is none.
	type widthSpeed struct{ width, speed string }
	speeds := []widthSpeed{{}}
	speedIndex := map[widthSpeed]int32{}
	// Sized once from the port lines the text can hold (each starts a line with "["; none is
	// shorter than 32 bytes), so that a large floor's halves are not grown by doubling; the nodes
	// likewise from the lines that can start a header.
	halves := make([]half, 0, min(strings.Count(text, "\n[")+1, len(text)/32))
	t.Nodes = make([]DiscoveredNode, 0, min(strings.Count(text, "\nSwitch")+strings.Count(text, "\nCa")+
		strings.Count(text, "\nHca")+strings.Count(text, "\nRt")+1, len(text)/8))
	byID := make(map[string]int, cap(t.Nodes))
	headerLine := make([]int32, 0, cap(t.Nodes)) // per node
	portSlots := 0                               // sum of the nodes' port counts + 1: see on below
	badID := false                               // a node id that does not parse: its cables then name an id no node has
	// Line by line without splitting: strings.Split of a 64 MiB file of blank lines made 67
	// million string headers, 1 GiB (issue 32's 27 bytes of memory per byte read).
	n := -1
	for raw := range strings.Lines(text) {
		n++
		raw = strings.TrimSuffix(raw, "\n")
		line := strings.TrimSpace(raw)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			if line == "" {
				cur = -1
			}
			continue
		case strings.HasPrefix(line, "switchguid=") || strings.HasPrefix(line, "caguid=") ||
			strings.HasPrefix(line, "hcaguids=") || strings.HasPrefix(line, "rtguid="):
			_, v, _ := strings.Cut(line, "=")
			if i := strings.IndexByte(v, '('); i >= 0 {
				v = v[:i]
			}
			g, err := ParseGUID(strings.TrimSpace(v))
			if err != nil {
				te.conflict("line %d: %v", n+1, err)
			}
			pending = g
			continue
		case strings.HasPrefix(line, "vendid=") || strings.HasPrefix(line, "devid="):
			k, v, _ := strings.Cut(line, "=")
			id, err := strconv.ParseUint(strings.TrimSpace(v), 0, 32)
			if err != nil {
				te.conflict("line %d: %s=%q is not a 32-bit number", n+1, k, Truncate(v, 40))
			}
			if k == "vendid" {
				vendID = uint32(id)
			} else {
				devID = uint32(id)
			}
			continue
		case strings.HasPrefix(line, "sysimgguid="):
			continue
		}
		if m, ok := scanHeader(line); ok {
			kind := m.kind
			if kind == "Hca" {
				kind = NodeCA
			}
			ports, fits := number(m.ports, 1, maxNodePorts)
			if !fits {
				te.conflict("line %d: %s %q has %s ports: a node has 1 to %d (NodeInfo NumPorts is 8 bits)", n+1, m.kind, Truncate(m.id, 80), Truncate(m.ports, 40), maxNodePorts)
				ports = maxNodePorts // one problem, said once: not again for each of its ports
			}
			if !descAfter(m.rest) {
				te.conflict("line %d: the node id in %q does not parse: a quote inside the quoted id", n+1, Truncate(line, 120))
				badID = true
			}
			node := DiscoveredNode{Kind: kind, ID: m.id, Ports: ports, Desc: m.id}
			if rest := m.rest; strings.Contains(rest, "#") {
				_, c, _ := strings.Cut(rest, "#")
				desc, c2, found, ok := commentDesc(c)
				if !ok {
					te.conflict("line %d: the description in %q does not parse: a quote inside the quoted description", n+1, Truncate(line, 120))
				}
				if found {
					node.Desc = desc
				}
				if l, ok := c2.lid(); ok {
					lid, fits := number(l, 0, maxLID)
					if !fits {
						te.conflict("line %d: lid %s does not fit in 16 bits", n+1, Truncate(l, 40))
					}
					node.LID = lid
				}
			}
			node.GUID = pending
			node.VendorID, node.DeviceID = vendID, devID
			vendID, devID = 0, 0
			if node.GUID == 0 {
				node.GUID = guidFromID(node.ID)
			}
			if node.GUID == 0 {
				te.unread("line %d: node %q has no GUID (no switchguid=/caguid= line before it)", n+1, node.ID)
			}
			pending = 0
			if _, dup := byID[node.ID]; dup {
				te.unread("line %d: node id %q appears twice", n+1, node.ID)
			}
			byID[node.ID] = len(t.Nodes)
			headerLine = append(headerLine, int32(n+1))
			portSlots += ports + 1
			t.Nodes = append(t.Nodes, node)
			cur = len(t.Nodes) - 1
			continue
		}
		if cur >= 0 && strings.HasPrefix(line, "[") {
			m, ok := scanCableLine(line)
			if !ok {
				// A cable line of a node that cannot be read would drop a cable.
				te.conflict("line %d: cannot read the cable line %q (a quote inside a quoted id does not parse)", n+1, Truncate(line, 120))
				continue
			}
			node := &t.Nodes[cur]
			port, fits := number(m.port, 1, max(node.Ports, 1))
			peerP, peerFits := number(m.peerPort, 1, maxNodePorts)
			switch {
			case !fits:
				te.conflict("line %d: port [%s] of %q, which has %d ports", n+1, Truncate(m.port, 40), Truncate(node.ID, 80), node.Ports)
				continue
			case !peerFits:
				te.conflict("line %d: peer port [%s] of %q: a port is 1 to %d", n+1, Truncate(m.peerPort, 40), Truncate(m.peerID, 80), maxNodePorts)
				continue
			case !descAfter(m.rest) && !strings.HasPrefix(m.rest, "#"):
				te.conflict("line %d: the cable line %q does not parse after the peer's port", n+1, Truncate(line, 120))
				continue
			}
			if m.guid != "" {
				g, err := ParseGUID(hex0x(m.guid))
				if err != nil {
					te.conflict("line %d: port GUID %s: %v", n+1, Truncate(m.guid, 40), err)
				}
				if node.PortGUIDs == nil {
					node.PortGUIDs = map[int]GUID{}
				}
				node.PortGUIDs[port] = g
			}
			h := half{line: n + 1, node: int32(cur), port: int32(port), peerID: m.peerID, peerP: int32(peerP)}
			if _, c, ok := strings.Cut(m.rest, "#"); ok {
				_, c, _, ok := commentDesc(c)
				if !ok {
					te.conflict("line %d: the peer's description in %q does not parse: a quote inside the quoted description", n+1, Truncate(line, 120))
				}
				if w, s := c.speed(); w != "" {
					k := widthSpeed{w, s}
					i, seen := speedIndex[k]
					if !seen {
						// Copies: a floor's links outlive its text (a substring kept all of it).
						i = int32(len(speeds))
						speedIndex[k] = i
						speeds = append(speeds, widthSpeed{strings.Clone(w), strings.Clone(s)})
					}
					h.speed = i
				}
				if node.Kind != NodeSwitch && node.LID == 0 {
					if l, ok := c.lid(); ok {
						lid, fits := number(l, 0, maxLID)
						if !fits {
							te.conflict("line %d: lid %s does not fit in 16 bits", n+1, Truncate(l, 40))
						}
						node.LID = lid
					}
				}
			}
			halves = append(halves, h)
			continue
		}
		te.unread("line %d: cannot read %q", n+1, Truncate(line, 80))
	}
	// clashed holds the cables already said to clash, so that the same cable read from its other
	// end is not said twice; a cable already on (both ends, each naming the other) is a cable
	// read from its other end.
	clashed := map[[2]PortRef]bool{}
	// on is the link each port is on and the line that put it there (0: none): a port on two
	// links is two cables on one port, which no floor has. One slot per port of each node, at
	// slot[node] + port (a map of 400,000 ports cost four times as much).
	type onLink struct {
		other PortRef
		line  int
	}
	slot := make([]int, len(t.Nodes))
	for i, s := 0, 0; i < len(t.Nodes); i++ {
		slot[i] = s
		s += t.Nodes[i].Ports + 1
	}
	on := make([]onLink, portSlots)
	at := func(r PortRef) *onLink { return &on[slot[r.Node]+r.Port] }
	t.Links = make([]DiscoveredLink, 0, len(halves)/2)
	name := func(r PortRef) string { return fmt.Sprintf("%s[%d]", t.Nodes[r.Node].Desc, r.Port) }
	for _, h := range halves {
		from := PortRef{int(h.node), int(h.port)}
		peer, ok := byID[h.peerID]
		if !ok {
			// ibnetdiscover prints every node it reached, and every cable from both ends: a peer
			// that has no node in the text is a text cut short (a run interrupted, a copy
			// truncated at a node boundary), which read as is would be a smaller floor.
			if badID { // said once, as the id that does not parse
				te.unread("line %d: %s port %d links to %q, which is not in the text", h.line, t.Nodes[from.Node].ID, from.Port, h.peerID)
				continue
			}
			te.conflict("line %d: %s port %d links to %q, which is not in the text: the text is cut short or edited", h.line, t.Nodes[from.Node].ID, from.Port, h.peerID)
			continue
		}
		a, b := from, PortRef{peer, int(h.peerP)}
		if pn := t.Nodes[peer].Ports; int(h.peerP) > pn {
			te.conflict("line %d: %s is cabled to port [%d] of %q, which has %d ports (line %d)", h.line, name(a), h.peerP, t.Nodes[peer].Desc, pn, headerLine[peer])
			continue
		}
		if a == b {
			te.conflict("line %d: %s is cabled to itself", h.line, name(a))
			continue
		}
		if b.Node < a.Node || (b.Node == a.Node && b.Port < a.Port) {
			a, b = b, a
		}
		key := [2]PortRef{a, b}
		if o := at(a); o.line != 0 && o.other == b || clashed[key] {
			continue
		}
		clash := false
		for _, e := range [2]PortRef{a, b} {
			other := b
			if e == b {
				other = a
			}
			if o := at(e); o.line != 0 && o.other != other {
				te.conflict("line %d: %s is on two cables: to %s (line %d) and to %s", h.line, name(e), name(o.other), o.line, name(other))
				clash = true
			}
		}
		if clash {
			clashed[key] = true // the same cable from its other end is the same problem
			continue
		}
		*at(a), *at(b) = onLink{b, h.line}, onLink{a, h.line}
		ws := speeds[h.speed]
		t.Links = append(t.Links, DiscoveredLink{A: a, B: b, Width: ws.width, Speed: ws.speed})
	}
	if len(te.Unread) > 0 || len(te.Conflicts) > 0 {
		return t, te
	}
	return t, nil
}

func hex0x(s string) string {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return s
	}
	return "0x" + s
}

// guidFromID reads the GUID out of ibnetdiscover's node ids "S-0002c90000000001",
// "H-0000000000a00000", "R-...".
func guidFromID(id string) GUID {
	if len(id) > 2 && id[1] == '-' && strings.ContainsRune("SHR", rune(id[0])) {
		if g, err := ParseGUID("0x" + id[2:]); err == nil {
			return g
		}
	}
	return 0
}

// Truncate cuts command output quoted in a message to n bytes, marked "...", so one runaway
// output cannot flood a diagnostic.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
