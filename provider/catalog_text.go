package provider

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/diagram"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// Descriptions that name a model, a port count or a speed take it from the built-in catalog
// (internal/catalog/catalog.hcl) and the default models (topogen.DefaultSwitchModel,
// DefaultNodeModel), so a model added to the catalog is one entry there: `make docs` carries it
// into the documentation, and no description names a model by hand.

var builtinCatalog = sync.OnceValue(catalog.Default)

// catalogText writes the description fragments of one catalog.
type catalogText struct{ cat *catalog.Catalog }

// docText is the fragments of the built-in catalog, which the schema descriptions show.
func docText() catalogText { return catalogText{builtinCatalog()} }

func (c catalogText) defaultSwitch() catalog.SwitchModel { return c.cat.Switches[defaultSwitchModel] }

// switchModels, nodeModels and hcaModels list the catalog's models: "`QM9700`, `QM9790`".
func (c catalogText) switchModels() string { return codeList(c.cat.SwitchNames()) }
func (c catalogText) nodeModels() string   { return codeList(c.cat.NodeNames()) }
func (c catalogText) hcaModels() string    { return codeList(c.cat.HCANames()) }

func codeList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}

// defaults names the default models: "DGX-H100 nodes, ConnectX-7-OSFP HCAs and QM9700 switches".
func (c catalogText) defaults() string {
	return fmt.Sprintf("%s nodes, %s HCAs and %s switches", defaultNodeModel, c.cat.Nodes[defaultNodeModel].HCAModel, defaultSwitchModel)
}

// computeHCAs is the default node's compute HCA count: "8 for a DGX-H100: one ConnectX-7-OSFP
// per GPU".
func (c catalogText) computeHCAs() string {
	n := c.cat.Nodes[defaultNodeModel]
	s := fmt.Sprintf("%d for a %s", n.ComputeHCAs, n.Name)
	if n.GPUs > 0 && n.GPUs == n.ComputeHCAs {
		s += fmt.Sprintf(": one %s per GPU", n.HCAModel)
	}
	return s
}

// hcaExample is "one of the 8 ConnectX-7-OSFP HCAs of a DGX-H100".
func (c catalogText) hcaExample() string {
	n := c.cat.Nodes[defaultNodeModel]
	return fmt.Sprintf("one of the %d %s HCAs of a %s", n.ComputeHCAs, n.HCAModel, n.Name)
}

// computeRails is the rail range of the default node: "0-7 on a DGX-H100".
func (c catalogText) computeRails() string {
	n := c.cat.Nodes[defaultNodeModel]
	return fmt.Sprintf("0-%d on a %s", n.ComputeHCAs-1, n.Name)
}

// switchPorts is the default switch's port count and cages: "64 for a QM9700: 32 cages of 2
// ports".
func (c catalogText) switchPorts() string {
	s := c.defaultSwitch()
	ports := "ports"
	if s.PortsPerCage() == 1 {
		ports = "port"
	}
	return fmt.Sprintf("%d for a %s: %d cages of %d %s", s.Ports, s.Name, s.Cages, s.PortsPerCage(), ports)
}

// switchPortRange is "1-64 on a QM9700 (2 per cage)".
func (c catalogText) switchPortRange() string {
	s := c.defaultSwitch()
	return fmt.Sprintf("1-%d on a %s (%d per cage)", s.Ports, s.Name, s.PortsPerCage())
}

// hcaPorts names the port count of the default node's HCA: "1 on the DGX-H100's ConnectX-7-OSFP".
func (c catalogText) hcaPorts() string {
	n := c.cat.Nodes[defaultNodeModel]
	return fmt.Sprintf("%d on the %s's %s", c.cat.HCAs[n.HCAModel].Ports, n.Name, n.HCAModel)
}

// linkRate is the default switch's port rate as a link speed: "400G".
func (c catalogText) linkRate() string {
	return strconv.FormatFloat(c.defaultSwitch().PortRateGbps, 'f', -1, 64) + "G"
}

// bundle is how the diagram labels two parallel links of the default switch:
// "2 × 400G = 800 Gb/s" (diagram.BundleLabel).
func (c catalogText) bundle() string {
	return (&diagram.Diagram{}).BundleLabel(diagram.Bundle{Links: 2, Gbps: 2 * c.defaultSwitch().PortRateGbps})
}

// simSpeed is how the default switch's links are written for ibsim and what they stand for:
// "400G links are written as `4xHDR` (for `4xNDR`)".
func (c catalogText) simSpeed() string {
	lane := opensm.LaneSpeed(c.defaultSwitch().PortRateGbps)
	return fmt.Sprintf("%s links are written as `4x%s` (for `4x%s`)", c.linkRate(), opensm.SimSpeed(lane), lane)
}
