package opensm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The regexps ParseTopology used, one per line read (ParseTopology's grammar before issue 32).
var (
	refHeader   = regexp.MustCompile(`^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([^"]*)"(.*)$`)
	refPortLine = regexp.MustCompile(`^\[(\d+)\](?:\(([0-9A-Fa-fx]+)\))?\s*"([^"]*)"\[(\d+)\](?:\(([0-9A-Fa-fx]+)\))?(.*)$`)
	refQuoted   = regexp.MustCompile(`"([^"]*)"`)
	refSpeed    = regexp.MustCompile(`^(\d+x)([A-Za-z0-9?]+)$`)
	refLID      = regexp.MustCompile(`\blid (\d+)`)
)

// commentDescRegexp is commentDesc as it was, by a regexp. It reads the quoted description that
// opens a comment (`# "leaf01" lid 2 4xNDR`):
// the description, the comment without it, and ok false when a quote is left over (a quote in
// the description: it does not parse).
func commentDescRegexp(c string) (desc, rest string, found, ok bool) {
	q := refQuoted.FindStringSubmatchIndex(c)
	if q == nil {
		return "", c, false, !strings.Contains(c, `"`)
	}
	desc, rest = c[q[2]:q[3]], c[:q[0]]+" "+c[q[1]:]
	return desc, rest, true, descAfter(c[q[1]:]) && !strings.Contains(rest, `"`)
}

// parseTopologyRegexp is ParseTopology as it was before its hand-written scanner (issue 32
// point 5): a regexp per line. It is kept, unchanged, as the reference the scanner is compared
// with (TestParseTopologyScannerMatchesRegexp, FuzzParseTopologyScanner): the grammar they
// accept must be the same, byte for byte, errors included.
func parseTopologyRegexp(text string) (*Discovered, error) {
	t := &Discovered{}
	te := &TopologyError{}
	var pending GUID
	var vendID, devID uint32 // from the vendid=/devid= lines of the node that follows
	cur := -1
	type half struct {
		line   int
		from   PortRef
		peerID string
		peerP  int
		width  string
		speed  string
	}
	// Sized once from the port lines the text can hold (each starts a line with "["; none is
	// shorter than 32 bytes), so that a large floor's halves are not grown by doubling.
	halves := make([]half, 0, min(strings.Count(text, "\n[")+1, len(text)/32))
	byID := map[string]int{}
	headerLine := map[int]int{}
	badID := false // a node id that does not parse: its cables then name an id no node has
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
		if m := refHeader.FindStringSubmatch(line); m != nil {
			kind := m[1]
			if kind == "Hca" {
				kind = NodeCA
			}
			ports, fits := number(m[2], 1, maxNodePorts)
			if !fits {
				te.conflict("line %d: %s %q has %s ports: a node has 1 to %d (NodeInfo NumPorts is 8 bits)", n+1, m[1], Truncate(m[3], 80), Truncate(m[2], 40), maxNodePorts)
				ports = maxNodePorts // one problem, said once: not again for each of its ports
			}
			if !descAfter(m[4]) {
				te.conflict("line %d: the node id in %q does not parse: a quote inside the quoted id", n+1, Truncate(line, 120))
				badID = true
			}
			node := DiscoveredNode{Kind: kind, ID: m[3], Ports: ports, Desc: m[3], PortGUIDs: map[int]GUID{}}
			if rest := m[4]; strings.Contains(rest, "#") {
				_, c, _ := strings.Cut(rest, "#")
				desc, c, found, ok := commentDescRegexp(c)
				if !ok {
					te.conflict("line %d: the description in %q does not parse: a quote inside the quoted description", n+1, Truncate(line, 120))
				}
				if found {
					node.Desc = desc
				}
				if l := refLID.FindStringSubmatch(c); l != nil {
					lid, fits := number(l[1], 0, maxLID)
					if !fits {
						te.conflict("line %d: lid %s does not fit in 16 bits", n+1, Truncate(l[1], 40))
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
			headerLine[len(t.Nodes)] = n + 1
			t.Nodes = append(t.Nodes, node)
			cur = len(t.Nodes) - 1
			continue
		}
		if cur >= 0 && strings.HasPrefix(line, "[") {
			m := refPortLine.FindStringSubmatch(line)
			if m == nil {
				// A cable line of a node that cannot be read would drop a cable.
				te.conflict("line %d: cannot read the cable line %q (a quote inside a quoted id does not parse)", n+1, Truncate(line, 120))
				continue
			}
			node := &t.Nodes[cur]
			port, fits := number(m[1], 1, max(node.Ports, 1))
			peerP, peerFits := number(m[4], 1, maxNodePorts)
			switch {
			case !fits:
				te.conflict("line %d: port [%s] of %q, which has %d ports", n+1, Truncate(m[1], 40), Truncate(node.ID, 80), node.Ports)
				continue
			case !peerFits:
				te.conflict("line %d: peer port [%s] of %q: a port is 1 to %d", n+1, Truncate(m[4], 40), Truncate(m[3], 80), maxNodePorts)
				continue
			case !descAfter(m[6]) && !strings.HasPrefix(m[6], "#"):
				te.conflict("line %d: the cable line %q does not parse after the peer's port", n+1, Truncate(line, 120))
				continue
			}
			if m[2] != "" {
				g, err := ParseGUID(hex0x(m[2]))
				if err != nil {
					te.conflict("line %d: port GUID %s: %v", n+1, Truncate(m[2], 40), err)
				}
				node.PortGUIDs[port] = g
			}
			h := half{line: n + 1, from: PortRef{cur, port}, peerID: m[3], peerP: peerP}
			comment := m[6]
			if _, c, ok := strings.Cut(comment, "#"); ok {
				_, c, _, ok := commentDescRegexp(c)
				if !ok {
					te.conflict("line %d: the peer's description in %q does not parse: a quote inside the quoted description", n+1, Truncate(line, 120))
				}
				fields := strings.Fields(c)
				for i := len(fields) - 1; i >= 0; i-- {
					if s := refSpeed.FindStringSubmatch(fields[i]); s != nil {
						h.width, h.speed = s[1], s[2]
						break
					}
				}
				if node.Kind != NodeSwitch && node.LID == 0 {
					if l := refLID.FindStringSubmatch(c); l != nil {
						lid, fits := number(l[1], 0, maxLID)
						if !fits {
							te.conflict("line %d: lid %s does not fit in 16 bits", n+1, Truncate(l[1], 40))
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
	// on is the link each port is on and the line that put it there: a port on two links is two
	// cables on one port, which no floor has.
	type onLink struct {
		other PortRef
		line  int
	}
	on := make(map[PortRef]onLink, len(halves))
	t.Links = make([]DiscoveredLink, 0, len(halves)/2)
	name := func(r PortRef) string { return fmt.Sprintf("%s[%d]", t.Nodes[r.Node].Desc, r.Port) }
	for _, h := range halves {
		peer, ok := byID[h.peerID]
		if !ok {
			// ibnetdiscover prints every node it reached, and every cable from both ends: a peer
			// that has no node in the text is a text cut short (a run interrupted, a copy
			// truncated at a node boundary), which read as is would be a smaller floor.
			if badID { // said once, as the id that does not parse
				te.unread("line %d: %s port %d links to %q, which is not in the text", h.line, t.Nodes[h.from.Node].ID, h.from.Port, h.peerID)
				continue
			}
			te.conflict("line %d: %s port %d links to %q, which is not in the text: the text is cut short or edited", h.line, t.Nodes[h.from.Node].ID, h.from.Port, h.peerID)
			continue
		}
		a, b := h.from, PortRef{peer, h.peerP}
		if pn := t.Nodes[peer].Ports; h.peerP > pn {
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
		if o, ok := on[a]; ok && o.other == b || clashed[key] {
			continue
		}
		clash := false
		for _, e := range [2]PortRef{a, b} {
			other := b
			if e == b {
				other = a
			}
			if o, dup := on[e]; dup && o.other != other {
				te.conflict("line %d: %s is on two cables: to %s (line %d) and to %s", h.line, name(e), name(o.other), o.line, name(other))
				clash = true
			}
		}
		if clash {
			clashed[key] = true // the same cable from its other end is the same problem
			continue
		}
		on[a], on[b] = onLink{b, h.line}, onLink{a, h.line}
		t.Links = append(t.Links, DiscoveredLink{A: a, B: b, Width: h.width, Speed: h.speed})
	}
	if len(te.Unread) > 0 || len(te.Conflicts) > 0 {
		return t, te
	}
	return t, nil
}
