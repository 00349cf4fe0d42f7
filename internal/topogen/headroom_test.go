package topogen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// planned_nodes = 84 needs 10.5 spines' ports; 11 would hold them, and 16 is the nearest count
// that divides a leaf's 32 uplinks: the note says it rounded up, and from what (issue 19 item 3).
func TestSpineRoundingNote(t *testing.T) {
	d := mustGen(t, Params{Kind: KindFatTree, Nodes: 84})
	want := "16 spines: 21 leaves x 32 uplinks need 672 spine ports (10.5 spines of 64 ports); rounded up from 11 to 16, the nearest spine count that divides a leaf's 32 uplinks evenly"
	if !hasNote(d, want) || d.Summary.SwitchesByRole["spine"] != 16 {
		t.Errorf("notes %q\nwant %q", d.Notes, want)
	}
	// Forced by `spines`, the note says how many would do.
	d = mustGen(t, Params{Kind: KindFatTree, Nodes: 84, Spines: 32})
	if want := "32 spines, as spines asks: 21 leaves x 32 uplinks need 672 spine ports (10.5 spines of 64 ports), so 11 would do; the rest stay free"; !hasNote(d, want) {
		t.Errorf("notes %q\nwant %q", d.Notes, want)
	}
}

// The design's note and the policy's spine-headroom advice agree (issue 19 item 3): for designs
// of every kind, short of headroom or not, the note warns exactly when the policy (the default,
// the origin document's 30%) warns on the generated fabric, on the same switch with the same
// count, and the declared fabric of the same objects warns alike. The advice, applied, is a
// design the policy no longer warns on.
func TestHeadroomNoteAgreesWithPolicy(t *testing.T) {
	for _, p := range []Params{
		{Kind: KindFatTree, Nodes: 84},
		{Kind: KindFatTree, Nodes: 64, PlannedNodes: 84},
		{Kind: KindFatTree, Nodes: 256},
		{Kind: KindFatTree, Nodes: 100, Oversubscription: 3},
		{Kind: KindFatTree, Nodes: 600, Tiers: 3},
		{Kind: KindFatTree, Nodes: 4},
		superPOD(4, 0),
		superPOD(1, 0),
		superPOD(2, 4),
		seedDragonfly(1),
		seedDragonfly(2),
		{Kind: KindDragonflyPlus, Groups: 2, PlannedGroups: 3, Nodes: 64},
		{Kind: KindTorus3D, TorusDims: [3]int{2, 2, 2}},
	} {
		t.Run(fmt.Sprintf("%s-%d-%d-%d-%g", p.Kind, p.Nodes, p.PlannedNodes, p.ScalableUnits+p.Groups, p.GroupOversubscription), func(t *testing.T) {
			d := mustGen(t, p)
			warn, note := headroomWarning(t, d.FabricSpec()), headroomNote(d)
			declared := headroomWarning(t, d.Spec())
			switch {
			case strings.HasPrefix(note, "spine headroom: top tier"):
				if warn == nil || declared == nil {
					t.Fatalf("the note warns (%s) and the policy does not", note)
				}
				// "top tier spine has 0% free ports at spine01 (0 of 64 free" is in both.
				head := strings.TrimPrefix(note[:strings.Index(note, " free);")], "spine headroom: ")
				if !strings.Contains(warn.Message, head) || !strings.Contains(declared.Message, head) {
					t.Errorf("note %q\npolicy %q: not the same witness and count", note, warn.Message)
				}
				if a := d.FabricSpec().Plan.Advice; a != "" {
					if !strings.HasSuffix(note, a) || !strings.HasSuffix(warn.Message, "; "+a) {
						t.Errorf("advice %q: note %q, policy %q", a, note, warn.Message)
					}
					checkAdvice(t, p, a)
				} else if p.Kind != KindDragonflyPlus {
					t.Errorf("no advice for a tree short of headroom: %s", note)
				}
			case strings.HasPrefix(note, "spine headroom: every top-tier"):
				if warn != nil || declared != nil {
					t.Errorf("the note says the headroom holds (%s); the policy warns: %v / %v", note, warn, declared)
				}
			default: // one tier: no spine tier, no rule
				if note != "" || warn != nil || declared != nil {
					t.Errorf("one tier: note %q, policy %v", note, warn)
				}
			}
		})
	}
}

func headroomNote(d *Design) string {
	for _, n := range d.Notes {
		if strings.HasPrefix(n, "spine headroom:") {
			return n
		}
	}
	return ""
}

func headroomWarning(t *testing.T, spec *fabric.Spec) *policy.Violation {
	t.Helper()
	g, probs := fabric.Build(spec, cat)
	if fabric.HasErrors(probs) {
		t.Fatalf("build: %v", probs)
	}
	for _, v := range policy.Evaluate(g, analysis.Analyze(g, nil), policy.Policy{}, nil) {
		if v.Rule == policy.RuleSpineHeadroom {
			return &v
		}
	}
	return nil
}

// checkAdvice applies advice ("planned_nodes = 257 keeps ...") to p and checks that the policy
// no longer warns.
func checkAdvice(t *testing.T, p Params, advice string) {
	t.Helper()
	var attr string
	var v int
	if _, err := fmt.Sscanf(advice, "%s = %d", &attr, &v); err != nil {
		t.Fatalf("advice %q: %v", advice, err)
	}
	a := arg(attr)
	if a == nil {
		t.Fatalf("advice %q names no argument", advice)
	}
	a.SetInt(&p, v)
	d := mustGen(t, p)
	if w := headroomWarning(t, d.FabricSpec()); w != nil {
		t.Errorf("with %s = %d the policy still warns: %s", attr, v, w.Message)
	}
}

// The note does not claim what the fabric's own policy says (the generator does not see it):
// it says what the default judges and that spine_headroom = 0 judges nothing, which holds on
// the generated fabric; its advice says how many top-tier switches the advised plan builds and
// how many there are now, counted on the design the advice gives and on this one (issue 27:
// "the fabric's policy warns" with spine_headroom = 0, and planned_scalable_units = 17 at 16 SU
// without its 64 more cores).
func TestHeadroomNoteSaysWhatItCosts(t *testing.T) {
	count := func(d *Design, role string) int {
		n := 0
		for _, s := range d.SwitchList {
			if s.Role == role {
				n++
			}
		}
		return n
	}
	cost := regexp.MustCompile(`^(\w+) = (\d+) keeps 30% of the top tier free at this size \((?:(\d) tiers, )?(\d+) (spine|core)s(?:, (\d+) now)?\)$`)
	for _, p := range []Params{superPOD(16, 0), superPOD(8, 0), superPOD(1, 0), {Kind: KindFatTree, Nodes: 256}} {
		d := mustGen(t, p)
		note := headroomNote(d)
		if !strings.Contains(note, "under the default policy (policy.spine_headroom = 0.3), none where its policy sets spine_headroom = 0") ||
			strings.Contains(note, "the fabric's policy warns") {
			t.Errorf("%+v: the note claims the fabric's policy: %s", p, note)
		}
		g, probs := fabric.Build(d.FabricSpec(), cat)
		if fabric.HasErrors(probs) {
			t.Fatal(probs)
		}
		zero := 0.0
		for _, v := range policy.Evaluate(g, analysis.Analyze(g, nil), policy.Policy{SpineHeadroom: &zero}, nil) {
			if v.Rule == policy.RuleSpineHeadroom {
				t.Errorf("%+v: spine_headroom = 0 still warns: %s", p, v.Message)
			}
		}
		a := d.FabricSpec().Plan.Advice
		m := cost.FindStringSubmatch(a)
		if m == nil {
			t.Errorf("%+v: advice without its cost: %q", p, a)
			continue
		}
		role := m[5]
		now := count(d, role)
		if m[6] != "" && m[6] != strconv.Itoa(now) {
			t.Errorf("%+v: advice says %s %ss now, the design has %d: %q", p, m[6], role, now, a)
		}
		if m[3] == "" && m[6] == "" {
			t.Errorf("%+v: advice names neither the tiers nor the count now: %q", p, a)
		}
		v, _ := strconv.Atoi(m[2])
		q := p
		arg(m[1]).SetInt(&q, v)
		if got := count(mustGen(t, q), role); strconv.Itoa(got) != m[4] {
			t.Errorf("%+v: advice says %s %ss, %s = %d builds %d", p, m[4], role, m[1], v, got)
		}
	}
}
