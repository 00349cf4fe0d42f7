package opensm

import "strings"

// The line scanner of ParseTopology. It reads exactly the grammar the regexps it replaced read
// (issue 32 point 5: a regexp per line was most of the garbage of a large floor's read; the
// regexps stay in the tests as the reference the scanner is compared with, ibnet_regexp_test.go):
//
//	header:    ^(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([^"]*)"(.*)$
//	cable:     ^\[(\d+)\](?:\(([0-9A-Fa-fx]+)\))?\s*"([^"]*)"\[(\d+)\](?:\(([0-9A-Fa-fx]+)\))?(.*)$
//	quoted:    "([^"]*)"
//	speed:     ^(\d+x)([A-Za-z0-9?]+)$
//	lid:       \blid (\d+)
//
// with RE2's classes (Go's regexp/syntax): \s is ASCII [\t\n\f\r ], \d is [0-9], \b an ASCII
// word boundary (\w is [0-9A-Za-z_]). Every repetition in these patterns is followed by a byte
// it cannot match, so the leftmost-first match is the greedy scan from left to right: no
// backtracking is needed to find it. The results are substrings of the line, never copies.

// isRESpace is RE2's \s.
func isRESpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// isWordByte is RE2's \w, which \b is a boundary of.
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// spaceRun is the length of the \s* run that starts s.
func spaceRun(s string) int {
	i := 0
	for i < len(s) && isRESpace(s[i]) {
		i++
	}
	return i
}

// digitRun is the length of the \d* run that starts s.
func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// quotedPrefix reads "([^"]*)" at the start of s: the text between the quotes and what follows
// the closing one; ok false when s does not start with a quote or the quote is not closed.
func quotedPrefix(s string) (inner, rest string, ok bool) {
	if len(s) == 0 || s[0] != '"' {
		return "", s, false
	}
	j := strings.IndexByte(s[1:], '"')
	if j < 0 {
		return "", s, false
	}
	return s[1 : 1+j], s[2+j:], true
}

// bracketNumber reads \[(\d+)\] at the start of s.
func bracketNumber(s string) (digits, rest string, ok bool) {
	if len(s) == 0 || s[0] != '[' {
		return "", s, false
	}
	d := digitRun(s[1:])
	if d == 0 || 1+d >= len(s) || s[1+d] != ']' {
		return "", s, false
	}
	return s[1 : 1+d], s[2+d:], true
}

// hexGroup reads \(([0-9A-Fa-fx]+)\) at the start of s.
func hexGroup(s string) (hex, rest string, ok bool) {
	if len(s) == 0 || s[0] != '(' {
		return "", s, false
	}
	i := 1
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f' || s[i] >= 'A' && s[i] <= 'F' || s[i] == 'x') {
		i++
	}
	if i == 1 || i >= len(s) || s[i] != ')' {
		return "", s, false
	}
	return s[1:i], s[i+1:], true
}

// nodeHeader is a node's header line: `Switch 64 "S-0002c90000000001"  # "leaf01" ...`.
type nodeHeader struct {
	kind, ports, id, rest string
}

// scanHeader reads a header line (the header pattern above).
func scanHeader(line string) (h nodeHeader, ok bool) {
	for _, k := range [...]string{"Switch", "Ca", "Hca", "Rt"} {
		if strings.HasPrefix(line, k) {
			h.kind = k
			break
		}
	}
	if h.kind == "" {
		return h, false
	}
	s := line[len(h.kind):]
	n := spaceRun(s)
	if n == 0 {
		return h, false
	}
	s = s[n:]
	d := digitRun(s)
	if d == 0 {
		return h, false
	}
	h.ports, s = s[:d], s[d:]
	if n = spaceRun(s); n == 0 {
		return h, false
	}
	h.id, h.rest, ok = quotedPrefix(s[n:])
	return h, ok
}

// cableLine is a node's port line: `[1](a00001)  "S-0002c90000000001"[3]  # "leaf01" lid 2 4xHDR`.
type cableLine struct {
	port, guid, peerID, peerPort, rest string
}

// scanCableLine reads a port line (the cable pattern above). The peer's port GUID, which the
// pattern allows after the peer's port, is not kept (the peer's own lines list it).
func scanCableLine(line string) (c cableLine, ok bool) {
	s := line
	if c.port, s, ok = bracketNumber(s); !ok {
		return c, false
	}
	// The optional group, when it does not match, leaves a '(' that \s*" cannot match either.
	if hex, r, isGroup := hexGroup(s); isGroup {
		c.guid, s = hex, r
	}
	if c.peerID, s, ok = quotedPrefix(s[spaceRun(s):]); !ok {
		return c, false
	}
	if c.peerPort, s, ok = bracketNumber(s); !ok {
		return c, false
	}
	if _, r, isGroup := hexGroup(s); isGroup {
		s = r
	}
	c.rest = s
	return c, true
}

// comment is a comment with its quoted description taken out: before + " " + after when split
// (what the regexp reader built as a new string per line), else before alone.
type comment struct {
	before, after string
	split         bool
}

// commentDesc reads the quoted description that opens a comment (`# "leaf01" lid 2 4xNDR`):
// the description, the comment without it, and ok false when a quote is left over (a quote in
// the description: it does not parse).
func commentDesc(c string) (desc string, rest comment, found, ok bool) {
	i := strings.IndexByte(c, '"')
	if i < 0 {
		return "", comment{before: c}, false, true
	}
	inner, after, closed := quotedPrefix(c[i:])
	if !closed {
		return "", comment{before: c}, false, false
	}
	rest = comment{before: c[:i], after: after, split: true}
	return inner, rest, true, descAfter(after) && !strings.Contains(rest.before, `"`) && !strings.Contains(after, `"`)
}

// lid reads the first `lid N` of the comment (the lid pattern above), as its digits.
func (c comment) lid() (string, bool) {
	if d, ok := findLID(c.before); ok || !c.split {
		return d, ok
	}
	// A match across the joining blank: "lid" ends before (at a word boundary), digits start after.
	if b := c.before; strings.HasSuffix(b, "lid") && (len(b) == 3 || !isWordByte(b[len(b)-4])) {
		if d := digitRun(c.after); d > 0 {
			return c.after[:d], true
		}
	}
	// The blank before after is a non-word byte, as the start of a string is.
	return findLID(c.after)
}

// findLID is the leftmost match of the lid pattern in s.
func findLID(s string) (string, bool) {
	for from := 0; ; {
		i := strings.Index(s[from:], "lid ")
		if i < 0 {
			return "", false
		}
		i += from
		if i == 0 || !isWordByte(s[i-1]) {
			if d := digitRun(s[i+4:]); d > 0 {
				return s[i+4 : i+4+d], true
			}
		}
		from = i + 1
	}
}

// speed is the last blank-separated field of the comment that reads as a width and a speed
// (`4xNDR`): the fields of before + " " + after are those of before, then those of after.
func (c comment) speed() (width, speed string) {
	for _, s := range [2]string{c.before, c.after} {
		for f := range strings.FieldsSeq(s) {
			if w, sp, ok := scanSpeed(f); ok {
				width, speed = w, sp
			}
		}
	}
	return width, speed
}

// scanSpeed reads a field of the speed pattern above.
func scanSpeed(f string) (width, speed string, ok bool) {
	d := digitRun(f)
	if d == 0 || d+1 >= len(f) || f[d] != 'x' {
		return "", "", false
	}
	for i := d + 1; i < len(f); i++ {
		if c := f[i]; !isWordByte(c) && c != '?' || c == '_' { // [A-Za-z0-9?]
			return "", "", false
		}
	}
	return f[:d+1], f[d+1:], true
}
