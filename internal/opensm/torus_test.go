package opensm

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// torusSpec is a generated torus's spec, for edits before the graph is built.
func torusSpec(t *testing.T, dims [3]int) *fabric.Spec {
	t.Helper()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindTorus3D, TorusDims: dims}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	return d.FabricSpec()
}

func TestTorusDescriptionFromDesign(t *testing.T) {
	t.Run("seed at the origin, both directions along sides of 4", func(t *testing.T) {
		spec := torusSpec(t, [3]int{4, 3, 4})
		g := buildGraph(t, spec)
		cfg, err := FromGraph(g, GraphOptions{})
		if err != nil {
			t.Fatal(err)
		}
		files, err := Render(cfg)
		if err != nil {
			t.Fatal(err)
		}
		guid := func(name string) string {
			d, _ := g.Lookup(name)
			v, _ := ParseGUID(g.Devices[d].GUID)
			return v.String()
		}
		want := []string{
			"torus 4 3 4\n",
			"xp_link " + guid("sw0-0-0") + " " + guid("sw1-0-0") + "\n",
			"xm_link " + guid("sw0-0-0") + " " + guid("sw3-0-0") + "\n",
			"yp_link " + guid("sw0-0-0") + " " + guid("sw0-1-0") + "\n",
			"zp_link " + guid("sw0-0-0") + " " + guid("sw0-0-1") + "\n",
			"zm_link " + guid("sw0-0-0") + " " + guid("sw0-0-3") + "\n",
		}
		for _, w := range want {
			if !strings.Contains(files[FileTorus2QoS], w) {
				t.Errorf("torus-2QoS.conf lacks %q:\n%s", w, files[FileTorus2QoS])
			}
		}
		if strings.Contains(files[FileTorus2QoS], "ym_link") || strings.Contains(files[FileTorus2QoS], "portgroup_max_ports") {
			t.Errorf("a side of 3 needs one direction, 8 host ports no port group size:\n%s", files[FileTorus2QoS])
		}
		if cfg.RoutingEngine != EngineTorus || !strings.Contains(files[FileOpenSMConf], "torus_config /etc/opensm/torus-2QoS.conf\n") || !strings.Contains(files[FileOpenSMConf], "qos TRUE\n") {
			t.Errorf("opensm.conf:\n%s", files[FileOpenSMConf])
		}
	})
	t.Run("an absent seed cable moves the seed", func(t *testing.T) {
		spec := torusSpec(t, [3]int{3, 3, 3})
		kept := spec.Cables[:0]
		for _, c := range spec.Cables {
			if c.A.Device == "sw0-0-0" && c.B.Device == "sw1-0-0" {
				continue // sw0-0-0's +x cable is absent
			}
			kept = append(kept, c)
		}
		spec.Cables = kept
		cfg, err := FromGraph(buildGraph(t, spec), GraphOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Torus == nil || cfg.Torus.OriginName != "sw1-0-0" || cfg.Torus.PlusN != [3]string{"sw2-0-0", "sw1-1-0", "sw1-0-1"} {
			t.Fatalf("seed %+v; want sw1-0-0, the first switch with all its + links", cfg.Torus)
		}
	})
	t.Run("the user's torus_config wins over the generated one only by conflict", func(t *testing.T) {
		g := buildGraph(t, torusSpec(t, [3]int{3, 3, 3}))
		cfg, err := FromGraph(g, GraphOptions{Options: map[string]string{"torus_config": "/etc/opensm/site-torus.conf"}})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Torus != nil || cfg.RoutingEngine != EngineTorus {
			t.Fatalf("with the user's torus_config the provider writes no description: %+v %q", cfg.Torus, cfg.RoutingEngine)
		}
		cfg.Torus = &TorusSeed{Dims: [3]int{3, 3, 3}}
		if fe := fieldErrors(t, cfg.Validate().Err())["options.torus_config"]; fe == nil || !strings.Contains(fe.Message, "remove options.torus_config") {
			t.Fatalf("description and torus_config both set: %v", cfg.Validate())
		}
	})
	t.Run("a declared torus keeps its own description path, not the provider's", func(t *testing.T) {
		spec := torusSpec(t, [3]int{3, 3, 3})
		spec.Torus = nil // as declared one by one, without a design
		g := buildGraph(t, spec)
		cfg, err := FromGraph(g, GraphOptions{})
		if err != nil || cfg.RoutingEngine != EngineDFSSSP || cfg.Torus != nil {
			t.Fatalf("declared torus without torus_config: %q %v", cfg.RoutingEngine, err)
		}
		files, _ := Render(cfg)
		if strings.Contains(files[FileOpenSMConf], "torus_config") || strings.Contains(files[FileTorus2QoS], "\ntorus ") {
			t.Fatalf("no description without a design:\n%s\n%s", files[FileOpenSMConf], files[FileTorus2QoS])
		}
		cfg, _ = FromGraph(g, GraphOptions{Options: map[string]string{"torus_config": "/etc/opensm/torus-2QoS.conf"}})
		_, err = Render(cfg)
		if fe := fieldErrors(t, err)["options.torus_config"]; fe == nil || !strings.Contains(fe.Message, "provider's own file") {
			t.Fatalf("torus_config at the provider's file: %v", err)
		}
	})
}

// A torus-2QoS.conf change alone is applied by SIGHUP: torus-2QoS re-reads it on every run.
func TestReloadTorusDescription(t *testing.T) {
	g := buildGraph(t, torusSpec(t, [3]int{3, 3, 3}))
	cfg, err := FromGraph(g, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := Render(cfg)
	cfg.Torus.PortGroupMax = 20
	after, _ := Render(cfg)
	if d := Reload(before, after); d.Action != ActionSIGHUP || !strings.Contains(strings.Join(d.Reasons, "\n"), "torus-2QoS.conf changed") {
		t.Fatalf("Reload = %v %v", d.Action, d.Reasons)
	}
}
