package opensm

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// sameParse fails t when the scanner and the regexp reader (parseTopologyRegexp, the reference)
// read text differently: the nodes, links, errors and their messages must be the same. A node
// without port GUIDs has a nil map from the scanner and an empty one from the reference, which
// read alike.
func sameParse(t *testing.T, name, text string) {
	t.Helper()
	got, gotErr := ParseTopology(text)
	want, wantErr := parseTopologyRegexp(text)
	norm := func(d *Discovered) {
		for i := range d.Nodes {
			if len(d.Nodes[i].PortGUIDs) == 0 {
				d.Nodes[i].PortGUIDs = nil
			}
		}
		if len(d.Nodes) == 0 {
			d.Nodes = nil
		}
		if len(d.Links) == 0 {
			d.Links = nil
		}
	}
	norm(got)
	norm(want)
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got.Nodes), len(want.Nodes)) {
			if !reflect.DeepEqual(got.Nodes[i], want.Nodes[i]) {
				t.Fatalf("%s: node %d: scanner %+v, regexp %+v", name, i, got.Nodes[i], want.Nodes[i])
			}
		}
		for i := range min(len(got.Links), len(want.Links)) {
			if got.Links[i] != want.Links[i] {
				t.Fatalf("%s: link %d: scanner %+v, regexp %+v", name, i, got.Links[i], want.Links[i])
			}
		}
		t.Fatalf("%s: scanner %d nodes %d links, regexp %d nodes %d links", name, len(got.Nodes), len(got.Links), len(want.Nodes), len(want.Links))
	}
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%s: scanner error %v\nregexp error %v", name, gotErr, wantErr)
	}
	if gotErr != nil && !reflect.DeepEqual(gotErr, wantErr) {
		t.Fatalf("%s: scanner error %#v\nregexp error %#v", name, gotErr, wantErr)
	}
}

// scannerCases are lines at the edges of the grammar: each of them read alone, after a header,
// and inside a floor.
var scannerCases = []string{
	`Switch 8 "a"`, "Switch\t8\t\"a\"", "Switch\v8 \"a\"", "Switch 8\"a\"", "Switch8 \"a\"", `Switch 08 "a"`,
	`Switch 0 "a"`, `Switch 256 "a"`, `Switch 99999999999999999999 "a"`, `Switch 8 "a`, `Switch 8 "a"b"`,
	`Switches 8 "a"`, `Ca 1 "x y"`, `Hca 1 "x"`, `Rt 2 "r"`, `CA 1 "x"`, "Switch \f\r 8 \t\"a\" #",
	`Switch 8 "a" # "leaf" lid 3`, `Switch 8 "a" # "leaf" lid 70000`, `Switch 8 "a" #lid 5`, `Switch 8 "a" # xlid 5 lid 6`,
	`Switch 8 "a" # "le"af" lid 1`, `Switch 8 "a" # "leaf`, `Switch 8 "a" # lid"x"5`, `Switch 8 "a" # _lid"x"5`,
	`Switch 8 "a" # lid "x" 5`, `Switch 8 "a" # "x"lid 5`, `Switch 8 "a" # a"x"lid 5`, `Switch 8 "a" # lid"x"`,
	`Switch 8 "a" # lid 0x5`, `Switch 8 "a" # lid  5`, "Switch 8 \"a\" # \u00e9lid 5", `Switch 8 "a" ## "d" lid 1`,
	`[1] "b"[1]`, `[1]"b"[1]`, `[1](a1) "b"[1]`, `[1](a1)"b"[1]`, `[1]( a1) "b"[1]`, `[1]() "b"[1]`, `[1](xX) "b"[1]`,
	`[1](g1) "b"[1]`, `[1](a1 "b"[1]`, `[1] "b"[1](c1)`, `[1] "b"[1](c1`, `[1] "b"[1](g1)`, `[1] "b"[1]()`,
	`[1] "b"[1] # "d" lid 1 4xNDR`, `[1] "b"[1] # 4xNDR 2xHDR`, `[1] "b"[1] # 4x`, `[1] "b"[1] # x4NDR`, `[1] "b"[1] # 4xN-DR`,
	`[1] "b"[1] # 04x?`, `[1] "b"[1] # "d"4xNDR`, `[1] "b"[1] # "d" 4xNDR"`, `[1] "b"[1]# lid 2`, `[1] "b"[1]x`,
	`[1] "b"[1]  x`, `[1] "b"[01]`, `[1] "b"[0]`, `[1] "b"[256]`, `[] "b"[1]`, `[1 "b"[1]`, `[1] "b[1]`, `[1] b[1]`,
	"[1] \"b\"[1] # \"d\"\u00a04xNDR", "[1] \"b\"[1] # \"d\" 4xNDR\u2003lid 9", "[1]\v\"b\"[1]", "[1] \"b\xff\"[1] # \xff lid 3 4x\xff",
	`[1] "b"[1] # "d" lid 99999`, `[1] "b"[1] # lid"d"7 4xHDR`, `[1] "b"[1] # "d"`, `[1] "b"[1] # "`, `[2] "a"[1] # "a" lid 1`,
	"switchguid=0x1(1)", "caguid=zz", "vendid=0x2c9", "devid=-1", "sysimgguid=0x1", "# comment", "garbage",
}

// scannerFloor is a small floor whose lines the cases are put among.
const scannerFloor = "switchguid=0x1\nSwitch 8 \"a\" # \"leaf\" lid 2\n[1] \"b\"[1] # \"bee\" lid 3 4xHDR\n[2](a2) \"c\"[1](c1) # lid 4\n" +
	"\ncaguid=0x10\nCa 1 \"b\" # \"bee\"\n[1](11) \"a\"[1] # lid 1 lmc 0 \"a\" lid 2 4xHDR\n" +
	"\ncaguid=0x20\nCa 2 \"c\"\n[1](c1) \"a\"[2] # \"leaf\" lid 2 4xNDR\n"

func TestParseTopologyScannerMatchesRegexp(t *testing.T) {
	texts := map[string]string{"floor": scannerFloor}
	for _, glob := range []string{"testdata/*.txt", "../asbuilt/testdata/*"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			texts[f] = string(b)
		}
	}
	if len(texts) < 5 {
		t.Fatalf("only %d texts: the testdata floors are missing", len(texts))
	}
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	g, probs := fabric.Build(d.Spec(), catalog.Default())
	if fabric.HasErrors(probs) {
		t.Fatal(probs)
	}
	texts["expected topology, 2 SU"] = ExpectedTopology(g)
	texts["floorText"] = floorText(nil)
	for i, c := range scannerCases {
		texts["case "+c] = c
		texts["case in a node "+c] = "switchguid=0x1\nSwitch 8 \"a\"\n" + c + "\n"
		lines := strings.Split(scannerFloor, "\n")
		at := i % len(lines)
		texts["case in the floor "+c] = strings.Join(append(lines[:at:at], append([]string{c}, lines[at:]...)...), "\n")
		texts["case replacing a line "+c] = strings.Join(append(lines[:at:at], append([]string{c}, lines[at+1:]...)...), "\n")
	}
	for name, text := range texts {
		sameParse(t, name, text)
	}
}

// FuzzParseTopologyScanner compares the scanner with the regexp reader it replaced on any text,
// and each scanned pattern with its regexp on the text as one line.
func FuzzParseTopologyScanner(f *testing.F) {
	f.Add(scannerFloor)
	f.Add(floorText(nil))
	for _, c := range scannerCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sameParse(t, "fuzz", s)
		line := strings.TrimSpace(strings.ReplaceAll(s, "\n", " "))
		if h, ok := scanHeader(line); ok != (refHeader.FindStringSubmatch(line) != nil) {
			t.Fatalf("header %q: scanner %v", line, ok)
		} else if m := refHeader.FindStringSubmatch(line); ok && (m[1] != h.kind || m[2] != h.ports || m[3] != h.id || m[4] != h.rest) {
			t.Fatalf("header %q: scanner %+v, regexp %q", line, h, m)
		}
		m := refPortLine.FindStringSubmatch(line)
		if c, ok := scanCableLine(line); ok != (m != nil) {
			t.Fatalf("cable line %q: scanner %v", line, ok)
		} else if ok && (m[1] != c.port || m[2] != c.guid || m[3] != c.peerID || m[4] != c.peerPort || m[6] != c.rest) {
			t.Fatalf("cable line %q: scanner %+v, regexp %q", line, c, m)
		}
		desc, rest, found, ok := commentDesc(line)
		wdesc, wrest, wfound, wok := commentDescRegexp(line)
		joined := rest.before
		if rest.split {
			joined += " " + rest.after
		}
		if desc != wdesc || joined != wrest || found != wfound || ok != wok {
			t.Fatalf("comment %q: scanner %q %q %v %v, regexp %q %q %v %v", line, desc, joined, found, ok, wdesc, wrest, wfound, wok)
		}
		lid, lok := rest.lid()
		if l := refLID.FindStringSubmatch(wrest); (l != nil) != lok || lok && l[1] != lid {
			t.Fatalf("lid in %q: scanner %q %v, regexp %q", wrest, lid, lok, l)
		}
		width, speed := rest.speed()
		var wwidth, wspeed string
		fields := strings.Fields(wrest)
		for i := len(fields) - 1; i >= 0; i-- {
			if m := refSpeed.FindStringSubmatch(fields[i]); m != nil {
				wwidth, wspeed = m[1], m[2]
				break
			}
		}
		if width != wwidth || speed != wspeed {
			t.Fatalf("speed in %q: scanner %q %q, regexp %q %q", wrest, width, speed, wwidth, wspeed)
		}
	})
}
