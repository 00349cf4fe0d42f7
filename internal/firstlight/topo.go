package firstlight

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Topo is the design as an ibdm topology file (ibutils' ibdm-topo-file(1): one section per
// system, `SYSTEM-TYPE SYSTEM-NAME` then `LOCAL-PORT-PANEL -> REM-SYS-TYPE REM-SYS-NAME
// REM-PORT-PANEL` lines, a blank line between sections), and the IBNL system definitions it
// names, by file name. Debian's ibutils ships IBNLs for old Mellanox systems only (MTS3600,
// IS5x00, ...; wave4-facts section 6.1), so every system type here comes with its own: a switch
// model is one switch ASIC whose port p is panel P<p>; a node model is one CA per compute HCA,
// HCA k of the node (in the design's order) behind panel P<k>. Point ibdm at them with
// IBDM_IBNL_PATH.
type Topo struct {
	Text string
	IBNL map[string]string
}

// Device ids the IBNLs declare (NODE ... <devtype>): the ASIC of each catalog family, as
// NVIDIA's PCI ids name them (Quantum-2 0xd2f0 = 54000, ConnectX-7 0x1021 = 4129).
var ibnlDevType = map[string]string{"switch": "MT54000", "hca": "MT4129"}

// systemType is a catalog model as an IBNL system type: letters, digits and '_' only.
func systemType(model string) string {
	var b strings.Builder
	for _, r := range model {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "SYS" + s
	}
	return s
}

// ExportTopo writes the design (built) as a Topo. Each link is written once: from the switch for
// a node's cable (as ibutils' own SingleGazelle.topo does), else from its first end.
func ExportTopo(g *fabric.Graph) Topo {
	type panel struct{ sys, typ, port string }
	hcaIdx := map[string]int{}
	perNode := map[string]int{}
	nodeModel := map[string]string{}
	for _, n := range g.Spec.Nodes {
		nodeModel[n.Name] = n.Model
	}
	hcaPorts := map[string]int{} // node -> the most ports of its HCAs
	for _, d := range g.Devices {
		if d.Kind == fabric.KindHCA {
			perNode[d.Node]++
			hcaIdx[d.Name] = perNode[d.Node]
			hcaPorts[d.Node] = max(hcaPorts[d.Node], d.Ports)
		}
	}
	at := func(d int32, port int) panel {
		dev := &g.Devices[d]
		if dev.Kind == fabric.KindSwitch {
			return panel{dev.Name, systemType(dev.Model), fmt.Sprintf("P%d", port)}
		}
		p := fmt.Sprintf("P%d", hcaIdx[dev.Name])
		if hcaPorts[dev.Node] > 1 {
			p = fmt.Sprintf("P%d.%d", hcaIdx[dev.Name], port)
		}
		return panel{dev.Node, "NODE_" + systemType(nodeModel[dev.Node]), p}
	}
	type line struct {
		panel float64 // the local panel's number (panelNum), which orders a system's lines
		text  string
	}
	lines := map[string][]line{}
	types := map[string]string{}
	for _, l := range g.Links {
		a, b := at(l.A, l.PortA), at(l.B, l.PortB)
		if g.Devices[l.A].Kind == fabric.KindHCA && g.Devices[l.B].Kind == fabric.KindSwitch {
			a, b = b, a
		}
		types[a.sys], types[b.sys] = a.typ, b.typ
		lines[a.sys] = append(lines[a.sys], line{panelNum(a.port), "   " + a.port + " -> " + b.typ + " " + b.sys + " " + b.port})
	}
	systems := make([]string, 0, len(lines))
	for s := range lines {
		systems = append(systems, s)
	}
	sort.Strings(systems)
	var t strings.Builder
	t.WriteString("# Expected fabric, written by terraform-provider-gpucluster from the design (ibdm topology file).\n")
	t.WriteString("# Its system types are defined by the IBNL files written beside it (IBDM_IBNL_PATH).\n")
	for _, s := range systems {
		ls := lines[s]
		sort.SliceStable(ls, func(i, j int) bool { return ls[i].panel < ls[j].panel })
		fmt.Fprintf(&t, "\n%s %s\n", types[s], s)
		for _, l := range ls {
			t.WriteString(l.text + "\n")
		}
	}
	return Topo{Text: t.String(), IBNL: ibnls(g, hcaPorts, perNode, nodeModel)}
}

// panelNum is a panel's number ("P12" 12, "P3.2" 3.2), which orders a system's lines.
func panelNum(panel string) float64 {
	n, err := strconv.ParseFloat(strings.TrimPrefix(panel, "P"), 64)
	if err != nil {
		return 0 // a panel without a number sorts first; every panel written here has one
	}
	return n
}

// ibnls defines each system type the topology names: one switch ASIC per switch model, one CA
// per HCA slot per node model (the most HCAs and ports any node of the model has).
func ibnls(g *fabric.Graph, hcaPorts, perNode map[string]int, nodeModel map[string]string) map[string]string {
	out := map[string]string{}
	for _, d := range g.Devices {
		if d.Kind != fabric.KindSwitch {
			continue
		}
		typ := systemType(d.Model)
		if _, ok := out[typ+".ibnl"]; ok {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "TOPSYSTEM %s\n\nNODE SW %d %s U1\n", typ, d.Ports, ibnlDevType["switch"])
		for p := 1; p <= d.Ports; p++ {
			fmt.Fprintf(&b, "   %d -> P%d\n", p, p)
		}
		out[typ+".ibnl"] = b.String()
	}
	models := map[string][2]int{} // node type -> HCAs, ports per HCA
	for node, n := range perNode {
		typ := "NODE_" + systemType(nodeModel[node])
		m := models[typ]
		models[typ] = [2]int{max(m[0], n), max(m[1], hcaPorts[node])}
	}
	for typ, m := range models {
		var b strings.Builder
		fmt.Fprintf(&b, "TOPSYSTEM %s\n", typ)
		for k := 1; k <= m[0]; k++ {
			fmt.Fprintf(&b, "\nNODE CA %d %s U%d\n", m[1], ibnlDevType["hca"], k)
			for p := 1; p <= m[1]; p++ {
				if m[1] == 1 {
					fmt.Fprintf(&b, "   %d -> P%d\n", p, k)
				} else {
					fmt.Fprintf(&b, "   %d -> P%d.%d\n", p, k, p)
				}
			}
		}
		out[typ+".ibnl"] = b.String()
	}
	return out
}
