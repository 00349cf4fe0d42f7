package scheduler

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// topology/block (Slurm 23.11+) cannot run here: Debian 12's slurmctld is 22.05, which has only
// topology/tree, 3d_torus and hypercube. The generated file is checked against the documented
// grammar (testrig.CheckBlockConf, which is shown there to refuse what Slurm refuses).
func TestBlockConf(t *testing.T) {
	want := map[string]struct {
		blocks int
		sizes  []int
	}{
		"fat-tree-2tier": {4, []int{4, 8, 16}},                // 4 leaves of 4 DGX (32 down ports / 8 HCAs)
		"fat-tree-3tier": {50, []int{6, 12, 24, 48, 96, 192}}, // 48 down ports / 8 = 6 DGX per leaf
		"superpod-4su":   {4, []int{31, 62, 124}},             // SU 1 has 31 nodes (UFM slot), RA-11333-001
	}
	for _, f := range fabrics {
		t.Run(f.name, func(t *testing.T) {
			d, g := generate(t, f.p)
			top := mustBuild(t, g)
			conf := top.BlockConf(f.name)
			var nodes []string
			for n := range d.Nodes {
				nodes = append(nodes, n)
			}
			if err := testrig.CheckBlockConf(conf, nodes); err != nil {
				t.Fatalf("%v\n%s", err, conf)
			}
			w := want[f.name]
			if got := strings.Count(conf, "BlockName="); got != w.blocks {
				t.Errorf("%d blocks, want %d", got, w.blocks)
			}
			if !reflect.DeepEqual(top.BlockSizes(), w.sizes) {
				t.Errorf("BlockSizes %v, want %v", top.BlockSizes(), w.sizes)
			}
			if f.name == "superpod-4su" && !strings.Contains(conf, "BlockName=su01 Nodes=gpu[001-031]\n") {
				t.Errorf("no block per SU:\n%s", conf)
			}
		})
	}
}
