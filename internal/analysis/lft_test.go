package analysis_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// recordedDump is what OpenSM 3.3.23 wrote on ibsim for fatTreeSpec(4, 2, 4) (4 leaves, 2
// spines, 16 HCAs) routed with ftree from the rendered files, the SM on gpu001 mlx5_0.
func recordedDump(t *testing.T) *LFTs {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", FileLFTDump))
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseLFTs(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestParseLFTsRecorded(t *testing.T) {
	l := recordedDump(t)
	if len(l.Switches) != 6 {
		t.Fatalf("%d switch tables, want 6", len(l.Switches))
	}
	sp, ok := l.Switch(opensm.GUID(0x0002c90300001001))
	if !ok || sp.Desc != "spine01" || sp.LID != 2 || sp.MaxLID != 22 {
		t.Fatalf("spine01 table: %+v", sp)
	}
	if p := sp.Ports[0x0f]; p != 5 {
		t.Errorf("spine01 routes LID 0x0f to port %d, the dump says 005", p)
	}
	if p, ok := sp.Ports[2]; !ok || p != 0 {
		t.Errorf("spine01 routes its own LID to %d (%v), want port 0", p, ok)
	}
	if _, ok := sp.Ports[3]; ok {
		t.Errorf("spine01 has a route to spine02; the dump has none (ftree without connect_roots)")
	}
	tgt := l.Targets[8]
	if tgt.Kind != "Channel Adapter" || tgt.PortGUID != opensm.GUID(0x0002c90300100011) || tgt.Desc != "gpu001 mlx5_1" {
		t.Errorf("LID 8 is %+v", tgt)
	}
	if lid, ok := l.LIDOf(opensm.GUID(0x0002c90300001006)); !ok || lid != 7 || l.Targets[7].Kind != "Switch" {
		t.Errorf("leaf04 has LID %d (%v), want 7", lid, ok)
	}
}

// TestModelMatchesRecordedDump checks the model against the recorded tables without the
// simulator: every switch's entry for every HCA's LID is the port the model computes.
func TestModelMatchesRecordedDump(t *testing.T) {
	l := recordedDump(t)
	g := buildGraph(t, fatTreeSpec(4, 2, 4))
	cfg, err := opensm.FromGraph(g, opensm.GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := analysis.ComputeRoutes(g, mustModelRouting(t, g, cfg))
	if err != nil || rt == nil || rt.Engine != "ftree" {
		t.Fatalf("model: %+v, %v", rt, err)
	}
	checked := 0
	for e, ep := range rt.Endpoints() {
		lid, ok := l.LIDOf(hcaGUID(indexOfHCA(t, ep.HCA)))
		if !ok {
			t.Fatalf("no LID for %s in the dump", ep.HCA)
		}
		for _, sw := range l.Switches {
			want, has := sw.Ports[lid]
			got, ok := rt.OutPort(sw.Desc, e)
			if has != ok || want != got {
				t.Errorf("%s -> %s (LID %d): OpenSM port %d (%v), model %d (%v)", sw.Desc, ep.HCA, lid, want, has, got, ok)
			}
			checked++
		}
	}
	if checked != 16*6 {
		t.Fatalf("checked %d entries, want 96", checked)
	}
}

// indexOfHCA is h for fatTreeSpec's HCA "gpuNNN/mlx5_d": 8 per node.
func indexOfHCA(t *testing.T, name string) int {
	t.Helper()
	var node, dev int
	if _, err := fmt.Sscanf(name, "gpu%d/mlx5_%d", &node, &dev); err != nil {
		t.Fatalf("HCA name %q: %v", name, err)
	}
	return (node-1)*8 + dev
}

func TestParseLFTsErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"0x0001 001 # Channel Adapter portguid 0x1: 'x'\n", "line 1: LFT entry outside a switch block"},
		{"Unicast lids [0-3] of switch Lid 2 guid 0x0002c90300001001 ('s'):\n0xzz 001\n", "line 2: bad LID"},
		{"Unicast lids [0-3] of switch Lid 2 guid 0x0002c90300001001 ('s'):\n0x0001 300\n", "line 2: bad port"},
		{"Unicast lids [0-3] of switch Lid x guid 0x1 ('s'):\n", "line 1: want `of switch Lid N guid 0x...`"},
		{"garbage\n", "line 1: unexpected line"},
	} {
		_, err := ParseLFTs(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseLFTs(%q) = %v, want an error containing %q", tc.text, err, tc.want)
		}
	}
}

func mustModelRouting(t *testing.T, g *fabric.Graph, cfg opensm.Config) analysis.Routing {
	t.Helper()
	r, err := opensm.ModelRouting(g, cfg, false)
	if err != nil {
		t.Fatalf("ModelRouting: %v", err)
	}
	return r
}
