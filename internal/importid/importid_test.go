package importid

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

func TestParse(t *testing.T) {
	name, kv, err := Parse(" r01 , row = 1,units=48 ,power_kw=", "row", "units", "power_kw")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"row": "1", "units": "48", "power_kw": ""}; name != "r01" || !reflect.DeepEqual(kv, want) {
		t.Errorf("%q %v, want r01 %v", name, kv, want)
	}
	for id, msg := range map[string]string{
		",row=1":       `import ID ",row=1" has no name; write it as NAME[,ATTR=VALUE...]`,
		"r01,row":      `import ID "r01,row": "row" is not ATTR=VALUE`,
		"r01,=1":       `import ID "r01,=1": "=1" is not ATTR=VALUE`,
		"r01,colour=1": `import ID "r01,colour=1": unknown attribute "colour"; valid: position, row`,
	} {
		if _, _, err := Parse(id, "row", "position"); err == nil || err.Error() != msg {
			t.Errorf("%q: %v, want %s", id, err, msg)
		}
	}
}

func TestRequire(t *testing.T) {
	if err := Require("n,a=1", map[string]string{"a": "1"}, "N,a=A,b=B", "a"); err != nil {
		t.Errorf("a present: %v", err)
	}
	err := Require("n,b=", map[string]string{"b": ""}, "N,a=A,b=B,c=C", "a", "b", "c")
	if want := `import ID "n,b=" needs a and b and c: N,a=A,b=B,c=C`; err == nil || err.Error() != want {
		t.Errorf("%v, want %s", err, want)
	}
}

func TestNumbers(t *testing.T) {
	kv := map[string]string{"n": "12", "bad": "1.5", "f": "1.5", "nan": "x"}
	if n, set, err := Int(kv, "n"); n != 12 || !set || err != nil {
		t.Errorf("Int n: %d %v %v", n, set, err)
	}
	if _, set, err := Int(kv, "absent"); set || err != nil {
		t.Errorf("Int absent: %v %v", set, err)
	}
	if _, _, err := Int(kv, "bad"); err == nil || err.Error() != `bad="1.5" is not a whole number` {
		t.Errorf("Int bad: %v", err)
	}
	if f, set, err := Float(kv, "f"); f != 1.5 || !set || err != nil {
		t.Errorf("Float f: %g %v %v", f, set, err)
	}
	if _, _, err := Float(kv, "nan"); err == nil || err.Error() != `nan="x" is not a number` {
		t.Errorf("Float nan: %v", err)
	}
	if String(kv, "absent") != nil || *String(kv, "n") != "12" {
		t.Error("String: a set key is its value, an absent one nil")
	}
}

func TestParseRack(t *testing.T) {
	r, err := ParseRack("r01,row=2,position=3")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Rack{Name: "r01", Row: 2, Position: 3, Units: fabric.DefaultRackUnits}); !reflect.DeepEqual(r, want) {
		t.Errorf("%+v, want %+v", r, want)
	}
	r, err = ParseRack("r01,row=2,position=3,units=42,power_kw=40.5")
	if err != nil || r.Units != 42 || r.PowerKW == nil || *r.PowerKW != 40.5 {
		t.Errorf("%+v %v: want units 42, power_kw 40.5", r, err)
	}
	for id, msg := range map[string]string{
		"r01,row=2":                         `import ID "r01,row=2" needs row and position: NAME,row=R,position=P[,units=U][,power_kw=K]`,
		"r01,row=2,position=x":              `position="x" is not a whole number`,
		"r01,row=2,position=3,units=4.5":    `units="4.5" is not a whole number`,
		"r01,row=2,position=3,power_kw=lot": `power_kw="lot" is not a number`,
	} {
		if _, err := ParseRack(id); err == nil || err.Error() != msg {
			t.Errorf("%q: %v, want %s", id, err, msg)
		}
	}
}

func TestParsePartition(t *testing.T) {
	p, errs := ParsePartition("compute,pkey=0x7ffe,members=gpu001/mlx5_0;SELF=limited,ipoib=true,mtu=4096,sl=3")
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	mtu := int64(4096)
	want := Partition{Name: "compute", PKey: "0x7ffe", IPoIB: true, MTU: &mtu, SL: 3, Members: []fabric.Member{
		{HCA: "gpu001/mlx5_0", Membership: "full"}, {GUID: "SELF", Membership: "limited"},
	}}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("%+v, want %+v", p, want)
	}
	for id, k := range map[string]uint16{"tenant,ufm=0x0150": 0x150, "t,ufm=0X7FFE": 0x7ffe, "t,ufm=0x1": 1} {
		p, errs := ParsePartition(id)
		if len(errs) > 0 || p.UFM != k || p.Name != strings.Split(id, ",")[0] {
			t.Errorf("%q: %+v %v, want P_Key 0x%04x", id, p, errs, k)
		}
	}
	for id, msgs := range map[string][]string{
		"compute,pkey=0x1": {`import ID "compute,pkey=0x1" needs members: ` + PartitionSyntax +
			"; or, where UFM runs the subnet manager, NAME,ufm=0x0101 (a PKey the provider's ufm holds, 0x0001-0x7ffe)"},
		// a bare P_Key: the message shows both right forms
		"0x0150": {`import ID "0x0150" needs pkey and members: ` + PartitionSyntax +
			"; or, where UFM runs the subnet manager, " + PartitionUFMSyntax},
		"t,ufm=0x0150,pkey=0x0150": {`import ID "t,ufm=0x0150,pkey=0x0150": ufm= reads the PKey's members, flags and QoS from UFM and takes no other attribute: ` + PartitionUFMSyntax},
		"t,ufm=150":                {`import ID "t,ufm=150": ufm="150" is not a P_Key, 0x and 1 to 4 hex digits: ` + PartitionUFMSyntax},
		"t,ufm=0x10000":            {`import ID "t,ufm=0x10000": ufm="0x10000" is not a P_Key, 0x and 1 to 4 hex digits: ` + PartitionUFMSyntax},
		"t,ufm=0x7fff":             {`import ID "t,ufm=0x7fff": ufm=0x7fff is out of range: P_Keys are 0x0001-0x7ffe (0x7fff is UFM's management PKey, never imported; membership is per member, never the 0x8000 bit): ` + PartitionUFMSyntax},
		"t,ufm=0x8101":             {`import ID "t,ufm=0x8101": ufm=0x8101 is out of range: P_Keys are 0x0001-0x7ffe (0x7fff is UFM's management PKey, never imported; membership is per member, never the 0x8000 bit): ` + PartitionUFMSyntax},
		"t,ufm=0x0":                {`import ID "t,ufm=0x0": ufm=0x0 is out of range: P_Keys are 0x0001-0x7ffe (0x7fff is UFM's management PKey, never imported; membership is per member, never the 0x8000 bit): ` + PartitionUFMSyntax},
		"compute,pkey=0x1,members=ALL,ipoib=maybe": {`ipoib="maybe" is not true or false`},
		// every bad number and the member list, each once
		"compute,pkey=0x1,members=ALL=both,mtu=big,rate=1.5,sl=x": {
			`mtu="big" is not a whole number`, `rate="1.5" is not a whole number`, `sl="x" is not a whole number`,
			`member "ALL=both" is not MEMBER[=full|limited]: ` + PartitionSyntax,
		},
	} {
		_, errs := ParsePartition(id)
		var got []string
		for _, err := range errs {
			got = append(got, err.Error())
		}
		if !reflect.DeepEqual(got, msgs) {
			t.Errorf("%q:\n got %q\nwant %q", id, got, msgs)
		}
	}
}

func TestParseCable(t *testing.T) {
	c, err := ParseCable("leaf01:33<->gpu001/mlx5_0:1,kind=fiber-mm,length_m=4.2")
	if err != nil {
		t.Fatal(err)
	}
	if c.A != (fabric.End{Device: "leaf01", Port: 33}) || c.B != (fabric.End{Device: "gpu001/mlx5_0", Port: 1}) ||
		c.Kind == nil || *c.Kind != "fiber-mm" || c.LengthM == nil || *c.LengthM != 4.2 {
		t.Errorf("%+v", c)
	}
	if c, err := ParseCable("leaf01:33 <-> spine01:1"); err != nil || c.Kind != nil || c.LengthM != nil {
		t.Errorf("label alone: %+v %v", c, err)
	}
	if _, err := ParseCable("leaf01:33,kind=dac"); err == nil || !strings.HasSuffix(err.Error(), "; write it as "+cableSyntax) {
		t.Errorf("no label: %v", err)
	}
	if _, err := ParseCable("a:1 <-> b:2,length_m=far"); err == nil || err.Error() != `length_m="far" is not a number` {
		t.Errorf("bad length: %v", err)
	}
}

func TestCableIdentity(t *testing.T) {
	if a, b, err := CableIdentity("leaf01:33 <-> gpu001/mlx5_0:1"); err != nil || a.Port != 33 || b.Device != "gpu001/mlx5_0" {
		t.Errorf("%v %v %v", a, b, err)
	}
	_, _, err := CableIdentity("leaf01:1 <-> leaf01:2")
	if err == nil || !strings.HasPrefix(err.Error(), "both ends are on leaf01") || !strings.Contains(err.Error(), "; a cable's label is ") {
		t.Errorf("a loopback: %v", err)
	}
}

// TestFloorCable: what discovery gave is kept, what it left out is left to the fabric (nil, as
// an ID without kind or length), and the Cable does not alias the floor's.
func TestFloorCable(t *testing.T) {
	floor := fabric.Cable{A: fabric.End{Device: "leaf01", Port: 33}, B: fabric.End{Device: "gpu001/mlx5_0", Port: 1}, Kind: "dac", LengthM: 2}
	c := FloorCable(&floor)
	if c.A != floor.A || c.B != floor.B || c.Kind == nil || *c.Kind != "dac" || c.LengthM == nil || *c.LengthM != 2 {
		t.Fatalf("%+v", c)
	}
	floor.Kind, floor.LengthM = "fiber-mm", 5
	if *c.Kind != "dac" || *c.LengthM != 2 {
		t.Errorf("the Cable follows the floor's edits: %s %v", *c.Kind, *c.LengthM)
	}
	bare := FloorCable(&fabric.Cable{A: floor.A, B: floor.B})
	id, err := ParseCable("leaf01:33 <-> gpu001/mlx5_0:1")
	if err != nil || !reflect.DeepEqual(bare, id) {
		t.Errorf("a bare floor cable %+v is not the bare ID's %+v (%v)", bare, id, err)
	}
}

// Issue 32: a NUL in a rack and a cable from a port to itself were imported as they were.
func TestImportIDRefusesControlAndSelfLoop(t *testing.T) {
	if _, kv, err := Parse("gpu001,rack=r\x0001", "rack"); err == nil || !strings.Contains(err.Error(), "control character (U+0000) at byte 13") {
		t.Errorf("a NUL in rack: %v %v", kv, err)
	}
	if _, err := ParseRack("r01\n,row=1,position=2"); err == nil || !strings.Contains(err.Error(), "control character (U+000A)") {
		t.Errorf("a line break in a rack's name: %v", err)
	}
	if _, err := ParseCable("leaf01:1 <-> leaf01:1"); err == nil || !strings.HasPrefix(err.Error(), "both ends are leaf01 port 1") {
		t.Errorf("a self-looped cable: %v", err)
	}
	if _, err := ParseCable("leaf01:1 <-> leaf01:2,kind=dac"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a loopback: %v", err)
	}
	if _, err := ParseCable("gpu001/mlx5_0:1 <-> leaf01:1,kind=dac"); err != nil {
		t.Errorf("a good cable: %v", err)
	}
}
