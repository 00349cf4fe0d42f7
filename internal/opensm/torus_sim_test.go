package opensm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// generatedTorus builds the graph of a torus-3d design as the provider does (the design's
// FabricSpec, which carries the torus layout).
func generatedTorus(t *testing.T, p topogen.Params) *fabric.Graph {
	t.Helper()
	p.Kind = topogen.KindTorus3D
	d, err := topogen.Generate(p, catalog.Default())
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	g, problems := fabric.Build(d.FabricSpec(), catalog.Default())
	if fabric.HasErrors(problems) {
		t.Fatalf("fabric.Build: %v", problems)
	}
	return g
}

// TestSimulatedGeneratedTorus routes generated tori on ibsim with the files FromGraph renders:
// torus-2QoS with the rendered torus description, no fallback, no torus-2QoS error. The 4x4x4
// needs both seed directions in every dimension (radix 4); 24 endpoints per switch need
// portgroup_max_ports 25; the 6x6x6 is the larger case the issue asks for.
func TestSimulatedGeneratedTorus(t *testing.T) {
	testrig.RequirePeers(t)
	cases := []struct {
		name    string
		p       topogen.Params
		minus   int // xm/ym/zm seed lines expected
		pgroups string
	}{
		{"4x4x4", topogen.Params{TorusDims: [3]int{4, 4, 4}}, 3, ""},
		{"6x6x6", topogen.Params{TorusDims: [3]int{6, 6, 6}}, 0, ""},
		{"4x3x2 at 24 endpoints", topogen.Params{TorusDims: [3]int{4, 3, 2}, EndpointsPerSwitch: 24}, 1, "portgroup_max_ports 25"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := generatedTorus(t, tc.p)
			sim := testrig.StartIBSim(t, ExpectedTopology(g))
			cfg, files := renderInto(t, g, sim.Dir)
			if cfg.RoutingEngine != EngineTorus || cfg.Options["qos"] != "TRUE" || cfg.Torus == nil {
				t.Fatalf("FromGraph chose %q (qos %q, torus %v); want torus-2QoS with QoS and a torus description", cfg.RoutingEngine, cfg.Options["qos"], cfg.Torus != nil)
			}
			conf, torus := files[FileOpenSMConf], files[FileTorus2QoS]
			if !strings.Contains(conf, "torus_config "+cfg.Paths.Path(FileTorus2QoS)+"\n") {
				t.Fatalf("opensm.conf does not name the torus description:\n%s", conf)
			}
			k := tc.p.TorusDims
			if !strings.Contains(torus, fmt.Sprintf("\ntorus %d %d %d\n", k[0], k[1], k[2])) {
				t.Fatalf("torus-2QoS.conf lacks the sizes:\n%s", torus)
			}
			if got := strings.Count(torus, "m_link "); got != tc.minus {
				t.Errorf("%d negative seed links, want %d (one per side of 4):\n%s", got, tc.minus, torus)
			}
			if (tc.pgroups != "") != strings.Contains(torus, "portgroup_max_ports") || !strings.Contains(torus, tc.pgroups) {
				t.Errorf("portgroup_max_ports: want %q in\n%s", tc.pgroups, torus)
			}
			smAt := HCADescription(g, g.Endpoints()[0])
			r, err := sim.RunOpenSMOnce(t, smAt, cfg.Paths.Path(FileOpenSMConf), 3*time.Minute)
			if err != nil {
				t.Fatalf("opensm: %v\n%s", err, r.Stdout)
			}
			t.Logf("opensm -o: %s", r.Elapsed.Round(time.Millisecond))
			text := r.Stdout + readLog(t, sim.Dir)
			v := ParseLog(text)
			if err := v.Check(Expect{Engine: EngineTorus, OptionFile: cfg.Paths.Path(FileOpenSMConf)}); err != nil {
				t.Fatalf("%v\nlog:\n%s", err, tail(text, 60))
			}
			for _, bad := range []string{"falls back", "minhop tables configured", "ERR 4E"} {
				if strings.Contains(text, bad) {
					t.Fatalf("log holds %q:\n%s", bad, tail(text, 60))
				}
			}
			if want := fmt.Sprintf("Built %d x %d x %d torus", k[0], k[1], k[2]); !strings.Contains(text, want) {
				t.Errorf("log lacks %q", want)
			}
		})
	}
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestSimulatedTorusDescriptionNeeded shows on ibsim that each part of the description matters:
// a 4x4x4 seeded in the positive directions only, and a switch with 24 host ports without
// portgroup_max_ports, make torus-2QoS give up, and the verdict reports the fallback.
func TestSimulatedTorusDescriptionNeeded(t *testing.T) {
	testrig.RequirePeers(t)
	cases := []struct {
		name string
		p    topogen.Params
		edit func(*TorusSeed)
		err  string
	}{
		{"radix 4 without the negative seed links", topogen.Params{TorusDims: [3]int{4, 4, 4}}, func(s *TorusSeed) { s.Minus = [3]GUID{} }, "link required for topology seed configuration since radix == 4"},
		{"24 host ports without portgroup_max_ports", topogen.Params{TorusDims: [3]int{4, 3, 2}, EndpointsPerSwitch: 24}, func(s *TorusSeed) { s.PortGroupMax = 0 }, "ERR 4E1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := generatedTorus(t, tc.p)
			sim := testrig.StartIBSim(t, ExpectedTopology(g))
			cfg, _ := renderInto(t, g, sim.Dir)
			tc.edit(cfg.Torus)
			files, err := Render(cfg)
			if err != nil {
				t.Fatal(err)
			}
			writeFiles(t, cfg.Paths, files)
			r, err := sim.RunOpenSMOnce(t, HCADescription(g, g.Endpoints()[0]), cfg.Paths.Path(FileOpenSMConf), 3*time.Minute)
			if err != nil {
				t.Fatalf("opensm: %v", err)
			}
			text := r.Stdout + readLog(t, sim.Dir)
			if !strings.Contains(text, tc.err) {
				t.Fatalf("log lacks %q:\n%s", tc.err, tail(text, 40))
			}
			err = ParseLog(text).Check(Expect{Engine: EngineTorus})
			if err == nil || !strings.Contains(err.Error(), "torus-2QoS failed (fallback)") {
				t.Fatalf("verdict should report the fallback, got %v", err)
			}
		})
	}
}
