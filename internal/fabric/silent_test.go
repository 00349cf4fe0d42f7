package fabric

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// problemOn returns the problems of rule on the path want.
func problemOn(ps []Problem, rule, want string) []Problem {
	var out []Problem
	for _, p := range ps {
		if p.Rule == rule && p.Path.String() == want {
			out = append(out, p)
		}
	}
	return out
}

// The silently wrong inventory of issue 22, item 5: each is now an error on the attribute at
// fault, and the clean cluster it is made from has none of them.
func TestSilentlyWrongInventory(t *testing.T) {
	if _, ps := Build(smallCluster(), catalog.Default()); HasErrors(ps) {
		t.Fatalf("the base cluster has errors: %v", ps)
	}
	for _, tc := range []struct {
		name       string
		edit       func(*Spec)
		rule, path string
		msg        string
	}{
		{"two HCAs on one device", func(s *Spec) {
			// "gpu001/mlx5_1" = { node = "gpu001", device = "mlx5_0" }
			s.HCAs[1].Device = "mlx5_0"
		}, RuleHCADevice, `hcas["gpu001/mlx5_1"].device`,
			`HCA "gpu001/mlx5_1" is device mlx5_0 of node gpu001, which HCA "gpu001/mlx5_0" already is: one device is one HCA. Give this HCA the device it is (its name says "mlx5_1")`},
		{"key naming another node", func(s *Spec) {
			// "gpu002/mlx5_0" = { node = "gpu001", device = "mlx5_0" }: the key names the HCA
			s.HCAs[8].Node = "gpu001"
			s.HCAs[8].Device = "mlx5_8"
		}, RuleHCANode, `hcas["gpu002/mlx5_0"].node`,
			`HCA "gpu002/mlx5_0" is named for node "gpu002", but its node is "gpu001": an HCA is named "<node>/<device>" (its map key, when it has no name). Set node = "gpu002", or key it "gpu001/mlx5_8"`},
		{"a switch and a node of one name", func(s *Spec) {
			s.Switches = append(s.Switches, Switch{Ref: Ref{Key: "gpu003"}, Name: "gpu003", Model: "QM9700"})
		}, RuleDuplicateName, `nodes["gpu003"].name`,
			`node name "gpu003" is already the name of switch "gpu003"; switches and nodes share one namespace`},
	} {
		s := smallCluster()
		for i := range s.HCAs {
			s.HCAs[i].Ref = Ref{Key: s.HCAs[i].Name}
		}
		for i := range s.Nodes {
			s.Nodes[i].Ref = Ref{Key: s.Nodes[i].Name}
		}
		tc.edit(s)
		_, ps := Build(s, catalog.Default())
		got := problemOn(ps, tc.rule, tc.path)
		if len(got) != 1 || got[0].Severity != Error || !strings.Contains(got[0].Message, tc.msg) {
			t.Errorf("%s: %v; want one error %s on %s saying %q", tc.name, ps, tc.rule, tc.path, tc.msg)
		}
	}
}

// A design plus an explicit leaf01 of another role (issue 22): Merge replaces the generated
// item whole, and the GUID it drops is an error on the explicit item's guid, naming the design's
// GUID; an explicit item with a GUID of its own, or one that adds a name, is fine.
func TestMergeDroppedGUID(t *testing.T) {
	gen := func() *Spec {
		return &Spec{
			Switches: []Switch{{Ref: Ref{Key: "leaf01", Origin: "node_count"}, Name: "leaf01", Model: "QM9700", Role: RoleLeaf, GUID: "0x0002c90000100001"}},
			HCAs:     []HCA{{Ref: Ref{Key: "gpu001/mlx5_0", Origin: "node_count"}, Name: "gpu001/mlx5_0", Node: "gpu001", Device: "mlx5_0", PortGUID: "0x0002c90100000001", Rail: -1}},
		}
	}
	s := gen()
	s.Merge(&Spec{
		Switches: []Switch{{Ref: Ref{Key: "leaf01"}, Name: "leaf01", Model: "QM9700", Role: RoleSpine}, {Ref: Ref{Key: "extra"}, Name: "extra", Model: "QM9700"}},
		HCAs:     []HCA{{Ref: Ref{Key: "gpu001/mlx5_0"}, Name: "gpu001/mlx5_0", Node: "gpu001", Device: "mlx5_0", Rail: 3}},
	})
	_, ps := Build(s, catalog.Default())
	sw := problemOn(ps, RuleMergeGUID, `switches["leaf01"].guid`)
	hca := problemOn(ps, RuleMergeGUID, `hcas["gpu001/mlx5_0"].port_guid`)
	if len(sw) != 1 || !strings.Contains(sw[0].Message, `switch "leaf01" replaces the design's switch of that name, whose GUID 0x0002c90000100001 it does not carry`) ||
		!strings.Contains(sw[0].Message, `Set guid = "0x0002c90000100001"`) {
		t.Errorf("switch: %v", ps)
	}
	if len(hca) != 1 || !strings.Contains(hca[0].Message, `Set port_guid = "0x0002c90100000001"`) {
		t.Errorf("HCA: %v", ps)
	}
	if len(problemOn(ps, RuleMergeGUID, `switches["extra"].guid`)) != 0 {
		t.Error("a new name was taken for a replacement")
	}
	s = gen()
	s.Merge(&Spec{Switches: []Switch{{Ref: Ref{Key: "leaf01"}, Name: "leaf01", Model: "QM9700", GUID: "0x0002c900000000aa"}}})
	if _, ps := Build(s, catalog.Default()); len(problemOn(ps, RuleMergeGUID, `switches["leaf01"].guid`)) != 0 {
		t.Errorf("a replacement with its own GUID: %v", ps)
	}
}
