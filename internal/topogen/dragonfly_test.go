package topogen

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// seedDragonfly is the origin document's fabric: a 2-level dragonfly+ of QM9700, 2 groups of 32
// DGX H100 (512 endpoints), at the group level ratio gos (issue 19 item 2).
func seedDragonfly(gos float64) Params {
	return Params{Kind: KindDragonflyPlus, Groups: 2, Nodes: 64, GroupOversubscription: gos}
}

// dragonflyBisection is the closed form of a dragonfly+ of g groups (g even) whose groups are
// non-blocking inside (every leaf has as many uplinks as endpoint ports): the cut between two
// halves of the groups crosses (g/2)^2 group pairs of hp global links each, and no cut can do
// better than half the endpoints, E*B/2 (Shpiner et al. 2017). hp is what the ratio asks: a group
// of e endpoint ports gets ceil(e/ratio) global links, spread over the g-1 others.
func dragonflyBisection(g, e, endpoints int, ratio, B float64) float64 {
	hp := math.Ceil(math.Ceil(float64(e)/ratio-1e-9) / float64(g-1))
	return math.Min(float64(endpoints)*B/2, float64(g*g/4)*hp*B)
}

func TestSeedDragonflyPlus(t *testing.T) {
	const B = 400.0
	for _, c := range []struct {
		gos              float64
		global, bisect   int
		note             string
		groupRatio       float64
		presetViolations int
	}{
		{1, 256, 102400, "256 global link(s) between every pair of the 2 groups: each group cables 256 of its 256 global ports (group oversubscription 1:1, 256 endpoint ports cabled)", 1, 0},
		{2, 128, 51200, "128 global link(s) between every pair of the 2 groups: each group cables 128 of its 256 global ports (group oversubscription 2:1, 256 endpoint ports cabled)", 2, 0},
		// Past the dragonfly-plus preset's 2:1: ceil(256/3) = 86 links, 2.98:1.
		{3, 86, 34400, "86 global link(s) between every pair of the 2 groups: each group cables 86 of its 256 global ports (group oversubscription 256:86, 2.98:1, 256 endpoint ports cabled)", 256.0 / 86, 1},
	} {
		t.Run(fmt.Sprintf("group_oversubscription=%g", c.gos), func(t *testing.T) {
			d := mustGen(t, seedDragonfly(c.gos))
			s := d.Summary
			// 8 leaves of 32 endpoint ports and 8 spines a group serve 256 endpoints: 32 switches.
			if s.Switches != 32 || s.SwitchesByRole["leaf"] != 16 || s.SwitchesByRole["spine"] != 16 || s.Endpoints != 512 {
				t.Errorf("switches %v (%d), endpoints %d; want 16 leaves and 16 spines, 512 endpoints", s.SwitchesByRole, s.Switches, s.Endpoints)
			}
			for _, g := range d.Groups {
				if len(g.Nodes) != 32 || len(g.Switches) != 16 {
					t.Errorf("group %s: %d nodes, %d switches; want the nodes spread evenly, 32 and 16 a group", g.Name, len(g.Nodes), len(g.Switches))
				}
			}
			if s.LinksByTier[TierGlobal] != c.global || s.LinksByTier[TierLeafSpine] != 512 {
				t.Errorf("links %v, want %d global and 512 leaf-spine", s.LinksByTier, c.global)
			}
			if !hasNote(d, c.note) {
				t.Errorf("notes %q\nwant %q", d.Notes, c.note)
			}
			g := build(t, d)
			r := analysis.Analyze(g, nil)
			want := dragonflyBisection(2, 8*32, 512, c.gos, B)
			if want != float64(c.bisect) {
				t.Fatalf("closed form %g, table %d: the test is wrong", want, c.bisect)
			}
			if r.BisectionLowerGbps != want || r.BisectionUpperGbps != want {
				t.Errorf("bisection lower %g, upper %g Gb/s; closed form %g", r.BisectionLowerGbps, r.BisectionUpperGbps, want)
			}
			// The analysis rounds a ratio up to 4 decimals (a proved bound, rounded the safe way).
			if got := r.Oversubscription[analysis.TierGroup]; got < c.groupRatio || got > c.groupRatio+1e-4 {
				t.Errorf("group oversubscription %g, want %g", got, c.groupRatio)
			}
			// The dragonfly-plus preset judges the group tier the cabling gives: 2:1 passes, 3:1 does not.
			n := 0
			for _, v := range policy.Evaluate(g, r, policy.Policy{Preset: policy.PresetDragonflyPlus}, nil) {
				if v.Rule == policy.RuleOversubscription {
					n++
					if !strings.Contains(v.Message, "group") || v.Severity != policy.Error {
						t.Errorf("violation %s", v.Message)
					}
				}
			}
			if n != c.presetViolations {
				t.Errorf("%d oversubscription violations under the dragonfly-plus preset, want %d", n, c.presetViolations)
			}
		})
	}
}

func hasNote(d *Design, note string) bool {
	for _, n := range d.Notes {
		if n == note {
			return true
		}
	}
	return false
}

// The trick the seed needed (planned_groups = 3, 2 built) now says what is cabled: 128 of 256.
func TestDragonflyNotesCountWhatIsCabled(t *testing.T) {
	d := mustGen(t, Params{Kind: KindDragonflyPlus, Groups: 2, PlannedGroups: 3, Nodes: 64})
	want := "2 of 3 planned groups built: 128 global link(s) between every pair of groups; each group cables 128 of its 256 global ports now " +
		"(group oversubscription 2:1, 256 endpoint ports cabled) and 256 once all 3 are built (1:1)"
	if !hasNote(d, want) || d.Summary.LinksByTier[TierGlobal] != 128 {
		t.Errorf("notes %q, %d global links\nwant %q", d.Notes, d.Summary.LinksByTier[TierGlobal], want)
	}
}

// Nodes are spread evenly and numbered by slot, so growing node_count in pinned groups only adds.
func TestDragonflySpreadAndGrowth(t *testing.T) {
	d := mustGen(t, Params{Kind: KindDragonflyPlus, Groups: 2, Nodes: 62})
	for _, g := range d.Groups {
		if len(g.Nodes) != 31 {
			t.Errorf("group %s has %d nodes, want 31", g.Name, len(g.Nodes))
		}
	}
	if _, ok := d.Nodes["gpu033"]; !ok || d.Nodes["gpu032"].Name != "" {
		t.Errorf("group02's first node should be gpu033 (slot 0 of 32): %v", keys(d.Groups[1].Nodes))
	}
	if !hasNote(d, "nodes are numbered by slot, 32 a group, so that growing node_count only adds: group02's first node is gpu033") {
		t.Errorf("notes %q", d.Notes)
	}
	three := mustGen(t, Params{Kind: KindDragonflyPlus, Groups: 3, Nodes: 100})
	for i, g := range three.Groups {
		if want := 33 + boolInt(i == 0); len(g.Nodes) != want {
			t.Errorf("group %s: %d nodes, want %d (100 over 3)", g.Name, len(g.Nodes), want)
		}
	}
	// Too few nodes for the groups, and too many for a pinned group.
	wantRefusal(t, Params{Kind: KindDragonflyPlus, Groups: 3, Nodes: 2}, "node_count", "leave a group without nodes", "node_count = 3, or group_count = 2")
	wantRefusal(t, Params{Kind: KindDragonflyPlus, Groups: 2, Nodes: 80, LeavesPerGroup: 8}, "node_count", "put 40 nodes of 8 HCAs in a group; 8 leaves of 32 endpoint ports hold 32", "leaves_per_group = 10, or group_count = 3")
	// node_count alone: at least 2 groups.
	if d := mustGen(t, Params{Kind: KindDragonflyPlus, Nodes: 64}); len(d.Groups) != 2 || d.Summary.Switches != 32 {
		t.Errorf("node_count = 64 alone: %d groups, %d switches; want the seed's 2 and 32", len(d.Groups), d.Summary.Switches)
	}
}
