package opensm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// smallSpec is a hand-built fabric: switches (name, group), HCAs per switch, switch cables.
func smallSpec(switches []fabric.Switch, hcasOn map[string]int, links [][2]fabric.End) *fabric.Spec {
	s := &fabric.Spec{Switches: switches}
	h := 0
	port := map[string]int{}
	for i := range s.Switches {
		s.Switches[i].Model = "QM9700"
		if s.Switches[i].GUID == "" {
			s.Switches[i].GUID = fmt.Sprintf("0x%016x", 0x0002c90300001001+i)
		}
	}
	for _, sw := range switches {
		for k := 0; k < hcasOn[sw.Name]; k++ {
			node := fmt.Sprintf("n%03d", h)
			s.Nodes = append(s.Nodes, fabric.Node{Name: node, Model: "DGX-H100"})
			s.HCAs = append(s.HCAs, fabric.HCA{Name: node + "/mlx5_0", Node: node, Device: "mlx5_0", PortGUID: fmt.Sprintf("0x%016x", 0x0002c90300100001+0x10*h)})
			port[sw.Name]++
			s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: node + "/mlx5_0", Port: 1}, B: fabric.End{Device: sw.Name, Port: port[sw.Name]}})
			h++
		}
	}
	for _, l := range links {
		s.Cables = append(s.Cables, fabric.Cable{A: l[0], B: l[1]})
	}
	return s
}

func e(dev string, port int) fabric.End { return fabric.End{Device: dev, Port: port} }

func TestClassifyAndDefaultEngine(t *testing.T) {
	threeTier := smallSpec(
		[]fabric.Switch{{Name: "core01"}, {Name: "spine01"}, {Name: "spine02"}, {Name: "leaf01"}, {Name: "leaf02"}},
		map[string]int{"leaf01": 2, "leaf02": 2},
		[][2]fabric.End{{e("leaf01", 10), e("spine01", 1)}, {e("leaf02", 10), e("spine02", 1)}, {e("spine01", 10), e("core01", 1)}, {e("spine02", 10), e("core01", 2)}})
	// Rail-optimized: the HCA of rail r of every node goes to rail leaf r.
	rail := &fabric.Spec{Switches: []fabric.Switch{{Name: "spine01", Model: "QM9700"}, {Name: "rail0", Model: "QM9700"}, {Name: "rail1", Model: "QM9700"}}}
	for n := 0; n < 2; n++ {
		node := fmt.Sprintf("gpu%03d", n+1)
		rail.Nodes = append(rail.Nodes, fabric.Node{Name: node, Model: "DGX-H100"})
		for r := 0; r < 2; r++ {
			name := fmt.Sprintf("%s/mlx5_%d", node, r)
			rail.HCAs = append(rail.HCAs, fabric.HCA{Name: name, Node: node, Device: fmt.Sprintf("mlx5_%d", r), Rail: r})
			rail.Cables = append(rail.Cables, fabric.Cable{A: e(name, 1), B: e(fmt.Sprintf("rail%d", r), n+1)})
		}
	}
	rail.Cables = append(rail.Cables, fabric.Cable{A: e("rail0", 10), B: e("spine01", 1)}, fabric.Cable{A: e("rail1", 10), B: e("spine01", 2)})
	dragonfly := smallSpec(
		[]fabric.Switch{{Name: "g1s1", Group: "g1"}, {Name: "g1l1", Group: "g1"}, {Name: "g2s1", Group: "g2"}, {Name: "g2l1", Group: "g2"}},
		map[string]int{"g1l1": 2, "g2l1": 2},
		[][2]fabric.End{{e("g1l1", 10), e("g1s1", 1)}, {e("g2l1", 10), e("g2s1", 1)}, {e("g1s1", 20), e("g2s1", 20)}})
	torus := smallSpec(
		[]fabric.Switch{{Name: "t0"}, {Name: "t1"}, {Name: "t2"}, {Name: "t3"}},
		map[string]int{"t0": 1, "t1": 1, "t2": 1, "t3": 1},
		[][2]fabric.End{{e("t0", 10), e("t1", 11)}, {e("t1", 10), e("t2", 11)}, {e("t2", 10), e("t3", 11)}, {e("t3", 10), e("t0", 11)}})
	single := smallSpec([]fabric.Switch{{Name: "sw"}}, map[string]int{"sw": 3}, nil)
	// The smallest real fabric: two leaves cabled back to back with two parallel links.
	backToBack := smallSpec([]fabric.Switch{{Name: "leaf01"}, {Name: "leaf02"}}, map[string]int{"leaf01": 2, "leaf02": 2},
		[][2]fabric.End{{e("leaf01", 10), e("leaf02", 10)}, {e("leaf01", 11), e("leaf02", 11)}})
	chain := smallSpec([]fabric.Switch{{Name: "l1"}, {Name: "l2"}, {Name: "l3"}}, map[string]int{"l1": 1, "l2": 1, "l3": 1},
		[][2]fabric.End{{e("l1", 10), e("l2", 10)}, {e("l2", 11), e("l3", 11)}})

	cases := []struct {
		name   string
		spec   *fabric.Spec
		kind   string
		engine string
		top    []string
	}{
		{"2-tier fat tree", fatTreeSpec(4, 2, 16), TopoFatTree, "ftree", []string{"spine01", "spine02"}},
		{"3-tier fat tree", threeTier, TopoFatTree, "ftree", []string{"core01"}},
		{"rail-optimized", rail, TopoFatTree, "ftree", []string{"spine01"}},
		{"dragonfly+", dragonfly, TopoDragonfly, "updn", []string{"g1s1", "g2s1"}},
		{"torus", torus, TopoTorus, "torus-2QoS", []string{"t0", "t1", "t2", "t3"}},
		{"single switch", single, TopoOther, "minhop", []string{"sw"}},
		{"leaves back to back", backToBack, TopoOther, "minhop", []string{"leaf01", "leaf02"}},
		{"chain of leaves", chain, TopoOther, "minhop", []string{"l1", "l2", "l3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := buildGraph(t, c.spec)
			if k := Classify(g); k != c.kind {
				t.Errorf("Classify = %s, want %s", k, c.kind)
			}
			if en := DefaultEngine(g); en != c.engine {
				t.Errorf("DefaultEngine = %s, want %s", en, c.engine)
			}
			var top []string
			for _, d := range TopTier(g) {
				top = append(top, g.Devices[d].Name)
			}
			if strings.Join(top, ",") != strings.Join(c.top, ",") {
				t.Errorf("TopTier = %v, want %v", top, c.top)
			}
		})
	}
	t.Run("torus without a description routes with dfsssp", func(t *testing.T) {
		cfg, err := FromGraph(buildGraph(t, torus), GraphOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.RoutingEngine != EngineDFSSSP || cfg.Options["qos"] != "TRUE" {
			t.Fatalf("torus without torus_config: engine %q, qos %q; want dfsssp with qos", cfg.RoutingEngine, cfg.Options["qos"])
		}
		if _, err := Render(cfg); err != nil {
			t.Fatalf("a torus the user gave no engine must render: %v", err)
		}
	})
	t.Run("torus-2QoS asked for without a description is refused", func(t *testing.T) {
		cfg, err := FromGraph(buildGraph(t, torus), GraphOptions{RoutingEngine: EngineTorus, Options: map[string]string{"qos": "TRUE"}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Render(cfg)
		if fe := fieldErrors(t, err)["options.torus_config"]; fe == nil || !strings.Contains(fe.Message, "falls back to minhop") {
			t.Fatalf("torus-2QoS without torus_config: %v", err)
		}
	})
	t.Run("torus with a description routes with torus-2QoS", func(t *testing.T) {
		// The user's own description, beside the provider's torus-2QoS.conf (FileTorus2QoS).
		cfg, err := FromGraph(buildGraph(t, torus), GraphOptions{Options: map[string]string{"torus_config": "/etc/opensm/site-torus-2QoS.conf"}})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.RoutingEngine != EngineTorus || cfg.Options["qos"] != "TRUE" {
			t.Fatalf("torus with torus_config: engine %q, qos %q", cfg.RoutingEngine, cfg.Options["qos"])
		}
		f, err := Render(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// torus-2QoS reads neither GUID file: opensm.conf does not name them.
		if conf := f[FileOpenSMConf]; strings.Contains(conf, "root_guid_file") || strings.Contains(conf, "cn_guid_file") {
			t.Fatalf("torus opensm.conf names GUID files:\n%s", conf)
		}
	})
	for _, c := range []struct {
		name string
		spec *fabric.Spec
	}{{"leaves back to back", backToBack}, {"chain of leaves", chain}} {
		t.Run(c.name+" render with minhop", func(t *testing.T) {
			cfg, err := FromGraph(buildGraph(t, c.spec), GraphOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if cfg.RoutingEngine != EngineMinhop {
				t.Fatalf("engine %q, want minhop", cfg.RoutingEngine)
			}
			if _, err := Render(cfg); err != nil {
				t.Fatalf("render: %v", err)
			}
		})
	}
	t.Run("dragonfly roots for updn", func(t *testing.T) {
		cfg, err := FromGraph(buildGraph(t, dragonfly), GraphOptions{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := Render(cfg)
		if err != nil {
			t.Fatal(err)
		}
		conf := f[FileOpenSMConf]
		if len(cfg.Roots) != 2 || !strings.Contains(conf, "root_guid_file") || strings.Contains(conf, "cn_guid_file") {
			t.Fatalf("updn config: %d roots; opensm.conf must name the root file and not the CN file (ftree's):\n%s", len(cfg.Roots), conf)
		}
	})
}

func TestFromGraphFatTree(t *testing.T) {
	g := buildGraph(t, fatTreeSpec(4, 2, 16))
	cfg, err := FromGraph(g, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RoutingEngine != "ftree" || len(cfg.Roots) != 2 || cfg.Roots[0] != 0x0002c90300001001 || len(cfg.ComputeNodes) != 64 || cfg.ComputeNodes[63] != hcaGUID(63) {
		t.Fatalf("config: %s roots %v, %d CNs", cfg.RoutingEngine, cfg.Roots, len(cfg.ComputeNodes))
	}
	if len(cfg.NodeNames) != 70 || cfg.NodeNames[6].Name != "gpu001 mlx5_0" || cfg.NodeNames[0].Name != "spine01" {
		t.Fatalf("node names: %d, %+v %+v", len(cfg.NodeNames), cfg.NodeNames[0], cfg.NodeNames[6])
	}
	// The user's engine wins; CNs are ftree's only.
	cfg, err = FromGraph(g, GraphOptions{RoutingEngine: "updn", LMC: 2})
	if err != nil || len(cfg.Roots) != 2 {
		t.Fatalf("updn: %v, %d roots", err, len(cfg.Roots))
	}
	f, err := Render(cfg)
	if err != nil {
		t.Fatalf("updn with lmc 2 should render: %v", err)
	}
	// The CN list is still written (a running ftree re-reads it until restarted), but
	// opensm.conf no longer names it.
	if strings.Contains(f[FileOpenSMConf], "cn_guid_file") || !strings.Contains(f[FileCNGUIDs], hcaGUID(63).String()) {
		t.Fatalf("updn files:\n%s\n%s", f[FileOpenSMConf], f[FileCNGUIDs])
	}
}

func TestFromGraphTwoPortHCA(t *testing.T) {
	s := smallSpec([]fabric.Switch{{Name: "spine01"}, {Name: "leaf01"}, {Name: "leaf02"}}, nil,
		[][2]fabric.End{{e("leaf01", 10), e("spine01", 1)}, {e("leaf02", 10), e("spine01", 2)}})
	s.Nodes = []fabric.Node{{Name: "gpu001", Model: "HGX-H100"}}
	s.HCAs = []fabric.HCA{{Name: "gpu001/mlx5_0", Node: "gpu001", Device: "mlx5_0", Model: "ConnectX-7-QSFP112", PortGUID: "0x0002c90300100001"}}
	s.Cables = append(s.Cables, fabric.Cable{A: e("gpu001/mlx5_0", 1), B: e("leaf01", 1)}, fabric.Cable{A: e("gpu001/mlx5_0", 2), B: e("leaf02", 1)})
	g := buildGraph(t, s)
	cfg, err := FromGraph(g, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.ComputeNodes) != 2 || cfg.ComputeNodes[1] != 0x0002c90300100002 {
		t.Fatalf("CNs of a 2-port HCA: %v", cfg.ComputeNodes)
	}
	// In the simulator, port 2 gets node GUID + 2 = declared GUID + 1: no drift.
	d, err := ParseTopology(ExpectedTopology(g))
	if err != nil {
		t.Fatal(err)
	}
	if r := DriftWith(g, d, DriftOptions{Simulated: true}); !r.Clean() {
		t.Fatalf("drift:\n%s", r)
	}
}

func TestValidateRoots(t *testing.T) {
	g := buildGraph(t, fatTreeSpec(4, 2, 16))
	spine1, spine2, leaf1 := "0x0002c90300001001", "0x0002c90300001002", "0x0002c90300001003"
	cases := []struct {
		roots []string
		field string
		want  string
	}{
		{[]string{spine1, spine2}, "", ""},
		{[]string{spine1, leaf1}, "roots[1]", "not a top-tier switch"},
		{[]string{spine1}, "roots", "missing spine02"},
		{[]string{hcaGUID(0).String()}, "roots[0]", "is HCA gpu001/mlx5_0"},
		{[]string{"0x1234"}, "roots[0]", "not the GUID of a switch"},
		{[]string{"spine01"}, "roots[0]", "write it as 0x"},
	}
	for _, c := range cases {
		cfg, err := FromGraph(g, GraphOptions{Roots: c.roots})
		if c.field == "" {
			if err != nil || len(cfg.Roots) != len(c.roots) {
				t.Errorf("roots %v: %v", c.roots, err)
			}
			continue
		}
		fe := fieldErrors(t, err)[c.field]
		if fe == nil || fe.Option != "root_guid_file" || !strings.Contains(fe.Message, c.want) {
			t.Errorf("roots %v: error on %s = %+v, want %q", c.roots, c.field, fe, c.want)
		}
	}
	// updn accepts a subset of the top tier.
	if errs := ValidateRoots(g, []GUID{0x0002c90300001001}, false); len(errs) != 0 {
		t.Errorf("updn subset: %v", errs)
	}
}

func TestParseGUID(t *testing.T) {
	for s, want := range map[string]GUID{
		"0x0002c90300001001": 0x0002c90300001001, "0X2C90300001001": 0x2c90300001001,
		"0002:c903:0000:1001": 0x0002c90300001001, "00:02:c9:03:00:00:10:01": 0x0002c90300001001,
		"0002c90300001001": 0x0002c90300001001, " 0x1 ": 1,
	} {
		if g, err := ParseGUID(s); err != nil || g != want {
			t.Errorf("ParseGUID(%q) = %s, %v; want %s", s, g, err, want)
		}
	}
	for _, s := range []string{"", "0x", "0x0", "0x10000000000000000", "12345", "0xg", "00:02"} {
		if _, err := ParseGUID(s); err == nil {
			t.Errorf("ParseGUID(%q) accepted", s)
		}
	}
	if GUID(0x2c9).String() != "0x00000000000002c9" {
		t.Errorf("String: %s", GUID(0x2c9))
	}
}
