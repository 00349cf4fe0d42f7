package analysis_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// The fabric and OpenSM helpers of the LFT tests, which moved here from internal/opensm to reach
// the model's tables (export_test.go). The fat tree is testrig's, shared with opensm's tests;
// the rest are copies of opensm's unexported test helpers.

var fatTreeSpec = testrig.FatTreeSpec

func buildGraph(t testing.TB, s *fabric.Spec) *fabric.Graph {
	t.Helper()
	return testrig.BuildGraph(t, s)
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

func renderInto(t *testing.T, g *fabric.Graph, dir string, o opensm.GraphOptions) opensm.Config {
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
	return cfg
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
