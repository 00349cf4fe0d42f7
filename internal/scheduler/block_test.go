package scheduler

import (
	"reflect"
	"strings"
	"testing"
)

// topology/block (Slurm 23.11+) cannot run here: Debian 12's slurmctld is 22.05, which has only
// topology/tree, 3d_torus and hypercube. The generated file is checked against the documented
// grammar (CheckBlockConf), and the checker is shown to refuse what Slurm refuses.
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
			top := mustBuild(t, d, g)
			conf := top.BlockConf(f.name)
			var nodes []string
			for n := range d.Nodes {
				nodes = append(nodes, n)
			}
			if err := CheckBlockConf(conf, nodes); err != nil {
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

func TestCheckBlockConfRefuses(t *testing.T) {
	nodes := []string{"n1", "n2", "n3", "n4"}
	for conf, why := range map[string]string{
		"BlockName=a Nodes=n[1-2]\nBlockName=b Nodes=n[3-4]\nBlockSizes=2,6\n": "power of two",
		"BlockName=a Nodes=n[1-2]\nBlockName=b Nodes=n[3-4]\nBlockSizes=4,2\n": "power of two",
		"BlockName=a Nodes=n[1-2]\nBlockName=b Nodes=n[3-4]\nBlockSizes=3\n":   "fewer than the base",
		"BlockName=a Nodes=n[1-2]\nBlockName=a Nodes=n[3-4]\n":                 "already been defined",
		"BlockName=a Nodes=n[1-3]\nBlockName=b Nodes=n[3-4]\n":                 "in blocks a and b",
		"BlockName=a Nodes=n[1-2]\n":                                           "in no block",
		"BlockName=a Nodes=n[1-4] LinkSpeed=1\n":                               "unknown key",
		"SwitchName=a Nodes=n[1-4]\n":                                          "neither",
		"BlockName=a Nodes=n[1-2]\nBlockName=b Nodes=n[3-4]\nBlockSizes=2,0\n": "positive",
	} {
		err := CheckBlockConf(conf, nodes)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("CheckBlockConf(%q) = %v, want an error about %q", conf, err, why)
		}
	}
	if err := CheckBlockConf("# c\nBlockName=a Nodes=n[1-2]\nblockname=b nodes=n[3-4]\nBlockSizes=2,4\n", nodes); err != nil {
		t.Errorf("a valid file refused: %v", err)
	}
}
