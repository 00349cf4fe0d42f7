package fabric

import (
	"strings"
	"testing"
)

func TestMergeReplacesByNameAndAdds(t *testing.T) {
	gen := &Spec{
		Switches: []Switch{{Name: "leaf01", Model: "QM9700"}, {Name: "spine01", Model: "QM9700"}},
		Cables:   []Cable{{Ref: Ref{Key: "leaf01:33"}, A: End{"leaf01", 33}, B: End{"spine01", 1}}},
	}
	gen.Merge(&Spec{
		Switches: []Switch{{Name: "spine01", Model: "QM9790"}, {Name: "leaf02", Model: "QM9700"}},
		Cables:   []Cable{{Ref: Ref{Key: "leaf01:33"}, A: End{"leaf01", 33}, B: End{"spine01", 2}}},
	})
	if len(gen.Switches) != 3 || gen.Switches[1].Model != "QM9790" || gen.Switches[2].Name != "leaf02" {
		t.Errorf("switches %+v: spine01 replaced in place, leaf02 added", gen.Switches)
	}
	if len(gen.Cables) != 1 || gen.Cables[0].B.Port != 2 {
		t.Errorf("cables %+v: the explicit cable of the same key replaces the generated one", gen.Cables)
	}
}

func TestRemoveCables(t *testing.T) {
	spec := func() *Spec {
		return &Spec{Cables: []Cable{
			{A: End{"leaf01", 33}, B: End{"spine01", 1}},
			{A: End{"leaf01", 34}, B: End{"spine01", 2}},
			{A: End{"gpu001/mlx5_0", 1}, B: End{"leaf01", 1}},
		}}
	}
	s := spec()
	if bad := s.RemoveCables([]string{"leaf01:33", "spine01:2 <-> leaf01:34"}); len(bad) != 0 {
		t.Fatalf("unexpected unknowns %+v", bad)
	}
	if len(s.Cables) != 1 || s.Cables[0].A.Device != "gpu001/mlx5_0" {
		t.Fatalf("left %+v, want only the node cable", s.Cables)
	}

	s = spec()
	bad := s.RemoveCables([]string{"leaf01:1", "leaf01:40", "laef01:33", "leaf01"})
	if len(s.Cables) != 2 {
		t.Errorf("a valid entry among unknown ones is still removed: %d cables left", len(s.Cables))
	}
	if len(bad) != 3 {
		t.Fatalf("unknowns %+v, want entries 1, 2 and 3", bad)
	}
	for i, want := range []string{
		`no cable of the design ends at "leaf01:40". Generated cables of leaf01 nearest port 40: "leaf01:34 <-> spine01:2", "leaf01:33 <-> spine01:1"`,
		`The design has no device "laef01"; nearest names: "leaf01"`,
		`"leaf01" is not a cable end label: write <device>:<port>`,
	} {
		if bad[i].Index != i+1 || !strings.Contains(bad[i].Message, want) {
			t.Errorf("unknown %d = %+v, want index %d and %q", i, bad[i], i+1, want)
		}
	}
}
