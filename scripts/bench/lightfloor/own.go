package main

import (
	"fmt"
	"regexp"
	"strings"
)

// ownNames gives the generator's names and GUID prefix a site's own (gpu0001 -> hgx-0001,
// leaf001 -> ib-l001, spine001 -> ib-s001, core001 -> ib-c001; 0x0002c9 -> 0x00a0b1), so that
// the cable validation has to match the floor to the design by links (firstlight.FitMatch), not
// by name.
var ownNames = strings.NewReplacer(`"gpu`, `"hgx-`, `"leaf`, `"ib-l`, `"spine`, `"ib-s`, `"core`, `"ib-c`, "0x0002c9", "0x00a0b1")

// portLine is a port line of ibnetdiscover text: `[port]<tab>"remote"[remote port]<tab>...`.
var portLine = regexp.MustCompile(`^\[(\d+)\]\t"([^"]*)"\[(\d+)\]`)

// ownFloor is the floor text with its own names and the cables on ports 1 and 2 of its first
// switch exchanged at that switch (both ends' lines rewritten): one swap for the validation to
// find, and nothing else.
func ownFloor(text string) (string, error) {
	lines := strings.Split(ownNames.Replace(text), "\n")
	sw, first := "", -1
	for i, l := range lines {
		if strings.HasPrefix(l, "Switch\t") {
			sw, first = l[strings.Index(l, `"`)+1:strings.LastIndex(l, `"`)], i
			break
		}
	}
	if first < 0 || first+2 >= len(lines) {
		return "", fmt.Errorf("no switch with two ports in the floor")
	}
	p1, p2 := portLine.FindStringSubmatch(lines[first+1]), portLine.FindStringSubmatch(lines[first+2])
	if p1 == nil || p2 == nil || p1[1] != "1" || p2[1] != "2" {
		return "", fmt.Errorf("switch %s does not list ports 1 and 2 first", sw)
	}
	// The switch's side: each port takes the other's remote end.
	r1, r2 := lines[first+1][len("[1]"):], lines[first+2][len("[2]"):]
	lines[first+1], lines[first+2] = "[1]"+r2, "[2]"+r1
	// The far side: the device on port 1 now points at port 2, and the other way round.
	for _, f := range []struct {
		m        []string
		from, to string
	}{{p1, "1", "2"}, {p2, "2", "1"}} {
		if err := repoint(lines, f.m[2], f.m[3], sw, f.from, f.to); err != nil {
			return "", err
		}
	}
	return strings.Join(lines, "\n"), nil
}

// repoint rewrites, in the section of the device described dev, the line of port port that
// reaches sw[from] to reach sw[to].
func repoint(lines []string, dev, port, sw, from, to string) error {
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "Switch\t") || strings.HasPrefix(l, "Ca\t") || strings.HasPrefix(l, "Rt\t") {
			in = strings.Contains(l, `"`+dev+`"`)
			continue
		}
		old := "[" + port + "]\t\"" + sw + "\"[" + from + "]"
		if in && strings.HasPrefix(l, old) {
			lines[i] = "[" + port + "]\t\"" + sw + "\"[" + to + "]" + l[len(old):]
			return nil
		}
	}
	return fmt.Errorf("no line of %s port %s to %s[%s]", dev, port, sw, from)
}
