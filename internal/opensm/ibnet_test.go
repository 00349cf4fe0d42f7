package opensm

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// capturedSpec declares the fabric of testdata/ibnetdiscover-2leaf.txt, which ibnetdiscover
// printed on ibsim: spine01 over leaf01 and leaf02, two single-HCA hosts on each leaf.
func capturedSpec() *fabric.Spec {
	s := &fabric.Spec{Switches: []fabric.Switch{
		{Name: "spine01", Model: "QM9700", GUID: "0x0002c90000001001"},
		{Name: "leaf01", Model: "QM9700", GUID: "0x0002c90000000001"},
		{Name: "leaf02", Model: "QM9700", GUID: "0x0002c90000000002"},
	}}
	for i := 0; i < 4; i++ {
		host := fmt.Sprintf("gpu%03d", i+1)
		s.Nodes = append(s.Nodes, fabric.Node{Name: host, Model: "DGX-H100"})
		s.HCAs = append(s.HCAs, fabric.HCA{Name: host + "/mlx5_0", Node: host, Device: "mlx5_0", Rail: 0, PortGUID: fmt.Sprintf("0x%016x", 0xa00001+0x10*i)})
		s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: host + "/mlx5_0", Port: 1}, B: fabric.End{Device: fmt.Sprintf("leaf%02d", i/2+1), Port: i%2 + 1}})
	}
	s.Cables = append(s.Cables,
		fabric.Cable{A: fabric.End{Device: "leaf01", Port: 3}, B: fabric.End{Device: "spine01", Port: 1}},
		fabric.Cable{A: fabric.End{Device: "leaf02", Port: 3}, B: fabric.End{Device: "spine01", Port: 2}})
	return s
}

func TestParseTopologyCaptured(t *testing.T) {
	d, err := ParseTopology(readTestdata(t, "ibnetdiscover-2leaf.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Nodes) != 7 || len(d.Links) != 6 {
		t.Fatalf("%d nodes, %d links; want 7, 6", len(d.Nodes), len(d.Links))
	}
	leaf02 := d.Nodes[0]
	if leaf02.Kind != NodeSwitch || leaf02.ID != "S-0002c90000000002" || leaf02.GUID != 0x0002c90000000002 || leaf02.Desc != "leaf02" || leaf02.Ports != 64 || leaf02.LID != 4 {
		t.Errorf("first node: %+v", leaf02)
	}
	var ca *DiscoveredNode
	for i := range d.Nodes {
		if d.Nodes[i].Desc == "gpu004 mlx5_0" {
			ca = &d.Nodes[i]
		}
	}
	if ca == nil || ca.Kind != NodeCA || ca.GUID != 0xa00030 || ca.PortGUIDs[1] != 0xa00031 || ca.LID != 7 {
		t.Fatalf("gpu004: %+v", ca)
	}
	for _, l := range d.Links {
		if l.Width != "4x" || l.Speed != "HDR" {
			t.Errorf("link %+v: want 4xHDR", l)
		}
	}
	rep := DriftWith(buildGraph(t, capturedSpec()), d, DriftOptions{Simulated: true})
	if !rep.Clean() {
		t.Fatalf("captured fabric drifts from its declaration:\n%s", rep)
	}
}

func TestExpectedTopologyRoundTrip(t *testing.T) {
	g := buildGraph(t, fatTreeSpec(4, 2, 16))
	text := ExpectedTopology(g)
	if text != ExpectedTopology(g) {
		t.Fatal("ExpectedTopology is not deterministic")
	}
	for _, want := range []string{
		"switchguid=0x0002c90300001001\nSwitch\t64 \"spine01\"\n[1]\t\"leaf01\"[17]\t\t# lid 0 4xHDR\n",
		// HCA 0 has port GUID ...100001, so its ibsim node GUID is ...100000.
		"caguid=0x0002c90300100000\nCa\t1 \"gpu001 mlx5_0\"\n[1]\t\"leaf01\"[1]\t\t# lid 0 4xHDR\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("expected topology lacks %q", want)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if len(line) >= 255 {
			t.Errorf("line longer than ibsim's 256-byte buffer: %q", line)
		}
	}
	d, err := ParseTopology(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Nodes) != len(g.Devices) || len(d.Links) != len(g.Links) {
		t.Fatalf("%d nodes %d links, want %d %d", len(d.Nodes), len(d.Links), len(g.Devices), len(g.Links))
	}
	for _, n := range d.Nodes {
		if n.Kind == NodeCA && d.PortGUID(PortRef{0, 1}) == 0 {
			t.Fatal("no port GUID")
		}
	}
	if rep := DriftWith(g, d, DriftOptions{Simulated: true}); !rep.Clean() {
		t.Fatalf("expected topology drifts from its own graph:\n%s", rep)
	}
}

func TestExpectedTopologyWithoutGUIDs(t *testing.T) {
	s := fatTreeSpec(2, 2, 4)
	for i := range s.Switches {
		s.Switches[i].GUID = ""
	}
	for i := range s.HCAs {
		s.HCAs[i].PortGUID = ""
	}
	g := buildGraph(t, s)
	d, err := ParseTopology(ExpectedTopology(g))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[GUID]bool{}
	for _, n := range d.Nodes {
		if n.GUID == 0 || seen[n.GUID] || n.GUID>>56 != 0x02 {
			t.Fatalf("derived GUIDs must be unique, non-zero, locally administered: %s", n.GUID)
		}
		seen[n.GUID] = true
	}
	// Devices without GUIDs are matched by their descriptions.
	if rep := DriftWith(g, d, DriftOptions{Simulated: true}); !rep.Clean() {
		t.Fatalf("drift:\n%s", rep)
	}
}

func discovered(t *testing.T, s *fabric.Spec) *Discovered {
	t.Helper()
	d, err := ParseTopology(ExpectedTopology(buildGraph(t, s)))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDrift(t *testing.T) {
	declared := buildGraph(t, fatTreeSpec(2, 2, 4))
	drift := func(d *Discovered) Report { return DriftWith(declared, d, DriftOptions{Simulated: true}) }

	t.Run("miswired", func(t *testing.T) {
		s := fatTreeSpec(2, 2, 4)
		s.Cables[0].B.Port, s.Cables[1].B.Port = 2, 1 // HCAs 0 and 1 swapped on leaf01
		r := drift(discovered(t, s))
		if len(r.Miswired) != 2 || len(r.Missing)+len(r.Unexpected)+len(r.Degraded)+len(r.UnknownGUIDs) != 0 {
			t.Fatalf("report:\n%s", r)
		}
		want := "miswired: declared gpu001/mlx5_0[1] <-> leaf01[1], but gpu001/mlx5_0[1] goes to leaf01[2] and leaf01[1] goes to gpu001/mlx5_1[1]"
		if r.Lines()[0] != want {
			t.Fatalf("got  %s\nwant %s", r.Lines()[0], want)
		}
	})
	t.Run("unexpected", func(t *testing.T) {
		s := fatTreeSpec(2, 2, 4)
		s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: "leaf01", Port: 40}, B: fabric.End{Device: "leaf02", Port: 40}})
		r := drift(discovered(t, s))
		if got := r.Lines(); len(got) != 1 || got[0] != "unexpected link: leaf01[40] <-> leaf02[40]" {
			t.Fatalf("report:\n%s", r)
		}
	})
	t.Run("degraded", func(t *testing.T) {
		text := ExpectedTopology(declared)
		text = strings.Replace(text, "[5]\t\"spine01\"[1]\t\t# lid 0 4xHDR", "[5]\t\"spine01\"[1]\t\t# lid 0 4xEDR", 1)
		text = strings.Replace(text, "[1]\t\"leaf01\"[5]\t\t# lid 0 4xHDR", "[1]\t\"leaf01\"[5]\t\t# lid 0 4xEDR", 1)
		text = strings.Replace(text, "[2]\t\"leaf01\"[6]\t\t# lid 0 4xHDR", "[2]\t\"leaf01\"[6]\t\t# lid 0 1xHDR", 1)
		d, err := ParseTopology(text)
		if err != nil {
			t.Fatal(err)
		}
		r := drift(d)
		if len(r.Degraded) != 2 || !r.Degraded[0].matches("4xHDR", "4xEDR") || !r.Degraded[1].matches("4xHDR", "1xHDR") || len(r.Lines()) != 2 {
			t.Fatalf("report:\n%s", r)
		}
	})
	t.Run("replaced HCA", func(t *testing.T) {
		s := fatTreeSpec(2, 2, 4)
		s.HCAs[2].PortGUID = "0x0002c903deadbee1"
		r := drift(discovered(t, s))
		if len(r.UnknownGUIDs) != 1 || len(r.Lines()) != 1 {
			t.Fatalf("report:\n%s", r)
		}
		g := r.UnknownGUIDs[0]
		if g.Device != "gpu001/mlx5_2" || g.Declared != hcaGUID(2) || g.Found != 0x0002c903deadbee1 {
			t.Fatalf("guid drift %+v", g)
		}
	})
	t.Run("unknown device", func(t *testing.T) {
		s := fatTreeSpec(2, 2, 4)
		s.Nodes = append(s.Nodes, fabric.Node{Name: "rogue", Model: "DGX-H100"})
		s.HCAs = append(s.HCAs, fabric.HCA{Name: "rogue/mlx5_0", Node: "rogue", Device: "mlx5_0", PortGUID: "0x0000000000bad001"})
		s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: "rogue/mlx5_0", Port: 1}, B: fabric.End{Device: "leaf01", Port: 41}})
		r := drift(discovered(t, s))
		want := []string{
			`unexpected link: leaf01[41] <-> undeclared "rogue mlx5_0" (0x0000000000bad001)[1]`,
			`guid: unknown GUID 0x0000000000bad001 ("rogue mlx5_0") is on the fabric`,
		}
		if strings.Join(r.Lines(), "\n") != strings.Join(want, "\n") {
			t.Fatalf("report:\n%s\nwant:\n%s", r, strings.Join(want, "\n"))
		}
	})
	t.Run("missing device", func(t *testing.T) {
		s := fatTreeSpec(2, 2, 4)
		s.Cables = s.Cables[1:] // gpu001/mlx5_0 is uncabled, so ibnetdiscover cannot see it
		r := drift(discovered(t, s))
		want := "missing device: gpu001/mlx5_0\nmissing link: gpu001/mlx5_0[1] <-> leaf01[1]"
		if r.String() != want {
			t.Fatalf("report:\n%s\nwant:\n%s", r, want)
		}
	})
	t.Run("real speeds", func(t *testing.T) {
		// Without the simulator option a 400G link must run at 4xNDR.
		text := strings.ReplaceAll(ExpectedTopology(declared), "4xHDR", "4xNDR")
		d, err := ParseTopology(text)
		if err != nil {
			t.Fatal(err)
		}
		if r := DriftWith(declared, d, DriftOptions{}); !r.Clean() {
			t.Fatalf("report:\n%s", r)
		}
	})
}

func (l LinkDrift) matches(want, got string) bool { return l.Want == want && l.Got == got }

func TestParseTopologyRealFormats(t *testing.T) {
	text := `#
# Topology file: generated on Sun Nov 29 15:32:57 2026
#
vendid=0x2c9
devid=0xd2f0
sysimgguid=0xb83fd20300a1b2c3
switchguid=0xb83fd20300a1b2c3(b83fd20300a1b2c3)
Switch	65 "S-b83fd20300a1b2c3"		# "MF0;leaf01:MQM9700/U1" enhanced port 0 lid 12 lmc 0
[1]	"H-a088c20300112233"[1](a088c20300112233) 		# "gpu001 mlx5_0" lid 40 4xNDR
[2]	"H-a088c20300445566"[1](a088c20300445566) 		# "gpu002 mlx5_0" lid 41 2xNDR

vendid=0x2c9
devid=0x1021
sysimgguid=0xa088c20300112233
caguid=0xa088c20300112233
Ca	1 "H-a088c20300112233"		# "gpu001 mlx5_0"
[1](a088c20300112233) 	"S-b83fd20300a1b2c3"[1]		# lid 40 lmc 0 "MF0;leaf01:MQM9700/U1" lid 12 4xNDR

caguid=0xa088c20300445566
Ca	1 "H-a088c20300445566"		# "gpu002 mlx5_0"
[1](a088c20300445566) 	"S-b83fd20300a1b2c3"[2]		# lid 41 lmc 0 "MF0;leaf01:MQM9700/U1" lid 12 2xNDR
`
	d, err := ParseTopology(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 2 || d.Links[0].Speed != "NDR" || d.Links[1].Width != "2x" {
		t.Fatalf("links %+v", d.Links)
	}
	// vendid=/devid= belong to the node after them; a node without them has none.
	for i, want := range [][2]uint32{{0x2c9, 0xd2f0}, {0x2c9, 0x1021}, {0, 0}} {
		if n := d.Nodes[i]; n.VendorID != want[0] || n.DeviceID != want[1] {
			t.Errorf("node %s: vendid 0x%x devid 0x%x, want 0x%x 0x%x", n.Desc, n.VendorID, n.DeviceID, want[0], want[1])
		}
	}
	// Real mlx5 port GUIDs equal the node GUID: the listed port GUID wins over node+port.
	if g := d.PortGUID(PortRef{1, 1}); g != 0xa088c20300112233 {
		t.Fatalf("port GUID %s", g)
	}
	s := &fabric.Spec{Switches: []fabric.Switch{{Name: "leaf01", Model: "QM9700"}}}
	for i, guid := range []string{"0xa088c20300112233", "0xa088c20300445566"} {
		host := fmt.Sprintf("gpu%03d", i+1)
		s.Nodes = append(s.Nodes, fabric.Node{Name: host, Model: "DGX-H100"})
		s.HCAs = append(s.HCAs, fabric.HCA{Name: host + "/mlx5_0", Node: host, Device: "mlx5_0", PortGUID: guid})
		s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: host + "/mlx5_0", Port: 1}, B: fabric.End{Device: "leaf01", Port: i + 1}})
	}
	r := DriftWith(buildGraph(t, s), d, DriftOptions{})
	// leaf01 has no declared GUID and is recognised by its managed-switch description.
	if got := r.Lines(); len(got) != 1 || got[0] != "degraded link: leaf01[2] <-> gpu002/mlx5_0[1] runs at 2xNDR, declared 4xNDR" {
		t.Fatalf("report:\n%s", r)
	}
}

func TestParseTopologyErrors(t *testing.T) {
	if _, err := ParseTopology("devid=0xzz\nswitchguid=0x1\nSwitch 8 \"sw\"\n"); err == nil || !strings.Contains(err.Error(), "line 1: devid") {
		t.Errorf("a bad devid: %v", err)
	}
	_, err := ParseTopology("Switch 8 \"sw\"\n[1] \"nowhere\"[1] # lid 0 4xHDR\nwhat is this\n")
	if err == nil || !strings.Contains(err.Error(), "no GUID") || !strings.Contains(err.Error(), "not in the text") || !strings.Contains(err.Error(), "line 3") {
		t.Fatalf("errors: %v", err)
	}
}

// FuzzParseTopology fuzzes the floor text with issue 32's properties: it never panics; a text
// it does not refuse is one fabric (every node with 1 to 255 ports, every cable on ports its nodes
// have, no port on two cables or on itself); and one read without a word says the same when
// written back out by a writer of this test's own and read again: no cable, port, description or
// speed is lost or changed between the text and what it read. The seeds run in `go test`.
func FuzzParseTopology(f *testing.F) {
	f.Add("switchguid=0x1\nSwitch 8 \"a\"\n[1] \"b\"[1] # lid 0 4xHDR\n\ncaguid=0x10\nCa 1 \"b\"\n[1](11) \"a\"[1] # lid 1 lmc 0 \"a\" lid 2 4xHDR\n")
	f.Add("Switch\t65 \"S-b83fd20300a1b2c3\"\t\t# \"x\" enhanced port 0 lid 12 lmc 0\n[1]\t\"H-0\"[1](0)")
	f.Add(floorText(nil))
	f.Add(floorText(nil, "", "switchguid=0x0002c90000000003", `Switch	64 "S-0002c90000000003"		# "leaf02" enhanced port 0 lid 4 lmc 0`,
		`[1]	"H-0000000000a00000"[1]		# "gpu001 mlx5_0" lid 3 4xNDR`))
	f.Add(floorText(map[int]string{8: `[99999999999999999999]	"S-0002c90000000001"[1]`}))
	f.Add(floorText(map[int]string{2: `Switch	64 "S-0002c90000000001"		# "spi"ne01" enhanced port 0 lid 1 lmc 0`}))
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseTopology(s)
		for _, l := range d.Links {
			_ = d.PortGUID(l.A)
			_ = d.PortGUID(l.B)
		}
		unparsed, refusal := TopologyProblems(err)
		if refusal != nil {
			return
		}
		on := map[PortRef]bool{}
		for _, n := range d.Nodes {
			if n.Ports < 1 || n.Ports > 255 {
				t.Fatalf("node %q with %d ports accepted", n.ID, n.Ports)
			}
		}
		for _, l := range d.Links {
			for _, e := range []PortRef{l.A, l.B} {
				if e.Port < 1 || e.Port > d.Nodes[e.Node].Ports {
					t.Fatalf("a cable on port %d of %q (%d ports) accepted", e.Port, d.Nodes[e.Node].ID, d.Nodes[e.Node].Ports)
				}
				if on[e] {
					t.Fatalf("port %d of %q on two cables accepted", e.Port, d.Nodes[e.Node].ID)
				}
				on[e] = true
			}
			if l.A == l.B {
				t.Fatalf("a port cabled to itself accepted")
			}
		}
		if unparsed != nil {
			return
		}
		// Written back by a writer of this test's own, and read again: the same fabric.
		again, err := ParseTopology(writeDiscovered(d))
		if err != nil {
			t.Fatalf("its own fabric written back is refused: %v\n%s", err, writeDiscovered(d))
		}
		if got, want := linkSet(again), linkSet(d); !reflect.DeepEqual(got, want) {
			t.Fatalf("links changed by a round trip:\n got %v\nwant %v", got, want)
		}
		for i, n := range d.Nodes {
			m := again.Nodes[i]
			if m.ID != n.ID || m.Desc != n.Desc || m.Ports != n.Ports || m.Kind != n.Kind || m.GUID != n.GUID {
				t.Fatalf("node changed by a round trip: %+v, then %+v", n, m)
			}
		}
	})
}

// writeDiscovered writes a parsed fabric in ibnetdiscover's format, every cable from both ends.
func writeDiscovered(d *Discovered) string {
	type line struct {
		port int
		text string
	}
	ports := make([][]line, len(d.Nodes))
	for _, l := range d.Links {
		speed := ""
		if l.Width != "" || l.Speed != "" {
			speed = " " + l.Width + l.Speed
		}
		for _, e := range [2][2]PortRef{{l.A, l.B}, {l.B, l.A}} {
			peer := d.Nodes[e[1].Node]
			ports[e[0].Node] = append(ports[e[0].Node], line{e[0].Port, fmt.Sprintf("[%d]\t\"%s\"[%d]\t\t# \"%s\" lid 0%s", e[0].Port, peer.ID, e[1].Port, peer.Desc, speed)})
		}
	}
	var b strings.Builder
	for i, n := range d.Nodes {
		fmt.Fprintf(&b, "\nswitchguid=%s\n%s\t%d \"%s\"\t\t# \"%s\"\n", n.GUID, n.Kind, n.Ports, n.ID, n.Desc)
		sort.Slice(ports[i], func(a, c int) bool { return ports[i][a].port < ports[i][c].port })
		for _, p := range ports[i] {
			b.WriteString(p.text + "\n")
		}
	}
	return b.String()
}

// linkSet is each link by its ends' node ids and ports, with its width and speed.
func linkSet(d *Discovered) map[string]bool {
	out := map[string]bool{}
	for _, l := range d.Links {
		a := fmt.Sprintf("%s[%d]", d.Nodes[l.A.Node].ID, l.A.Port)
		b := fmt.Sprintf("%s[%d]", d.Nodes[l.B.Node].ID, l.B.Port)
		if b < a {
			a, b = b, a
		}
		out[a+" <-> "+b+" "+l.Width+l.Speed] = true
	}
	return out
}
