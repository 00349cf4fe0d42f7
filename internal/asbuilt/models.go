package asbuilt

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Device IDs as ibnetdiscover prints them (devid=, the NodeInfo DeviceID, which NVIDIA parts set
// to their PCI device ID), vendor 0x15b3/0x02c9. Source: the PCI ID Repository (pci.ids), vendor
// 15b3: 1021 "MT2910 Family [ConnectX-7]", cf08 "Switch-IB2", d2f0 "Quantum HDR (200Gbps)
// switch", d2f2 "Quantum-2 NDR (400Gbps) switch", d2f4 "Quantum-3". Only IDs named there are
// listed; any other ID is reported as unknown rather than guessed.
var deviceFamilies = map[uint32]string{
	0x1021: "ConnectX-7",
	0xcf08: "Switch-IB 2",
	0xd2f0: "Quantum",
	0xd2f2: "Quantum-2",
	0xd2f4: "Quantum-3",
}

// familyOf says which device family a catalog model belongs to, for the models the built-in
// catalog holds (QM97x0: Quantum-2, QM97X0 user manual; ConnectX-7 HCAs by name). A model of a
// user's catalog that is not listed matches any device ID.
func familyOf(model string) string {
	switch {
	case model == "QM9700" || model == "QM9790":
		return "Quantum-2"
	case strings.HasPrefix(model, "ConnectX-7"):
		return "ConnectX-7"
	}
	return ""
}

// partModel finds the catalog switch model a managed switch names in its description
// ("MF0;leaf07:MQM9700/U1" names MQM9700): a model named so, or so without NVIDIA's leading 'M',
// or whose SKU starts with it (MQM9790-NS2F).
func partModel(cat *catalog.Catalog, part string) (string, bool) {
	if part == "" {
		return "", false
	}
	if _, ok := cat.Switches[part]; ok {
		return part, true
	}
	if _, ok := cat.Switches[strings.TrimPrefix(part, "M")]; ok {
		return strings.TrimPrefix(part, "M"), true
	}
	for _, name := range cat.SwitchNames() {
		if sku := cat.Switches[name].SKU; sku != "" && (sku == part || strings.HasPrefix(sku, part+"-")) {
			return name, true
		}
	}
	return "", false
}

// modelNotes gathers how models were inferred, so that each way is said once with its count.
type modelNotes struct {
	byWay map[string]int
	order []string
}

func (m *modelNotes) add(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	if m.byWay == nil {
		m.byWay = map[string]int{}
	}
	if m.byWay[s] == 0 {
		m.order = append(m.order, s)
	}
	m.byWay[s]++
}

func (m *modelNotes) lines() []string {
	out := make([]string, 0, min(len(m.order), maxListed+1))
	for i, s := range m.order {
		if i == maxListed { // capped, as every list of a message is
			out = append(out, fmt.Sprintf("and %d more notes on models", len(m.order)-maxListed))
			break
		}
		out = append(out, strings.ReplaceAll(s, "{n}", fmt.Sprint(m.byWay[s])))
	}
	return out
}

// switchModel picks the catalog model of a discovered switch: the part its description names;
// else the one catalog model with its port count (and device family, where the text gives a
// device ID); else, of several such models, the default QM9700 if it is one, and says so. No
// match leaves a descriptive model name that the fabric refuses as unknown, with a note.
func switchModel(cat *catalog.Catalog, n *opensm.DiscoveredNode, part string, notes *modelNotes) string {
	if m, ok := partModel(cat, part); ok {
		return m
	}
	family, knownID := deviceFamilies[n.DeviceID]
	var cands []string
	for _, name := range cat.SwitchNames() {
		if cat.Switches[name].Ports != n.Ports {
			continue
		}
		if f := familyOf(name); n.DeviceID != 0 && f != "" && f != family {
			continue
		}
		cands = append(cands, name)
	}
	id := ""
	switch {
	case n.DeviceID == 0:
		id = "no device ID in the text"
	case knownID:
		id = fmt.Sprintf("device ID 0x%x, %s", n.DeviceID, family)
	default:
		id = fmt.Sprintf("device ID 0x%x, not a known part", n.DeviceID)
	}
	switch {
	case len(cands) == 1:
		if part != "" {
			notes.add("{n} switch(es) name part %q, which the catalog lacks; taken as %s from %d ports (%s)", part, cands[0], n.Ports, id)
		}
		return cands[0]
	case len(cands) > 1 && slices.Contains(cands, topogen.DefaultSwitchModel):
		notes.add("{n} switch(es) with %d ports (%s) name no model; taken as %s, the default (the catalog's %s have the same ports): set model where it differs",
			n.Ports, id, topogen.DefaultSwitchModel, strings.Join(cands, ", "))
		return topogen.DefaultSwitchModel
	case len(cands) > 1:
		notes.add("{n} switch(es) with %d ports (%s) could be any of %s; taken as %s: set model where it differs", n.Ports, id, strings.Join(cands, ", "), cands[0])
		return cands[0]
	}
	model := fmt.Sprintf("unknown-%d-port", n.Ports)
	if part != "" {
		model = part
	}
	notes.add("{n} switch(es) with %d ports (%s%s) match no catalog model: model %q is left for you to add with the provider's catalog_files or to correct",
		n.Ports, id, quoteIf(", part ", part), model)
	return model
}

// hcaModel picks the catalog HCA model of a discovered CA by its port count and, where the text
// gives one, its device family.
func hcaModel(cat *catalog.Catalog, n *opensm.DiscoveredNode, notes *modelNotes) string {
	family, knownID := deviceFamilies[n.DeviceID]
	var cands []string
	for _, name := range cat.HCANames() {
		if cat.HCAs[name].Ports != n.Ports {
			continue
		}
		if f := familyOf(name); n.DeviceID != 0 && f != "" && f != family {
			continue
		}
		cands = append(cands, name)
	}
	if len(cands) >= 1 {
		if len(cands) > 1 {
			notes.add("{n} HCA(s) with %d port(s) could be any of %s; taken as %s: set model where it differs", n.Ports, strings.Join(cands, ", "), cands[0])
		}
		return cands[0]
	}
	id := "no device ID in the text"
	if n.DeviceID != 0 {
		id = fmt.Sprintf("device ID 0x%x", n.DeviceID)
		if knownID {
			id += ", " + family
		}
	}
	model := fmt.Sprintf("unknown-%d-port-hca", n.Ports)
	notes.add("{n} HCA(s) with %d port(s) (%s) match no catalog model: model %q is left for you to add with the provider's catalog_files or to correct", n.Ports, id, model)
	return model
}

// nodeModel picks the catalog node model for a host by its compute HCAs: a model whose HCA
// model is theirs and that holds that many (exactly that many preferred); of several, the
// default DGX-H100 if it is one, said once.
func nodeModel(cat *catalog.Catalog, hcaModel string, count int, notes *modelNotes) (model string, computeHCAs int) {
	var exact, room []string
	for _, name := range cat.NodeNames() {
		m := cat.Nodes[name]
		if m.HCAModel != hcaModel {
			continue
		}
		switch {
		case m.ComputeHCAs == count:
			exact = append(exact, name)
		case m.ComputeHCAs > count:
			room = append(room, name)
		}
	}
	cands := exact
	if len(cands) == 0 {
		cands = room
	}
	switch {
	case len(cands) == 1:
		return cands[0], 0
	case len(cands) > 1 && slices.Contains(cands, topogen.DefaultNodeModel):
		notes.add("{n} host(s) with %d %s HCA(s) on the fabric: taken as %s, the default (the catalog's %s fit too): set model where it differs",
			count, hcaModel, topogen.DefaultNodeModel, strings.Join(cands, ", "))
		return topogen.DefaultNodeModel, 0
	case len(cands) > 1:
		notes.add("{n} host(s) with %d %s HCA(s) could be any of %s; taken as %s: set model where it differs", count, hcaModel, strings.Join(cands, ", "), cands[0])
		return cands[0], 0
	}
	model = fmt.Sprintf("unknown-%d-hca-node", count)
	notes.add("{n} host(s) with %d %s HCA(s) match no catalog node model: model %q is left for you to add with the provider's catalog_files or to correct", count, hcaModel, model)
	return model, count
}

func quoteIf(prefix, s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%s%q", prefix, s)
}
