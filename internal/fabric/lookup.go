package fabric

// Exact lookups in a Spec, for an item named the one way it is written: an import by identity
// names it so, and a looser match would fill the item from another one. FindCable is the loose
// cable match (an end label, or a label in either order) that failed_cables wants; these are not.
// Each returns the first match in Spec order, nil when none.

// SwitchNamed is the switch called name.
func (s *Spec) SwitchNamed(name string) *Switch {
	for i := range s.Switches {
		if s.Switches[i].Name == name {
			return &s.Switches[i]
		}
	}
	return nil
}

// NodeNamed is the node called name.
func (s *Spec) NodeNamed(name string) *Node {
	for i := range s.Nodes {
		if s.Nodes[i].Name == name {
			return &s.Nodes[i]
		}
	}
	return nil
}

// HCAOn is the HCA that is device on node.
func (s *Spec) HCAOn(node, device string) *HCA {
	for i := range s.HCAs {
		if h := &s.HCAs[i]; h.Node == node && h.Device == device {
			return h
		}
	}
	return nil
}

// CableLabelled is the cable whose Label is label, its ends in that order: "a <-> b" is not the
// cable b <-> a.
func (s *Spec) CableLabelled(label string) *Cable {
	for i := range s.Cables {
		if s.Cables[i].Label() == label {
			return &s.Cables[i]
		}
	}
	return nil
}
