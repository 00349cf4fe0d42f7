package opensm

import (
	"fmt"
	"strings"
	"testing"
)

// floorText is a small fabric in ibnetdiscover's format: spine01 (S-..01) and leaf01 (S-..02),
// 64 ports each, joined leaf01[33] <-> spine01[1], and gpu001's HCA on leaf01[1]. edit changes
// its lines (1-based) to make it wrong one way at a time.
func floorText(edit map[int]string, extra ...string) string {
	lines := []string{
		/* 1 */ `switchguid=0x0002c90000000001`,
		/* 2 */ `Switch	64 "S-0002c90000000001"		# "spine01" enhanced port 0 lid 1 lmc 0`,
		/* 3 */ `[1]	"S-0002c90000000002"[33]		# "leaf01" lid 2 4xNDR`,
		/* 4 */ ``,
		/* 5 */ `switchguid=0x0002c90000000002`,
		/* 6 */ `Switch	64 "S-0002c90000000002"		# "leaf01" enhanced port 0 lid 2 lmc 0`,
		/* 7 */ `[1]	"H-0000000000a00000"[1](a00001)		# "gpu001 mlx5_0" lid 3 4xNDR`,
		/* 8 */ `[33]	"S-0002c90000000001"[1]		# "spine01" lid 1 4xNDR`,
		/* 9 */ ``,
		/* 10 */ `caguid=0x0000000000a00000`,
		/* 11 */ `Ca	1 "H-0000000000a00000"		# "gpu001 mlx5_0"`,
		/* 12 */ `[1](a00001)	"S-0002c90000000002"[1]		# lid 3 lmc 0 "leaf01" lid 2 4xNDR`,
	}
	for n, l := range edit {
		lines[n-1] = l
	}
	return strings.Join(append(lines, extra...), "\n") + "\n"
}

// Issue 32's impossible floors: each is refused (TopologyProblems' refusal), naming the line and
// what is wrong, said once; nothing is dropped, clamped or renamed to make it a fabric. The
// unedited text is one fabric.
func TestParseTopologyConflicts(t *testing.T) {
	if d, err := ParseTopology(floorText(nil)); err != nil || len(d.Links) != 2 {
		t.Fatalf("the clean floor: %v, %d links", err, len(d.Links))
	}
	leaf2 := []string{"", "switchguid=0x0002c90000000003", `Switch	64 "S-0002c90000000003"		# "leaf02" enhanced port 0 lid 4 lmc 0`,
		`[1]	"H-0000000000a00000"[1]		# "gpu001 mlx5_0" lid 3 4xNDR`}
	for _, c := range []struct {
		name string
		text string
		want string
	}{
		{"a port on two cables (leaf01[33] to spine01[1] and spine01[2])",
			floorText(map[int]string{3: "[1]	\"S-0002c90000000002\"[33]		# \"leaf01\" lid 2 4xNDR\n[2]	\"S-0002c90000000002\"[33]		# \"leaf01\" lid 2 4xNDR"}),
			"line 4: leaf01[33] is on two cables: to spine01[1] (line 3) and to spine01[2]"},
		{"an HCA port on two leaves", floorText(nil, leaf2...),
			"line 16: gpu001 mlx5_0[1] is on two cables: to leaf01[1] (line 7) and to leaf02[1]"},
		{"a port beyond the header's count", floorText(map[int]string{8: `[80]	"S-0002c90000000001"[1]		# "spine01" lid 1 4xNDR`}),
			`line 8: port [80] of "S-0002c90000000002", which has 64 ports`},
		{"a peer port beyond the peer's count", floorText(map[int]string{3: `[1]	"S-0002c90000000002"[65]		# "leaf01" lid 2 4xNDR`}),
			`line 3: spine01[1] is cabled to port [65] of "leaf01", which has 64 ports (line 6)`},
		{"a port that does not fit", floorText(map[int]string{8: `[99999999999999999999]	"S-0002c90000000001"[1]		# "spine01" lid 1 4xNDR`}),
			`line 8: port [99999999999999999999] of "S-0002c90000000002", which has 64 ports`},
		{"a header count of 0", floorText(map[int]string{2: `Switch	0 "S-0002c90000000001"		# "spine01" enhanced port 0 lid 1 lmc 0`}),
			`line 2: Switch "S-0002c90000000001" has 0 ports: a node has 1 to 255`},
		{"a header count of 4,000,000,000", floorText(map[int]string{6: `Switch	4000000000 "S-0002c90000000002"		# "leaf01" enhanced port 0 lid 2 lmc 0`}),
			`line 6: Switch "S-0002c90000000002" has 4000000000 ports`},
		{"a description with a quote in it", floorText(map[int]string{2: `Switch	64 "S-0002c90000000001"		# "spi"ne01" enhanced port 0 lid 1 lmc 0`}),
			`line 2: the description in "Switch\t64 \"S-0002c90000000001\"\t\t# \"spi\"ne01\" enhanced port 0 lid 1 lmc 0" does not parse`},
		{"an id with a quote in it", floorText(map[int]string{2: `Switch	64 "spi"ne01"`}),
			`line 2: the node id in "Switch\t64 \"spi\"ne01\"" does not parse`},
		{"a peer id with a quote in it", floorText(map[int]string{3: `[1]	"S-0002c9"0000000002"[33]		# "leaf01" lid 2 4xNDR`}),
			`line 3: cannot read the cable line`},
		{"a port cabled to itself", floorText(map[int]string{3: `[1]	"S-0002c90000000001"[1]		# "spine01" lid 1 4xNDR`}),
			"line 3: spine01[1] is cabled to itself"},
		{"a LID that does not fit", floorText(map[int]string{6: `Switch	64 "S-0002c90000000002"		# "leaf01" enhanced port 0 lid 99999999999999999999 lmc 0`}),
			"line 6: lid 99999999999999999999 does not fit in 16 bits"},
		{"a device ID that does not fit", floorText(map[int]string{5: "devid=0x1ffffffff\nswitchguid=0x0002c90000000002"}),
			`line 5: devid="0x1ffffffff" is not a 32-bit number`},
		{"a port GUID that does not fit", floorText(map[int]string{12: `[1](1a2b3c4d5e6f7a8b9c)	"S-0002c90000000002"[1]		# lid 3 lmc 0 "leaf01" lid 2 4xNDR`}),
			"line 12: port GUID 1a2b3c4d5e6f7a8b9c"},
	} {
		_, err := ParseTopology(c.text)
		_, refusal := TopologyProblems(err)
		if refusal == nil || !strings.Contains(refusal.Error(), c.want) {
			t.Errorf("%s: %v\nwant %q", c.name, err, c.want)
			continue
		}
		if n := strings.Count(refusal.Error(), "\n- "); n != 1 {
			t.Errorf("%s: %d problems for one cause:\n%v", c.name, n, refusal)
		}
	}
}

// A text of many bad lines makes a bounded message, counting what it leaves out (issue 32: 20 MB
// of unreadable lines made a warning of 328 MB).
func TestParseTopologyProblemsBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&b, "garbage line %d\n", i)
	}
	b.WriteString(floorText(map[int]string{8: `[80]	"S-0002c90000000001"[1]`}))
	unparsed, refusal := TopologyProblems(func() error { _, err := ParseTopology(b.String()); return err }())
	if unparsed == nil || len(unparsed.Error()) > 4000 || !strings.HasSuffix(unparsed.Error(), "; and 99980 more lines") {
		t.Errorf("unparsed (%d bytes): ...%s", len(fmt.Sprint(unparsed)), fmt.Sprint(unparsed)[max(0, len(fmt.Sprint(unparsed))-200):])
	}
	if refusal == nil || !strings.Contains(refusal.Error(), "line 100008: port [80]") {
		t.Errorf("refusal: %v", refusal)
	}
}
