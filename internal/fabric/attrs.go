package fabric

import "strings"

// attributes runs the attribute rules (rules.go) on every element of the Spec, as errors on the
// element's attribute: an element declared as a plain object, handed over from a resource or
// generated from a design gets the same checks the resources' own validators make, so nothing
// skips them. It also checks what only the whole fabric can see in those attributes: a GUID used
// twice (a switch and an HCA included), a P_Key or a partition name used twice. A subnet with a
// duplicate GUID or P_Key is broken whatever manages it, so these are errors with or without a
// subnet_manager.
//
// Spec fields whose zero means "unset" (units, power_kw, position_u, length_m, mtu, compute_hcas;
// rail -1) are checked only when set; an explicit zero in a plain object is the decoder's to
// report with ExplicitUnset.
func (b *builder) attributes() {
	s := b.spec
	for i := range s.Racks {
		r := &s.Racks[i]
		b.rule(MapRacks, i, "name", CheckName(r.Name))
		b.rule(MapRacks, i, "row", CheckRowPosition("row", r.Row))
		b.rule(MapRacks, i, "position", CheckRowPosition("position", r.Position))
		if r.Units != 0 {
			b.rule(MapRacks, i, "units", CheckUnits(r.Units))
		}
		if r.PowerKW != 0 {
			b.rule(MapRacks, i, "power_kw", CheckPowerKW(r.PowerKW))
		}
	}
	owner := map[uint64]string{} // GUID -> "switch leaf01" / "HCA gpu001/mlx5_0"
	guid := func(m string, i int, attr, what, v string) {
		if v == "" {
			return
		}
		g, msg := ParseGUID(v)
		if msg != "" {
			b.rule(m, i, attr, msg)
			return
		}
		if prev, dup := owner[g]; dup {
			b.add(RuleDuplicateGUID, Error, b.at(m, i, attr), "GUID %s of %s is already the GUID of %s; every GUID on a subnet is unique (OpenSM would assign both ports one LID and route neither); give each device its own (ibstat prints it)", v, what, prev)
			return
		}
		owner[g] = what
	}
	for i := range s.Switches {
		sw := &s.Switches[i]
		b.rule(MapSwitches, i, "name", CheckName(sw.Name))
		if sw.Role != "" {
			b.rule(MapSwitches, i, "role", CheckRole(sw.Role))
		}
		if sw.PositionU != 0 {
			b.rule(MapSwitches, i, "position_u", CheckPositionU(sw.PositionU))
		}
		guid(MapSwitches, i, "guid", "switch "+sw.Name, sw.GUID)
	}
	for i := range s.Nodes {
		n := &s.Nodes[i]
		b.rule(MapNodes, i, "name", CheckName(n.Name))
		if n.PositionU != 0 {
			b.rule(MapNodes, i, "position_u", CheckPositionU(n.PositionU))
		}
		if n.ComputeHCAs != 0 {
			b.rule(MapNodes, i, "compute_hcas", CheckComputeHCAs(n.ComputeHCAs))
		}
	}
	for i := range s.HCAs {
		h := &s.HCAs[i]
		b.rule(MapHCAs, i, "device", CheckName(h.Device))
		if h.Name != HCAName(h.Node, h.Device) {
			if msg := CheckHCAName(h.Name); msg != "" {
				b.rule(MapHCAs, i, "name", msg)
			} else if node, _, _ := strings.Cut(h.Name, "/"); node != h.Node && h.Node != "" {
				// The name (or the map key, which stands for it) says another node than the
				// HCA's node: cables and partition members that use the name would reach a
				// port of another machine than the one the name says.
				b.add(RuleHCANode, Error, b.at(MapHCAs, i, "node"), "HCA %q is named for node %q, but its node is %q: an HCA is named \"<node>/<device>\" (its map key, when it has no name). Set node = %q, or key it %q",
					h.Name, node, h.Node, node, HCAName(h.Node, h.Device))
			}
		}
		if h.Rail != -1 {
			b.rule(MapHCAs, i, "rail", CheckRail(h.Rail))
		}
		guid(MapHCAs, i, "port_guid", "HCA "+h.Name, h.PortGUID)
	}
	b.droppedGUIDs()
	for i := range s.Cables {
		c := &s.Cables[i]
		if msg := CheckCableEnds(c.A, c.B); msg != "" {
			rule := RuleLoopback
			if c.A.Port == c.B.Port {
				rule = RuleSamePort
			}
			b.add(rule, Error, b.at(MapCables, i, "b", "device"), "%s", msg)
		}
		if c.LengthM != 0 {
			b.rule(MapCables, i, "length_m", CheckLengthM(c.LengthM))
		}
		if msg := CheckCableKind(c.Kind); c.Kind != "" && msg != "" {
			b.add(RuleCableKind, Error, b.at(MapCables, i, "kind"), "%s", msg)
		}
	}
	names, pkeys := map[string]string{}, map[uint16]string{}
	for i := range s.Partitions {
		p := &s.Partitions[i]
		if msg := CheckPartitionName(p.Name); msg != "" {
			b.rule(MapPartitions, i, "name", msg)
		} else if prev, dup := names[p.Name]; dup {
			b.add(RuleDuplicateName, Error, b.at(MapPartitions, i, "name"), "partition name %q is already used by %s; OpenSM keys partitions by name too: choose another", p.Name, prev)
		} else {
			names[p.Name] = b.at(MapPartitions, i).Element()
		}
		if k, msg := ParsePKey(p.PKey); msg != "" {
			b.rule(MapPartitions, i, "pkey", msg)
		} else if prev, dup := pkeys[k]; dup {
			b.add(RuleDuplicatePKey, Error, b.at(MapPartitions, i, "pkey"), "pkey %s is already the key of %s; OpenSM would merge the two partitions under the first name: give each partition its own key", p.PKey, prev)
		} else {
			pkeys[k] = b.at(MapPartitions, i).Element()
		}
		if p.MTU != 0 {
			b.rule(MapPartitions, i, "mtu", CheckMTU(p.MTU))
		}
		if p.RateGbps != 0 {
			b.rule(MapPartitions, i, "rate", CheckRate(p.RateGbps))
		}
		b.rule(MapPartitions, i, "sl", CheckSL(p.SL))
		for j := range p.Members {
			m := &p.Members[j]
			at := b.at(MapPartitions, i).Attr("members").Index(j)
			switch {
			case m.HCA == "" && m.GUID == "":
				b.add(RuleInvalid+"member", Error, at, "the member names no port: give hca = \"<node>/<device>\" (an HCA of the fabric) or guid = a port GUID or one of %s", quoteSome(PartitionKeywords, 5))
			case m.HCA != "" && m.GUID != "":
				b.add(RuleInvalid+"member", Error, at, "the member sets both hca and guid; set one of them per member")
			case m.GUID != "":
				if msg := CheckMemberGUID(m.GUID); msg != "" {
					b.add(RuleInvalid+"guid", Error, at.Attr("guid"), "%s", msg)
				}
			}
			if msg := CheckMembership(m.Membership); msg != "" {
				b.add(RuleInvalid+"membership", Error, at.Attr("membership"), "%s", msg)
			}
		}
	}
}

// rule records a failed attribute rule (msg != "") on attribute attr of element i of map m, as
// rule "invalid-<attr>" ("invalid-power-kw").
func (b *builder) rule(m string, i int, attr, msg string) {
	if msg != "" {
		b.add(RuleInvalid+strings.ReplaceAll(attr, "_", "-"), Error, b.at(m, i, attr), "%s", msg)
	}
}

// ExplicitUnset is the rule message for a value that a plain object sets explicitly where the
// Spec reads that value as "unset" (0, or -1 for rail): units = 0, power_kw = 0, position_u = 0,
// length_m = 0, mtu = 0, compute_hcas = 0, rail = -1. attr is the fabric's attribute name; ""
// when the unset marker is a right value for attr. The decoder calls it: only it can tell an
// explicit value from a null one.
func ExplicitUnset(attr string) string {
	switch attr {
	case "units":
		return CheckUnits(0)
	case "power_kw":
		return CheckPowerKW(0)
	case "position_u":
		return CheckPositionU(0)
	case "length_m":
		return CheckLengthM(0)
	case "mtu":
		return CheckMTU(0)
	case "compute_hcas":
		return CheckComputeHCAs(0)
	case "rail":
		return CheckRail(-1)
	}
	return ""
}

// Rules of the attribute checks, as named in diagnostics: RuleInvalid + the attribute
// ("invalid-guid", "invalid-power-kw") for a value an attribute rule (rules.go) refuses.
const (
	RuleInvalid       = "invalid-"
	RuleDuplicateGUID = "duplicate-guid"
	RuleDuplicatePKey = "duplicate-pkey"
	RuleLoopback      = "loopback"
)

// leaveOut records a device left out of the graph for a problem already reported.
func (b *builder) leaveOut(name string) {
	if b.leftOut == nil {
		b.leftOut = map[string]bool{}
	}
	b.leftOut[name] = true
}

// droppedGUIDs reports the explicit items that replaced generated ones without carrying their
// GUID (Spec.Merge), on the item's guid attribute, with the design's GUID to copy.
func (b *builder) droppedGUIDs() {
	if len(b.spec.dropped) == 0 {
		return
	}
	at := map[string]int{}
	for i := range b.spec.Switches {
		at[MapSwitches+"\x00"+b.spec.Switches[i].Name] = i
	}
	for i := range b.spec.HCAs {
		at[MapHCAs+"\x00"+b.spec.HCAs[i].Name] = i
	}
	for _, d := range b.spec.dropped {
		i, ok := at[d.m+"\x00"+d.name]
		if !ok {
			continue
		}
		attr, what := "guid", "switch"
		if d.m == MapHCAs {
			attr, what = "port_guid", "HCA"
		}
		b.add(RuleMergeGUID, Error, b.at(d.m, i, attr), "%s %q replaces the design's %s of that name, whose GUID %s it does not carry: without it OpenSM's node-name-map, root and compute-node GUID files lose this %s. Set %s = %q (the design's), or the GUID the hardware has",
			what, d.name, what, d.guid, what, attr, d.guid)
	}
}
