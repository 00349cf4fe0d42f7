package analysis_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// The fabric and OpenSM helpers of the LFT tests, copied from internal/opensm's tests: these
// tests moved here to reach the model's tables (export_test.go), and opensm's test helpers are
// not importable. fatTreeSpec must stay identical to opensm's: testdata/opensm-lfts.dump was
// recorded on its GUIDs.

// fatTreeSpec declares a 2-tier fat tree: `leaves` QM9700 leaves with `perLeaf` HCAs each (DGX
// H100 nodes of 8 HCAs), every leaf cabled 1:1 to `spines` spines with perLeaf/spines parallel
// links per spine. Switch GUIDs are 0x0002c90300001000+n; HCA port GUIDs are
// 0x0002c90300100001 + 0x10*h, so that ibsim's node GUID (port GUID - 1) never collides.
func fatTreeSpec(leaves, spines, perLeaf int) *fabric.Spec {
	s := &fabric.Spec{}
	sw := 0
	swGUID := func() string { sw++; return fmt.Sprintf("0x%016x", 0x0002c90300001000+sw) }
	for i := 1; i <= spines; i++ {
		s.Switches = append(s.Switches, fabric.Switch{Name: fmt.Sprintf("spine%02d", i), Model: "QM9700", GUID: swGUID()})
	}
	for i := 1; i <= leaves; i++ {
		s.Switches = append(s.Switches, fabric.Switch{Name: fmt.Sprintf("leaf%02d", i), Model: "QM9700", GUID: swGUID()})
	}
	hcas := leaves * perLeaf
	for n := 0; n < (hcas+7)/8; n++ {
		s.Nodes = append(s.Nodes, fabric.Node{Name: fmt.Sprintf("gpu%03d", n+1), Model: "DGX-H100"})
	}
	for h := 0; h < hcas; h++ {
		node, dev := fmt.Sprintf("gpu%03d", h/8+1), fmt.Sprintf("mlx5_%d", h%8)
		s.HCAs = append(s.HCAs, fabric.HCA{
			Name: fabric.HCAName(node, dev), Node: node, Device: dev, Rail: h % 8,
			PortGUID: fmt.Sprintf("0x%016x", 0x0002c90300100001+0x10*h),
		})
		s.Cables = append(s.Cables, fabric.Cable{
			A: fabric.End{Device: fabric.HCAName(node, dev), Port: 1},
			B: fabric.End{Device: fmt.Sprintf("leaf%02d", h/perLeaf+1), Port: h%perLeaf + 1},
		})
	}
	up := perLeaf / spines
	for l := 1; l <= leaves; l++ {
		for sp := 1; sp <= spines; sp++ {
			for k := 0; k < up; k++ {
				s.Cables = append(s.Cables, fabric.Cable{
					A: fabric.End{Device: fmt.Sprintf("leaf%02d", l), Port: perLeaf + (sp-1)*up + k + 1},
					B: fabric.End{Device: fmt.Sprintf("spine%02d", sp), Port: (l-1)*up + k + 1},
				})
			}
		}
	}
	return s
}

func buildGraph(t testing.TB, s *fabric.Spec) *fabric.Graph {
	t.Helper()
	g, problems := fabric.Build(s, catalog.Default())
	if fabric.HasErrors(problems) {
		t.Fatalf("fabric.Build: %v", problems)
	}
	return g
}

// hcaGUID is the declared port GUID of HCA number h of fatTreeSpec.
func hcaGUID(h int) opensm.GUID { return opensm.GUID(0x0002c90300100001 + 0x10*h) }

// smHost is where OpenSM attaches in the simulated fabric: the first GPU's HCA, as on a cluster
// whose SM runs on a compute node.
const smHost = "gpu001 mlx5_0"

// writeFiles writes a rendered file set into cfg.Paths the way internal/remote does on a host.
func writeFiles(t *testing.T, p opensm.Paths, files opensm.Files) {
	t.Helper()
	for _, name := range opensm.FileNames {
		if err := os.WriteFile(p.Path(name), []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func renderInto(t *testing.T, g *fabric.Graph, dir string, o opensm.GraphOptions) (opensm.Config, opensm.Files) {
	t.Helper()
	o.Paths = opensm.Paths{ConfigDir: dir}
	if o.Options == nil {
		o.Options = map[string]string{}
	}
	o.Options["log_file"] = filepath.Join(dir, "opensm.log")
	o.Options["force_log_flush"] = "TRUE"
	cfg, err := opensm.FromGraph(g, o)
	if err != nil {
		t.Fatalf("FromGraph: %v", err)
	}
	files, err := opensm.Render(cfg)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	writeFiles(t, cfg.Paths, files)
	return cfg, files
}

func readLog(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "opensm.log"))
	if err != nil {
		t.Fatalf("reading OpenSM log: %v", err)
	}
	return string(b)
}

// simNodeGUIDs is each device's node GUID in the net file ibsim is given, read back from it:
// OpenSM's dump names switches, and HCA ports (node GUID + port), by these. Uncabled devices are
// not in the file and get 0.
func simNodeGUIDs(t *testing.T, g *fabric.Graph) []opensm.GUID {
	t.Helper()
	disc, err := opensm.ParseTopology(opensm.ExpectedTopology(g))
	if err != nil {
		t.Fatalf("reading back the expected topology: %v", err)
	}
	byID := map[string]opensm.GUID{}
	for _, n := range disc.Nodes {
		byID[n.ID] = n.GUID
	}
	out := make([]opensm.GUID, len(g.Devices))
	for i := range g.Devices {
		id := g.Devices[i].Name
		if g.Devices[i].Kind == fabric.KindHCA {
			id = opensm.HCADescription(g, int32(i))
		}
		out[i] = byID[id]
	}
	return out
}
