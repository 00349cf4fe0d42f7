package plan

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A rendering problem on an attribute says its path once: the diagnostic carries the path, so
// the detail holds only what is wrong (it used to read `partitions["t"].sl: partitions["t"].sl:
// SL 1 needs QoS`). The files' own warning, which lists every problem, still names each.
func TestRenderProblemSaysItsPathOnce(t *testing.T) {
	cat := catalog.Default()
	p := topogen.Params{Kind: topogen.KindFatTree, Nodes: 4}
	f, ps := Build(cat, Inputs{Design: &p, Explicit: fabric.Spec{Partitions: []fabric.Partition{{
		Ref: fabric.Ref{Key: "t"}, Name: "t", PKey: "0x0201", SL: 1,
		Members: []fabric.Member{{HCA: "gpu001/mlx5_0", Membership: "full"}},
	}}}})
	if ps.HasErrors() || f == nil {
		t.Fatalf("build: %v", ps)
	}
	_, ps = Render(f, OpenSMSettings{})
	var found bool
	for _, pr := range ps {
		if !strings.Contains(pr.Detail, "needs QoS") {
			continue
		}
		found = true
		at := pr.At.String()
		if !strings.Contains(at, "sl") {
			t.Errorf("the SL problem is on %q, want the partition's sl", at)
		}
		if strings.Contains(pr.Detail, at) {
			t.Errorf("the detail repeats the path %q: %q", at, pr.Detail)
		}
	}
	if !found {
		t.Fatalf("no problem says the SL needs QoS: %v", ps)
	}
	out := Run(cat, f, Request{OpenSM: &OpenSMSettings{}})
	for _, pr := range out.Problems {
		if strings.Contains(pr.Detail, "needs QoS") && !strings.Contains(pr.Detail, `sl: SL 1 needs QoS`) {
			t.Errorf("the files' warning does not name the attribute: %q", pr.Detail)
		}
	}
}
