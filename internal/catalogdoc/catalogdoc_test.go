package catalogdoc

import (
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// TestBuiltin: the fragments of the built-in catalog, as the documentation shows them.
func TestBuiltin(t *testing.T) {
	d := Of(catalog.Default())
	for got, want := range map[string]string{
		d.SwitchModels():    "`QM9700`, `QM9790`",
		d.Defaults():        "DGX-H100 nodes, ConnectX-7-OSFP HCAs and QM9700 switches",
		d.ComputeHCAs():     "8 for a DGX-H100: one ConnectX-7-OSFP per GPU",
		d.HCAExample():      "one of the 8 ConnectX-7-OSFP HCAs of a DGX-H100",
		d.ComputeRails():    "0-7 on a DGX-H100",
		d.SwitchPorts():     "64 for a QM9700: 32 cages of 2 ports",
		d.SwitchPortRange(): "1-64 on a QM9700 (2 per cage)",
		d.HCAPorts():        "1 on the DGX-H100's ConnectX-7-OSFP",
		d.LinkRate():        "400G",
		d.Bundle():          "2 × 400G = 800 Gb/s",
		d.SimSpeed():        "400G links are written as `4xHDR` (for `4xNDR`)",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestFollowsTheDefaults: the fragments are the default models' facts, not fixed text: a default
// switch of single-port cages and a default node with fewer HCAs than GPUs read as such.
func TestFollowsTheDefaults(t *testing.T) {
	cat := catalog.Default()
	s := cat.Switches[topogen.DefaultSwitchModel]
	s.Cages, s.PortRateGbps = s.Ports, 800
	cat.Switches[topogen.DefaultSwitchModel] = s
	n := cat.Nodes[topogen.DefaultNodeModel]
	n.ComputeHCAs = 4
	cat.Nodes[topogen.DefaultNodeModel] = n
	d := Of(cat)
	for got, want := range map[string]string{
		d.SwitchPorts():  "64 for a QM9700: 64 cages of 1 port",
		d.LinkRate():     "800G",
		d.ComputeHCAs():  "4 for a DGX-H100",
		d.ComputeRails(): "0-3 on a DGX-H100",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}
