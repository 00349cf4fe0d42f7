package fabric

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// smallCluster is the shape of examples/clusters/small: 8 DGX-H100 in two racks, two leaves and
// one spine in a network rack between them, rails 0-3 on leaf01 and 4-7 on leaf02.
func smallCluster() *Spec {
	s := &Spec{
		Racks: []Rack{{Name: "r01", Row: 1, Position: 1, PowerKW: 45}, {Name: "r02", Row: 1, Position: 2, Units: 48}, {Name: "r03", Row: 1, Position: 3, PowerKW: 45}},
		Switches: []Switch{
			{Name: "leaf01", Model: "QM9700", Rack: "r02", PositionU: 20, GUID: "0x0000000000a00001"},
			{Name: "leaf02", Model: "QM9700", Rack: "r02", PositionU: 21, GUID: "0x0000000000a00002"},
			{Name: "spine01", Model: "QM9700", Rack: "r02", PositionU: 30, GUID: "0x0000000000a00003"},
		},
	}
	for n := 0; n < 8; n++ {
		node := fmt.Sprintf("gpu%03d", n+1)
		rack := "r01"
		if n >= 4 {
			rack = "r03"
		}
		s.Nodes = append(s.Nodes, Node{Name: node, Model: "DGX-H100", Rack: rack, PositionU: 2 + 9*(n%4)})
		for r := 0; r < 8; r++ {
			dev := fmt.Sprintf("mlx5_%d", r)
			s.HCAs = append(s.HCAs, HCA{Name: HCAName(node, dev), Node: node, Device: dev, Rail: r, PortGUID: fmt.Sprintf("0x00000000b%07x", n*8+r)})
			leaf := "leaf01"
			if r >= 4 {
				leaf = "leaf02"
			}
			s.Cables = append(s.Cables, Cable{A: End{leaf, n*4 + r%4 + 1}, B: End{HCAName(node, dev), 1}})
		}
	}
	for l, leaf := range []string{"leaf01", "leaf02"} {
		for p := 0; p < 32; p++ {
			s.Cables = append(s.Cables, Cable{A: End{leaf, 33 + p}, B: End{"spine01", l*32 + p + 1}})
		}
	}
	return s
}

func mustClean(t *testing.T, s *Spec) *Graph {
	t.Helper()
	g, ps := Build(s, catalog.Default())
	if HasErrors(ps) {
		t.Fatalf("unexpected problems: %v", ps)
	}
	return g
}

func TestBuildSmallCluster(t *testing.T) {
	g := mustClean(t, smallCluster())
	if got := len(g.Endpoints()); got != 64 {
		t.Errorf("endpoints = %d, want 64", got)
	}
	if g.NumSwitches() != 3 || len(g.Links) != 128 {
		t.Errorf("switches = %d, links = %d; want 3 and 128", g.NumSwitches(), len(g.Links))
	}
	for name, want := range map[string]string{"leaf01": RoleLeaf, "leaf02": RoleLeaf, "spine01": RoleSpine} {
		i, _ := g.Lookup(name)
		if d := g.Devices[i]; d.Role != want || d.Declared {
			t.Errorf("%s role = %q (declared %v), want inferred %q", name, d.Role, d.Declared, want)
		}
	}
	// A link from gpu001 (r01, U2) to leaf01 (r02, U20): up 40 U and 42-20 U, 0.6 m across,
	// plus tray clearance and slack.
	l := g.Links[0]
	want := float64(42-2)*UnitM + TrayClearanceM + RackWidthM + float64(48-20)*UnitM + TrayClearanceM + 2*SlackPerEndM
	if !l.Estimated || l.LengthM < want || l.LengthM > want+0.1 {
		t.Errorf("run gpu001-leaf01 = %.2f m (estimated %v), want %.2f rounded up", l.LengthM, l.Estimated, want)
	}
}

// builtinSwitches is how an unknown-model problem lists the built-in catalog's switch models,
// taken from the catalog, so a model added there changes no test here.
func builtinSwitches() string {
	var q []string
	for _, n := range catalog.Default().SwitchNames() {
		q = append(q, fmt.Sprintf("%q", n))
	}
	return strings.Join(q, ", ")
}

func TestBuildProblems(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hdr.hcl") // a catalog_files entry (testrig imports this package)
	if err := os.WriteFile(file, []byte("switch_model \"HDR40\" {\n ports = 40\n port_rate_gbps = 200\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hdr, err := catalog.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		mutate func(*Spec)
		cat    *catalog.Catalog
		rule   string
		path   string
		want   string
	}{
		{"port reuse", func(s *Spec) { s.Cables[1].A.Port = 1 }, nil, RulePortReuse, `cables["leaf01:1 <-> gpu001/mlx5_1:1"].a.port`, `leaf01 port 1 is already used by cables["leaf01:1 <-> gpu001/mlx5_0:1"]`},
		{"unknown device", func(s *Spec) { s.Cables[3].B.Device = "gpu999/mlx5_0" }, nil, RuleUnknownDevice, `cables["leaf01:4 <-> gpu999/mlx5_0:1"].b.device`, `"gpu999/mlx5_0", which is neither a switch nor an HCA`},
		{"port range", func(s *Spec) { s.Cables[70].B.Port = 65 }, nil, RulePortRange, `cables["leaf01:39 <-> spine01:65"].b.port`, "a QM9700 has ports 1-64"},
		{"same port", func(s *Spec) { s.Cables = append(s.Cables, Cable{A: End{"spine01", 64}, B: End{"spine01", 64}}) }, nil, RuleSamePort, `cables["spine01:64 <-> spine01:64"].b.device`, "both ends are spine01 port 64"},
		{"speed", func(s *Spec) { s.Switches[2].Model = "HDR40"; s.Cables = s.Cables[:64+8] }, hdr, RuleSpeedMismatch, `cables["leaf01:33 <-> spine01:1"]`, "leaf01 port 33 runs at 400 Gb/s but spine01 port 1 at 200 Gb/s"},
		{"reach", func(s *Spec) { s.Cables[0].Kind = "dac" }, nil, RuleCableReach, `cables["leaf01:1 <-> gpu001/mlx5_0:1"].kind`, `needs 5.3 m (estimated from the rack positions) but dac reaches at most 3 m between a switch and an HCA; use "fiber-mm" (up to 50 m)`},
		{"reach declared", func(s *Spec) { s.Cables[64].Kind = "fiber-mm"; s.Cables[64].LengthM = 80 }, nil, RuleCableReach, `cables["leaf01:33 <-> spine01:1"].kind`, "needs 80.0 m (declared) but fiber-mm reaches at most 50 m"},
		{"kind", func(s *Spec) { s.Cables[0].Kind = "copper" }, nil, RuleCableKind, `cables["leaf01:1 <-> gpu001/mlx5_0:1"].kind`, `no cable of kind "copper"`},
		{"rack units", func(s *Spec) { s.Nodes[3].PositionU = 40 }, nil, RuleRackUnits, `nodes["gpu004"].position_u`, `takes 8U, up to U47, but rack "r01" has units 1-42`},
		{"rack overlap", func(s *Spec) { s.Switches[1].PositionU = 20 }, nil, RuleRackUnits, `switches["leaf02"].position_u`, `overlaps switch leaf01 in rack "r02" at U20`},
		{"rack power", func(s *Spec) { s.Racks[0].PowerKW = 30 }, nil, RuleRackPower, `racks["r01"].power_kw`, `rack "r01" draws 40.8 kW`},
		{"unknown rack", func(s *Spec) { s.Switches[0].Rack = "r09" }, nil, RuleUnknownRack, `switches["leaf01"].rack`, `rack "r09" is not among`},
		{"unknown node", func(s *Spec) { s.HCAs[5].Node = "gpu099" }, nil, RuleUnknownNode, `hcas["gpu001/mlx5_5"].node`, `on node "gpu099"`},
		{"too many hcas", func(s *Spec) {
			s.HCAs = append(s.HCAs, HCA{Name: "gpu001/mlx5_8", Node: "gpu001", Device: "mlx5_8", Rail: -1})
		}, nil, RuleHCACount, `hcas["gpu001/mlx5_8"].node`, "holds 8 compute HCAs; this is one more"},
		{"duplicate", func(s *Spec) { s.HCAs[1].Name = s.HCAs[0].Name }, nil, RuleDuplicateName, `hcas["gpu001/mlx5_0"].name`, `"gpu001/mlx5_0" is already used`},
		{"unknown model", func(s *Spec) { s.Switches[0].Model = "QM8700" }, nil, RuleUnknownModel, `switches["leaf01"].model`, `unknown switch model "QM8700"; the catalog has ` + builtinSwitches()},
		{"partition member", func(s *Spec) {
			s.Partitions = []Partition{{Name: "p", PKey: "0x0001", Members: []Member{{HCA: "gpu001/mlx5_0"}, {HCA: "leaf01"}}}}
		}, nil, RulePartitionMember, `partitions["p"].members[1].hca`, `member "leaf01" is not an HCA`},
		{"disconnected", func(s *Spec) { s.Cables = s.Cables[:64+32] }, nil, RuleDisconnected, "fabric", "2 disconnected pieces: {2 switches (leaf01, spine01), 32 HCAs from gpu001/mlx5_0} {1 switches (leaf02), 32 HCAs from gpu001/mlx5_4}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := smallCluster()
			tc.mutate(s)
			cat := tc.cat
			if cat == nil {
				cat = catalog.Default()
			}
			_, ps := Build(s, cat)
			for _, p := range ps {
				if p.Rule == tc.rule {
					if p.Path.String() != tc.path || !strings.Contains(p.Message, tc.want) || p.Severity != Error {
						t.Errorf("got %s (%s), want path %s and message containing %q", p, p.Rule, tc.path, tc.want)
					}
					return
				}
			}
			t.Errorf("no %s problem; got %v", tc.rule, ps)
		})
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	a, pa := Build(smallCluster(), catalog.Default())
	b, pb := Build(smallCluster(), catalog.Default())
	if fmt.Sprint(pa) != fmt.Sprint(pb) || fmt.Sprint(a.Devices) != fmt.Sprint(b.Devices) || fmt.Sprint(a.Links) != fmt.Sprint(b.Links) {
		t.Error("two builds of the same spec differ")
	}
}

// TestPathKeysAndOrigin: a problem names the element by its map key where it has one, and, for a
// generated element, the design attribute that produced it.
func TestPathKeysAndOrigin(t *testing.T) {
	s := smallCluster()
	s.Switches[0].Key = "first-leaf"
	s.Switches[0].Rack = "r09"
	s.Cables[0].Ref = Ref{Key: "c0", Origin: "scalable_units"}
	s.Cables[0].Kind = "copper"
	_, ps := Build(s, catalog.Default())
	want := map[string]string{
		RuleUnknownRack: `switches["first-leaf"].rack`,
		RuleCableKind:   `design.scalable_units (cables["c0"].kind)`,
	}
	for _, p := range ps {
		if w, ok := want[p.Rule]; ok {
			if p.Path.String() != w {
				t.Errorf("%s: path %s, want %s", p.Rule, p.Path, w)
			}
			delete(want, p.Rule)
		}
	}
	if len(want) > 0 {
		t.Errorf("missing problems %v in %v", want, ps)
	}
	p := At("partitions", "p", "members").Index(2).Attr("hca")
	if p.String() != `partitions["p"].members[2].hca` || len(p.Attrs) != 3 || p.Attrs[1] != (Step{Index: 2}) {
		t.Errorf("At/Index/Attr: %s %#v", p, p.Attrs)
	}
}
