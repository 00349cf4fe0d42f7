package fabric

import "testing"

// TestExactLookups: each finds the first item named exactly so, and nothing for a name another
// lookup would accept (another case, the node's name for its HCA, a cable's reversed label or an
// end label, which FindCable takes).
func TestExactLookups(t *testing.T) {
	s := &Spec{
		Switches: []Switch{{Name: "leaf01", Model: "first"}, {Name: "leaf01", Model: "second"}, {Name: "spine01"}},
		Nodes:    []Node{{Name: "gpu001"}, {Name: "gpu002"}},
		HCAs:     []HCA{{Node: "gpu001", Device: "mlx5_0"}, {Node: "gpu001", Device: "mlx5_1"}, {Node: "gpu002", Device: "mlx5_0"}},
		Cables:   []Cable{{A: End{"leaf01", 1}, B: End{"spine01", 1}}, {A: End{"gpu002/mlx5_0", 1}, B: End{"leaf01", 2}}},
	}
	if w := s.SwitchNamed("leaf01"); w == nil || w.Model != "first" {
		t.Errorf("SwitchNamed(leaf01) = %+v, want the first", w)
	}
	if w := s.SwitchNamed("LEAF01"); w != nil {
		t.Errorf("SwitchNamed(LEAF01) = %+v", w)
	}
	if n := s.NodeNamed("gpu002"); n != &s.Nodes[1] {
		t.Errorf("NodeNamed(gpu002) = %p, want %p", n, &s.Nodes[1])
	}
	if n := s.NodeNamed("gpu003"); n != nil {
		t.Errorf("NodeNamed(gpu003) = %+v", n)
	}
	if h := s.HCAOn("gpu002", "mlx5_0"); h != &s.HCAs[2] {
		t.Errorf("HCAOn(gpu002, mlx5_0) = %+v", h)
	}
	if h := s.HCAOn("gpu002", "mlx5_1"); h != nil {
		t.Errorf("HCAOn(gpu002, mlx5_1) = %+v", h)
	}
	if c := s.CableLabelled("gpu002/mlx5_0:1 <-> leaf01:2"); c != &s.Cables[1] {
		t.Errorf("CableLabelled = %+v", c)
	}
	// FindCable takes these two for the second cable; an identity does not.
	for _, l := range []string{"leaf01:2 <-> gpu002/mlx5_0:1", "leaf01:2"} {
		if i, ok := s.FindCable(l); !ok || i != 1 {
			t.Fatalf("FindCable(%q) = %d, %t: the contrast this test draws is gone", l, i, ok)
		}
		if c := s.CableLabelled(l); c != nil {
			t.Errorf("CableLabelled(%q) = %+v", l, c)
		}
	}
}
