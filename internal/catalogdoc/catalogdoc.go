package catalogdoc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/diagram"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Text writes the fragments of one catalog.
type Text struct{ cat *catalog.Catalog }

// Of is the fragments of cat.
func Of(cat *catalog.Catalog) Text { return Text{cat} }

func (t Text) defaultSwitch() catalog.SwitchModel { return t.cat.Switches[topogen.DefaultSwitchModel] }
func (t Text) defaultNode() catalog.NodeModel     { return t.cat.Nodes[topogen.DefaultNodeModel] }

// SwitchModels, NodeModels and HCAModels list the catalog's models: "`QM9700`, `QM9790`".
func (t Text) SwitchModels() string { return codeList(t.cat.SwitchNames()) }
func (t Text) NodeModels() string   { return codeList(t.cat.NodeNames()) }
func (t Text) HCAModels() string    { return codeList(t.cat.HCANames()) }

func codeList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return strings.Join(q, ", ")
}

// Defaults names the default models: "DGX-H100 nodes, ConnectX-7-OSFP HCAs and QM9700 switches".
func (t Text) Defaults() string {
	return fmt.Sprintf("%s nodes, %s HCAs and %s switches", topogen.DefaultNodeModel, t.defaultNode().HCAModel, topogen.DefaultSwitchModel)
}

// ComputeHCAs is the default node's compute HCA count: "8 for a DGX-H100: one ConnectX-7-OSFP
// per GPU".
func (t Text) ComputeHCAs() string {
	n := t.defaultNode()
	s := fmt.Sprintf("%d for a %s", n.ComputeHCAs, n.Name)
	if n.GPUs > 0 && n.GPUs == n.ComputeHCAs {
		s += fmt.Sprintf(": one %s per GPU", n.HCAModel)
	}
	return s
}

// HCAExample is "one of the 8 ConnectX-7-OSFP HCAs of a DGX-H100".
func (t Text) HCAExample() string {
	n := t.defaultNode()
	return fmt.Sprintf("one of the %d %s HCAs of a %s", n.ComputeHCAs, n.HCAModel, n.Name)
}

// ComputeRails is the rail range of the default node: "0-7 on a DGX-H100".
func (t Text) ComputeRails() string {
	n := t.defaultNode()
	return fmt.Sprintf("0-%d on a %s", n.ComputeHCAs-1, n.Name)
}

// SwitchPorts is the default switch's port count and cages: "64 for a QM9700: 32 cages of 2
// ports".
func (t Text) SwitchPorts() string {
	s := t.defaultSwitch()
	ports := "ports"
	if s.PortsPerCage() == 1 {
		ports = "port"
	}
	return fmt.Sprintf("%d for a %s: %d cages of %d %s", s.Ports, s.Name, s.Cages, s.PortsPerCage(), ports)
}

// SwitchPortRange is "1-64 on a QM9700 (2 per cage)".
func (t Text) SwitchPortRange() string {
	s := t.defaultSwitch()
	return fmt.Sprintf("1-%d on a %s (%d per cage)", s.Ports, s.Name, s.PortsPerCage())
}

// HCAPorts names the port count of the default node's HCA: "1 on the DGX-H100's ConnectX-7-OSFP".
func (t Text) HCAPorts() string {
	n := t.defaultNode()
	return fmt.Sprintf("%d on the %s's %s", t.cat.HCAs[n.HCAModel].Ports, n.Name, n.HCAModel)
}

// LinkRate is the default switch's port rate as a link speed: "400G".
func (t Text) LinkRate() string {
	return strconv.FormatFloat(t.defaultSwitch().PortRateGbps, 'f', -1, 64) + "G"
}

// Bundle is how the diagram labels two parallel links of the default switch:
// "2 × 400G = 800 Gb/s" (diagram.BundleLabel).
func (t Text) Bundle() string {
	return (&diagram.Diagram{}).BundleLabel(diagram.Bundle{Links: 2, Gbps: 2 * t.defaultSwitch().PortRateGbps})
}

// SimSpeed is how the default switch's links are written for ibsim and what they stand for:
// "400G links are written as `4xHDR` (for `4xNDR`)".
func (t Text) SimSpeed() string {
	lane := opensm.LaneSpeed(t.defaultSwitch().PortRateGbps)
	return fmt.Sprintf("%s links are written as `4x%s` (for `4x%s`)", t.LinkRate(), opensm.SimSpeed(lane), lane)
}
