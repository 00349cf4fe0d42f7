package testrig

import (
	"strings"
	"testing"
)

// TestCheckBlockConfRefuses: the checker refuses what Slurm's topology/block parser refuses
// (topology.conf(5), block_record.c), and takes what it takes.
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

func TestExpandHostlist(t *testing.T) {
	got, err := ExpandHostlist("gpu[001-002,005],leaf[01-02],x,gpu10")
	want := []string{"gpu001", "gpu002", "gpu005", "leaf01", "leaf02", "x", "gpu10"}
	if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ExpandHostlist = %v, %v; want %v", got, err, want)
	}
	if _, err := ExpandHostlist("gpu[003-001]"); err == nil {
		t.Error("ExpandHostlist accepted a descending range")
	}
}
