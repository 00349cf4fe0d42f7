package asbuilt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

func readFloor(t testing.TB, h handFloor, simulated bool) *Floor {
	t.Helper()
	d, err := opensm.ParseTopology(h.net())
	if err != nil {
		t.Fatal(err)
	}
	nm, err := opensm.ParseNodeNameMap(h.nodeNameMap())
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(d, ReadOptions{NodeNameMap: nm, Simulated: simulated})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The issue's floor read back: every device, GUID, model and cable as the hand-built net file
// has it, checked against the floor's own description (handFloor), not against Read.
func TestReadHandBuiltFloor(t *testing.T) {
	h := issueFloor()
	f := readFloor(t, h, true)
	s := f.Spec
	if len(s.Switches) != 24 || len(s.Nodes) != 64 || len(s.HCAs) != 512 || len(s.Cables) != 1023 || len(s.Racks) != 0 {
		t.Fatalf("%d switches, %d nodes, %d HCAs, %d cables, %d racks; want 24, 64, 512, 1023 (one uplink dead), 0",
			len(s.Switches), len(s.Nodes), len(s.HCAs), len(s.Cables), len(s.Racks))
	}
	sw := map[string]fabric.Switch{}
	for _, x := range s.Switches {
		sw[x.Name] = x
		if x.Model != "QM9700" || x.Rack != "" || x.Role != "" || x.Key != x.Name {
			t.Errorf("switch %+v: want model QM9700 (named by its description), no rack, no role, keyed by name", x)
		}
	}
	for l := 1; l <= 16; l++ {
		name := fmt.Sprintf("ib-leaf-%02d", l)
		if g := sw[name].GUID; g != fmt.Sprintf("0x%016x", h.leafGUID(l)) {
			t.Errorf("%s GUID %q", name, g)
		}
	}
	for sp := 1; sp <= 8; sp++ { // named by the node name map, not by their descriptions
		name := h.spineName(sp)
		if g := sw[name].GUID; g != fmt.Sprintf("0x%016x", h.spineGUID(sp)) {
			t.Errorf("%s GUID %q (switches %v)", name, g, keysOfSwitches(sw))
		}
	}
	hcas := map[string]fabric.HCA{}
	for _, x := range s.HCAs {
		hcas[x.Name] = x
	}
	for su := 0; su < 2; su++ {
		for j := 1; j <= 32; j++ {
			for r, dev := range dgxDevices {
				x := hcas[h.host(su, j)+"/"+dev]
				// ibsim gives port p of a CA the GUID node + p.
				if x.Node != h.host(su, j) || x.Device != dev || x.PortGUID != fmt.Sprintf("0x%016x", h.hcaGUID(su, j, r)+1) || x.Model != "" || x.Rail != -1 {
					t.Fatalf("HCA %s/%s: %+v", h.host(su, j), dev, x)
				}
			}
		}
	}
	for _, n := range s.Nodes {
		if n.Model != "DGX-H100" || n.ComputeHCAs != 0 {
			t.Errorf("node %+v: want DGX-H100 with the model's HCAs", n)
		}
	}
	// Cables: keyed by the lower-tier end; an HCA's cable on port 32+j of its rail's leaf.
	byKey := map[string]fabric.Cable{}
	for i, c := range s.Cables {
		byKey[c.Key] = c
		if c.Key != c.A.String() {
			t.Errorf("cable %s keyed %q", c.Label(), c.Key)
		}
		if l := f.Links[i]; l.Width != "4x" || l.Speed != "NDR" {
			t.Errorf("cable %s at %s%s; ibsim's 4xHDR should read as 4xNDR", c.Label(), l.Width, l.Speed)
		}
	}
	c := byKey["hgx-b017/mlx5_0:1"]
	if c.B != (fabric.End{Device: "ib-leaf-10", Port: 49}) {
		t.Errorf("the swapped HCA's cable: %s; want it on the rail-1 leaf ib-leaf-10:49", c.Label())
	}
	c = byKey["ib-leaf-12:5"]
	if c.B != (fabric.End{Device: "ib-spine-02", Port: 45}) {
		t.Errorf("ib-leaf-12:5 goes to %s; want ib-spine-02:45", c.B)
	}
	if _, ok := byKey["ib-leaf-12:6"]; ok {
		t.Error("the dead uplink ib-leaf-12:6 was read")
	}
	// Each note once; the location note says what is not checked.
	seen := map[string]bool{}
	loc := 0
	for _, n := range f.Notes {
		if seen[n] {
			t.Errorf("note twice: %s", n)
		}
		seen[n] = true
		if strings.HasPrefix(n, "location unknown for 24 switches and 64 nodes: cable reach and rack power are not checked") {
			loc++
		}
	}
	if loc != 1 {
		t.Errorf("location note %d times in %q", loc, f.Notes)
	}
	// The floor as read is a fabric the provider builds.
	if _, probs := fabric.Build(s, catalog.Default()); hasErrors(probs) {
		t.Fatalf("the floor does not build: %v", probs)
	}
}

func keysOfSwitches(m map[string]fabric.Switch) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func hasErrors(ps []fabric.Problem) bool {
	for _, p := range ps {
		if p.Severity == fabric.Error {
			return true
		}
	}
	return false
}

// Without simulated, ibsim's 4xHDR is what it says: below NDR, and said once.
func TestReadNotSimulated(t *testing.T) {
	f := readFloor(t, handFloor{sus: 1}, false)
	if f.Links[0].Speed != "HDR" {
		t.Fatalf("speed %q", f.Links[0].Speed)
	}
	n := 0
	for _, s := range f.Notes {
		if strings.HasPrefix(s, "links below 4xNDR: ") && strings.HasSuffix(s, fmt.Sprintf(" and %d more", len(f.Links)-5)) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("notes %q", f.Notes)
	}
}

const realText = `
vendid=0x2c9
devid=0xd2f2
switchguid=0xb83fd20300a1b2c3(b83fd20300a1b2c3)
Switch	64 "S-b83fd20300a1b2c3"		# "MF0;leaf01:MQM9790/U1" enhanced port 0 lid 12 lmc 0
[1]	"H-a088c20300112233"[1](a088c20300112233) 		# "gpu001 mlx5_0" lid 40 4xNDR
[2]	"H-a088c20300445566"[1](a088c20300445566) 		# "gpu002 mlx5_0" lid 41 4xNDR
[3]	"S-b83fd20300a1b2c4"[1]		# "quantum2" lid 13 4xNDR
[4]	"S-0002c90300000001"[1]		# "old-hdr" lid 14 4xHDR

vendid=0x2c9
devid=0xd2f2
switchguid=0xb83fd20300a1b2c4(b83fd20300a1b2c4)
Switch	64 "S-b83fd20300a1b2c4"		# "quantum2" enhanced port 0 lid 13 lmc 0
[1]	"S-b83fd20300a1b2c3"[3]		# "MF0;leaf01:MQM9790/U1" lid 12 4xNDR

vendid=0x2c9
devid=0xd2f0
switchguid=0x0002c90300000001(0002c90300000001)
Switch	40 "S-0002c90300000001"		# "old-hdr" enhanced port 0 lid 14 lmc 0
[1]	"S-b83fd20300a1b2c3"[4]		# "MF0;leaf01:MQM9790/U1" lid 12 4xHDR

vendid=0x2c9
devid=0x1021
caguid=0xa088c20300112233
Ca	1 "H-a088c20300112233"		# "gpu001 mlx5_0"
[1](a088c20300112233) 	"S-b83fd20300a1b2c3"[1]		# lid 40 lmc 0 "MF0;leaf01:MQM9790/U1" lid 12 4xNDR

vendid=0x2c9
devid=0x1021
caguid=0xa088c20300445566
Ca	2 "H-a088c20300445566"		# "gpu002 mlx5_0"
[1](a088c20300445566) 	"S-b83fd20300a1b2c3"[2]		# lid 41 lmc 0 "MF0;leaf01:MQM9790/U1" lid 12 4xNDR
`

// Models from the description's part, the device ID and the port count; a real mlx5 port GUID
// (equal to the node GUID) as listed.
func TestReadModels(t *testing.T) {
	d, err := opensm.ParseTopology(realText)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(d, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	model := map[string]string{}
	for _, s := range f.Spec.Switches {
		model[s.Name] = s.Model
	}
	for _, n := range f.Spec.Nodes {
		model[n.Name] = n.Model
	}
	for _, h := range f.Spec.HCAs {
		model[h.Name] = h.Model
		if h.Name == "gpu001/mlx5_0" && h.PortGUID != "0xa088c20300112233" {
			t.Errorf("real port GUID: %s", h.PortGUID)
		}
	}
	want := map[string]string{
		"leaf01":        "QM9790",          // the part its description names
		"quantum2":      "QM9700",          // Quantum-2 device ID, 64 ports: the default of two, said
		"old-hdr":       "unknown-40-port", // a Quantum HDR switch: no catalog model, said
		"gpu001":        "DGX-H100",        // one OSFP ConnectX-7: the default node of two, said
		"gpu001/mlx5_0": "",                // the node model's own HCA
		"gpu002":        "unknown-1-hca-node",
		"gpu002/mlx5_0": "ConnectX-7-QSFP112", // 2 ports, device ID 0x1021
	}
	for k, v := range want {
		if model[k] != v {
			t.Errorf("%s: model %q, want %q", k, model[k], v)
		}
	}
	notes := strings.Join(f.Notes, "\n")
	for _, s := range []string{
		"1 switch(es) with 64 ports (device ID 0xd2f2, Quantum-2) name no model; taken as QM9700",
		"1 switch(es) with 40 ports (device ID 0xd2f0, Quantum) match no catalog model: model \"unknown-40-port\"",
		"1 host(s) with 1 ConnectX-7-QSFP112 HCA(s) match no catalog node model",
		"links below 4xNDR: leaf01:4 <-> old-hdr:1 at 4xHDR",
	} {
		if !strings.Contains(notes, s) {
			t.Errorf("no note %q in\n%s", s, notes)
		}
	}
}

// The node name map wins where it names a GUID: a switch by node GUID, a CA by node or port
// GUID. Bad and colliding names are errors naming every GUID at fault, all at once.
func TestReadNames(t *testing.T) {
	d, err := opensm.ParseTopology(realText)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Read(d, ReadOptions{NodeNameMap: map[opensm.GUID]string{
		0xb83fd20300a1b2c4: "spine-a",
		0xa088c20300445566: "hgx-z009 mlx5_7", // a CA by its node GUID (= its port 1 GUID here)
	}})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, s := range f.Spec.Switches {
		names[s.Name] = true
	}
	for _, h := range f.Spec.HCAs {
		names[h.Name] = true
	}
	for _, n := range []string{"leaf01", "spine-a", "old-hdr", "gpu001/mlx5_0", "hgx-z009/mlx5_7"} {
		if !names[n] {
			t.Errorf("no %s in %v", n, names)
		}
	}

	for _, c := range []struct {
		nm   map[opensm.GUID]string
		want []string
	}{
		{map[opensm.GUID]string{0xb83fd20300a1b2c4: "spine a"}, []string{`switch 0xb83fd20300a1b2c4 is named by the node name map "spine a": "spine a" holds a space`}},
		{map[opensm.GUID]string{0xb83fd20300a1b2c4: "leaf01"}, []string{`switches 0xb83fd20300a1b2c3 (described as "leaf01") and 0xb83fd20300a1b2c4 (named by the node name map "leaf01") are both named "leaf01"`}},
		{map[opensm.GUID]string{0xa088c20300445566: "gpu001 mlx5_0"}, []string{"CAs 0xa088c20300112233", "and 0xa088c20300445566", "are both HCA gpu001/mlx5_0"}},
		{map[opensm.GUID]string{0xa088c20300112233: "MT4129 ConnectX7 Mellanox", 0x0002c90300000001: "-x"}, []string{
			`CA 0xa088c20300112233 is named by the node name map "MT4129 ConnectX7 Mellanox", not "<host> <device>"`,
			`switch 0x0002c90300000001 is named by the node name map "-x": "-x" starts with '-'`}},
	} {
		_, err := Read(d, ReadOptions{NodeNameMap: c.nm})
		if err == nil {
			t.Errorf("%v: no error", c.nm)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error\n%v\nlacks %q", c.nm, err, w)
			}
		}
		if !strings.Contains(err.Error(), "node_name_map") {
			t.Errorf("the error does not say how to fix it: %v", err)
		}
	}
}
