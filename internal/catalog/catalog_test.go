package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultCatalogFacts(t *testing.T) {
	c := Default()
	for _, name := range []string{"QM9700", "QM9790"} {
		s := c.Switches[name]
		// QM97X0 user manual (Interfaces) and Linux mlx-platform: 32 OSFP cages, 2 logical NDR ports each, 1U.
		if s.Ports != 64 || s.Cages != 32 || s.PortRateGbps != 400 || s.Units != 1 {
			t.Errorf("%s = %+v, want 64 ports on 32 cages at 400 Gb/s, 1U", name, s)
		}
	}
	dgx := c.Nodes["DGX-H100"]
	if dgx.ComputeHCAs != 8 || dgx.Units != 8 || !dgx.TwinPortCages || c.HCAs[dgx.HCAModel].Ports != 1 {
		t.Errorf("DGX-H100 = %+v, want 8 single-port compute HCAs behind twin-port cages, 8U", dgx)
	}
	if c.HCAs["ConnectX-7-QSFP112"].Ports != 2 {
		t.Error("ConnectX-7 QSFP112 is dual-port")
	}
	if p := c.HCAs["ConnectX-7-OSFP"].Price; p == nil || p.USD != 2500 || p.Source == "" {
		t.Errorf("CX-7 price = %+v, want the sourced $2,500", p)
	}
	if c.HCAs["ConnectX-7-QSFP112"].Price != nil {
		t.Error("no public price exists for the QSFP112 card: it must stay unpriced")
	}
	for kind, want := range map[string]float64{KindDAC: 3, KindACC: 5, KindFiberMM: 50, KindFiberSM: 500} {
		if got, ok := c.Reach(kind); !ok || got != want {
			t.Errorf("Reach(%s) = %g, %v; want %g", kind, got, ok, want)
		}
	}
}

func TestCableFor(t *testing.T) {
	c := Default()
	cases := []struct {
		kind, ends string
		run        float64
		name       string
		length     float64
		sku        string
	}{
		{KindDAC, "switch-switch", 1.2, "MCP4Y10-N", 1.5, "MCP4Y10-N01A"},
		{KindDAC, "switch-switch", 0.4, "MCP4Y10-N", 0.5, "MCP4Y10-N00A"},
		{KindDAC, "switch-hca", 2.7, "MCP7Y00-N", 3, "MCP7Y00-N003"},
		{KindFiberMM, "switch-hca", 12, "MFP7E10-N", 15, "MFP7E10-N015"},
		{KindFiberMM, "switch-switch", 50, "MFP7E10-N", 50, "MFP7E10-N050"},
	}
	for _, tc := range cases {
		k, l, ok := c.CableFor(tc.kind, tc.ends, tc.run)
		if !ok || k.Name != tc.name || l != tc.length || k.SKU(l) != tc.sku {
			t.Errorf("CableFor(%s, %s, %g) = %s %g %s %v; want %s %g %s", tc.kind, tc.ends, tc.run, k.Name, l, k.SKU(l), ok, tc.name, tc.length, tc.sku)
		}
	}
	if _, _, ok := c.CableFor(KindDAC, "switch-switch", 2.5); ok {
		t.Error("a 2.5 m switch-to-switch run is beyond every DAC's reach")
	}
}

func TestUserFileOverridesWhole(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "site.hcl")
	if err := os.WriteFile(f, []byte(`
switch_model "QM9700" {
  ports          = 64
  port_rate_gbps = 400
  price          = 61000
  price_source   = "PO 114"
}
switch_model "HDR-40" {
  ports          = 40
  port_rate_gbps = 200
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(f)
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Switches["QM9700"].Price; p == nil || p.USD != 61000 || p.Source != "PO 114" {
		t.Errorf("override price = %+v", p)
	}
	if c.Switches["QM9700"].SKU != "" {
		t.Error("an override replaces the entry whole: the built-in SKU must not leak into it")
	}
	if c.Switches["HDR-40"].Cages != 20 {
		t.Errorf("cages default to ports/2, got %d", c.Switches["HDR-40"].Cages)
	}
}

func TestBadCatalogFiles(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"syntax":     {`switch_model "x" {`, "invalid catalog"},
		"ports":      {"switch_model \"x\" {\n ports = 0\n port_rate_gbps = 400\n}", `switch_model "x" needs ports > 0`},
		"kind":       {"cable \"x\" {\n kind = \"wet-string\"\n lengths_m = [1]\n reach_m = 1\n}", `valid kinds: dac, acc, aoc, fiber-mm, fiber-sm`},
		"hca model":  {"node_model \"n\" {\n units = 2\n compute_hcas = 4\n hca_model = \"nope\"\n}", `names hca_model "nope"`},
		"unknown at": {`gpu_model "x" {}`, "invalid catalog"},
	}
	for name, tc := range cases {
		_, err := loadSource(name+".hcl", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to contain %q", name, err, tc.want)
		}
	}
}

// Port p sits in cage (p-1)/PortsPerCage + 1, so rounding must never number a cage past the
// model's last.
func TestPortsPerCage(t *testing.T) {
	cases := []struct {
		ports, cages, want int
	}{
		{64, 32, 2}, // QM9700: 32 twin-port OSFP cages
		{5, 3, 2},   // the default cages for 5 ports: 2, 2 and 1
		{64, 20, 4}, // 16 cages of 4 fill 64 ports; 3 a cage would need 22 cages
		{36, 36, 1},
		{8, 16, 1}, // more cages than ports: one port each, the rest unused
		{0, 0, 1},  // the zero model of an unknown name
	}
	for _, c := range cases {
		got := SwitchModel{Ports: c.ports, Cages: c.cages}.PortsPerCage()
		if got != c.want {
			t.Errorf("%d ports in %d cages: %d per cage, want %d", c.ports, c.cages, got, c.want)
		}
		if c.ports > 0 && (c.ports-1)/got+1 > c.cages {
			t.Errorf("%d ports in %d cages: port %d lands in cage %d", c.ports, c.cages, c.ports, (c.ports-1)/got+1)
		}
	}
}
