package fabric

import "slices"

// Clone is a copy of s whose item lists are its own, so that Merge, RemoveCables or Build on the
// copy leave s as it is: those replace, drop or fill whole items and never write inside an item's
// own slices or maps, which the copy therefore shares with s (as it shares Plan, Torus and
// Groups, which nothing changes once generated).
func (s *Spec) Clone() *Spec {
	c := *s
	c.Racks = slices.Clone(s.Racks)
	c.Switches = slices.Clone(s.Switches)
	c.Nodes = slices.Clone(s.Nodes)
	c.HCAs = slices.Clone(s.HCAs)
	c.Cables = slices.Clone(s.Cables)
	c.Partitions = slices.Clone(s.Partitions)
	c.dropped = slices.Clone(s.dropped)
	return &c
}
