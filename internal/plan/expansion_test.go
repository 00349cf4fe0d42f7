package plan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

func superPOD(sus int) *topogen.Params {
	return &topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: sus, PlannedScalableUnits: sus, ReservedNodeSlots: 1}
}

// expansion builds both designs and the work order from prior to next, as gpucluster_bom does.
func expansion(t *testing.T, prior, next *topogen.Params) (pf, nf *Fabric, o *Orders, ps Problems) {
	t.Helper()
	cat := catalog.Default()
	pf, bps := Build(cat, Inputs{Design: prior, DesignAttr: AttrPriorDesign})
	if pf == nil {
		t.Fatalf("prior: %v", bps)
	}
	nf, bps = Build(cat, Inputs{Design: next})
	if nf == nil {
		t.Fatalf("next: %v", bps)
	}
	o, ps = Order(cat, nf, nil, prior)
	if o == nil || !o.HasChanges {
		t.Fatalf("no work order: %v", ps)
	}
	checkWorkOrder(t, pf, nf, o.Changes)
	return pf, nf, o, ps
}

// checkWorkOrder holds the properties every work order must have, computed from the two specs
// (not from the work order's own code): every removal and every move starts from a cable of the
// prior design on those very ports; no port is the target of two rows; a move keeps one end
// (on the same box, by GUID) and the other end goes to a device of the same role; and applying
// the rows to the prior cabling gives the planned one.
func checkWorkOrder(t *testing.T, pf, nf *Fabric, changes []bom.Change) {
	t.Helper()
	guid := func(s *fabric.Spec) map[string]string { // device (switch or HCA) -> GUID
		out := map[string]string{}
		for _, sw := range s.Switches {
			out[sw.Name] = sw.GUID
		}
		for _, h := range s.HCAs {
			out[h.Name] = h.PortGUID
		}
		return out
	}
	role := func(s *fabric.Spec) map[string]string {
		out := map[string]string{}
		for _, sw := range s.Switches {
			out[sw.Name] = sw.Role
		}
		for _, h := range s.HCAs {
			out[h.Name] = "hca"
		}
		return out
	}
	pg, ng, pr, nr := guid(pf.Spec), guid(nf.Spec), role(pf.Spec), role(nf.Spec)
	// The cabling as physical ports: GUID:port pairs.
	port := func(g map[string]string, e fabric.End) string { return g[e.Device] + ":" + strconv.Itoa(e.Port) }
	pair := func(a, b string) [2]string {
		if b < a {
			a, b = b, a
		}
		return [2]string{a, b}
	}
	floor := map[[2]string]bool{}
	for _, c := range pf.Spec.Cables {
		floor[pair(port(pg, c.A), port(pg, c.B))] = true
	}
	want := map[[2]string]bool{}
	for _, c := range nf.Spec.Cables {
		want[pair(port(ng, c.A), port(ng, c.B))] = true
	}
	end := func(g map[string]string, e bom.CableEnd) string {
		if e.HCA != "" {
			return g[e.HCA] + ":" + strconv.Itoa(e.Port)
		}
		return g[e.Device] + ":" + strconv.Itoa(e.Port)
	}
	dev := func(e bom.CableEnd) string {
		if e.HCA != "" {
			return e.HCA
		}
		return e.Device
	}
	targeted := map[string]bool{}
	target := func(p string) {
		if targeted[p] {
			t.Errorf("port %s is the target of two rows", p)
		}
		targeted[p] = true
	}
	for _, c := range changes {
		switch c.Action {
		case bom.ChangeRemove:
			k := pair(end(pg, c.Row.A), end(pg, c.Row.B))
			if !floor[k] {
				t.Fatalf("remove %s: no such cable in prior_design", c.Row.Label)
			}
			delete(floor, k)
		case bom.ChangeAdd:
			target(end(ng, c.Row.A))
			target(end(ng, c.Row.B))
			floor[pair(end(ng, c.Row.A), end(ng, c.Row.B))] = true
		case bom.ChangeMove:
			k := pair(end(pg, c.Prior.A), end(pg, c.Prior.B))
			if !floor[k] {
				t.Fatalf("move %s: no such cable in prior_design", c.Prior.Label)
			}
			delete(floor, k)
			pa, pb, na, nb := end(pg, c.Prior.A), end(pg, c.Prior.B), end(ng, c.Row.A), end(ng, c.Row.B)
			switch {
			case pa == na && pb != nb:
				target(nb)
				if pr[dev(c.Prior.B)] != nr[dev(c.Row.B)] {
					t.Errorf("move %s: the %s end goes to a %s", c.Prior.Label, pr[dev(c.Prior.B)], nr[dev(c.Row.B)])
				}
			case pb == nb && pa != na:
				target(na)
				if pr[dev(c.Prior.A)] != nr[dev(c.Row.A)] {
					t.Errorf("move %s: the %s end goes to a %s", c.Prior.Label, pr[dev(c.Prior.A)], nr[dev(c.Row.A)])
				}
			default:
				t.Errorf("move %s -> %s keeps no end, or both", c.Prior.Label, c.Row.Label)
			}
			floor[pair(na, nb)] = true
		}
	}
	if len(floor) != len(want) {
		t.Fatalf("after the work order: %d cables, want %d", len(floor), len(want))
	}
	for k := range want {
		if !floor[k] {
			t.Fatalf("after the work order, %v is not cabled", k)
		}
	}
}

func count(changes []bom.Change, action string) int {
	n := 0
	for _, c := range changes {
		if c.Action == action {
			n++
		}
	}
	return n
}

// shape reads a 2-tier design's structure from its spec: leaves, spines, and a leaf's uplinks.
func shape(t *testing.T, s *fabric.Spec) (leaves, spines, uplinks int) {
	t.Helper()
	role := map[string]string{}
	for _, sw := range s.Switches {
		role[sw.Name] = sw.Role
		switch sw.Role {
		case fabric.RoleLeaf:
			leaves++
		case fabric.RoleSpine:
			spines++
		}
	}
	up := 0
	for _, c := range s.Cables {
		if role[c.A.Device] == fabric.RoleLeaf && role[c.B.Device] == fabric.RoleSpine || role[c.B.Device] == fabric.RoleLeaf && role[c.A.Device] == fabric.RoleSpine {
			up++
		}
	}
	if leaves == 0 || up%leaves != 0 {
		t.Fatalf("%d leaf-spine cables over %d leaves", up, leaves)
	}
	return leaves, spines, up / leaves
}

// TestExpansionFourToEightSU: a 4-SU SuperPOD built to its plan (L leaves, S spines, u uplinks a
// leaf, u/S links per leaf-spine pair) grown to 8 SU (2S spines, one link per pair). The most a
// work order can keep of an old leaf's uplinks is one to each old spine (the new design has one
// link per pair), so each old leaf moves u - S of them and nothing is removed: L*(u-S) moves,
// and every other cable of the new design is added.
func TestExpansionFourToEightSU(t *testing.T) {
	pf, nf, o, ps := expansion(t, superPOD(4), superPOD(8))
	L, S, u := shape(t, pf.Spec)
	L2, S2, u2 := shape(t, nf.Spec)
	if L2 != 2*L || S2 != 2*S || u2 != u {
		t.Fatalf("8 SU is %d leaves, %d spines, %d uplinks; 4 SU %d, %d, %d", L2, S2, u2, L, S, u)
	}
	want := L * (u - S)
	if got := count(o.Changes, bom.ChangeMove); got != want {
		t.Errorf("moves = %d, want L*(u-S) = %d*(%d-%d) = %d", got, L, u, S, want)
	}
	if got := count(o.Changes, bom.ChangeRemove); got != 0 {
		t.Errorf("removals = %d, want 0", got)
	}
	kept := len(pf.Spec.Cables) - want
	if got, w := count(o.Changes, bom.ChangeAdd), len(nf.Spec.Cables)-kept-want; got != w {
		t.Errorf("additions = %d, want %d", got, w)
	}
	// Every move keeps the leaf end and takes the spine end to a new spine.
	spines := map[string]bool{}
	for _, sw := range pf.Spec.Switches {
		spines[sw.Name] = sw.Role == fabric.RoleSpine
	}
	for _, c := range o.Changes {
		if c.Action == bom.ChangeMove && (c.Row.A.Endpoint() != c.Prior.A.Endpoint() || spines[c.Row.B.Device]) {
			t.Errorf("move %s -> %s: want the leaf end kept and the spine end on a new spine", c.Prior.Label, c.Row.Label)
			break
		}
	}
	if !hasWarning(ps, "Re-planning", "moves "+strconv.Itoa(want)) {
		t.Errorf("want a warning that re-planning moves %d uplinks; got %v", want, ps)
	}
}

// TestExpansionEightToSixteenSU: 8 -> 16 SU crosses 99 leaves (leaf01 becomes leaf001) and 2 to 3
// tiers; the boxes are the same (by GUID), so no node cable moves or goes, whatever the names.
func TestExpansionEightToSixteenSU(t *testing.T) {
	pf, _, o, ps := expansion(t, superPOD(8), superPOD(16))
	hcas := map[string]bool{}
	for _, h := range pf.Spec.HCAs {
		hcas[h.Name] = true
	}
	for _, c := range o.Changes {
		if c.Action != bom.ChangeAdd && hcas[c.Prior.A.HCA] || c.Action == bom.ChangeRemove && hcas[c.Row.A.HCA] {
			t.Fatalf("%s of node cable %s", c.Action, c.Row.Label)
		}
	}
	if count(o.Changes, bom.ChangeRemove) != 0 {
		t.Errorf("removals = %d, want 0", count(o.Changes, bom.ChangeRemove))
	}
	if !hasWarning(ps, "Re-planning", "leaf-spine") {
		t.Errorf("want a warning on the re-planned leaf-spine tier; got %v", ps)
	}
	// The names widen (128 leaves and spines): the plan says so, and which name_digits keep them.
	if !hasWarning(ps, "renames", "name_digits = { leaf = 2, spine = 2") {
		t.Errorf("want a warning on the renamed boxes naming name_digits; got %v", ps)
	}
	// With those name_digits, the names are kept and nothing is said of them.
	kept := superPOD(16)
	kept.LeafDigits, kept.SpineDigits = 2, 2
	_, _, o2, ps2 := expansion(t, superPOD(8), kept)
	if hasWarning(ps2, "renames", "") {
		t.Errorf("name_digits set: want no rename warning; got %v", ps2)
	}
	if count(o2.Changes, bom.ChangeMove) != count(o.Changes, bom.ChangeMove) {
		t.Errorf("moves: %d with name_digits, %d without; the names must not change the work", count(o2.Changes, bom.ChangeMove), count(o.Changes, bom.ChangeMove))
	}
}

// TestExpansionWithinPlanOnlyAdds: growing within the plan adds and says nothing else.
func TestExpansionWithinPlanOnlyAdds(t *testing.T) {
	prior := &topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2, PlannedScalableUnits: 4, ReservedNodeSlots: 1}
	next := &topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 4, PlannedScalableUnits: 4, ReservedNodeSlots: 1}
	pf, nf, o, ps := expansion(t, prior, next)
	if got, want := count(o.Changes, bom.ChangeAdd), len(nf.Spec.Cables)-len(pf.Spec.Cables); got != want || len(o.Changes) != want {
		t.Errorf("%d rows, %d additions; want %d additions only", len(o.Changes), got, want)
	}
	if len(ps) != 0 {
		t.Errorf("want no problems, got %v", ps)
	}
}

func hasWarning(ps Problems, summary, detail string) bool {
	for _, p := range ps {
		if p.Severity == Warning && strings.Contains(p.Summary, summary) && strings.Contains(p.Detail, detail) {
			return true
		}
	}
	return false
}
