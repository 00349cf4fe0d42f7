package fabric

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// gateCluster is examples/ci/infra at nodes = 3, uplinks = 16: leaf01 with 24 HCAs and 16
// uplinks to spine01 (1.5:1), with the roles given.
func gateCluster(leafRole, spineRole string) *Spec {
	s := &Spec{Switches: []Switch{
		{Name: "leaf01", Model: "QM9700", Role: leafRole},
		{Name: "spine01", Model: "QM9700", Role: spineRole},
	}}
	for n := 0; n < 3; n++ {
		node := fmt.Sprintf("gpu%03d", n+1)
		s.Nodes = append(s.Nodes, Node{Name: node, Model: "DGX-H100"})
		for r := 0; r < 8; r++ {
			dev := fmt.Sprintf("mlx5_%d", r)
			s.HCAs = append(s.HCAs, HCA{Name: HCAName(node, dev), Node: node, Device: dev, Rail: r})
			s.Cables = append(s.Cables, Cable{A: End{HCAName(node, dev), 1}, B: End{"leaf01", 8*n + r + 1}})
		}
	}
	for u := 0; u < 16; u++ {
		s.Cables = append(s.Cables, Cable{A: End{"leaf01", 33 + u}, B: End{"spine01", u + 1}})
	}
	return s
}

func roleProblems(ps []Problem) []Problem {
	var out []Problem
	for _, p := range ps {
		if p.Rule == RuleRole {
			out = append(out, p)
		}
	}
	return out
}

// The labels of issue 22 that got a 1.5:1 leaf through the training-large gate, and the ones
// that do the same in other ways: each is an error on the lying switch's role, and the graph the
// analysis sees has the roles the cabling gives (leaf01 a leaf with its uplinks up).
func TestDeclaredRoleAgainstCabling(t *testing.T) {
	for _, tc := range []struct {
		leaf, spine string
		path, msg   string
	}{
		{"core", "spine", `switches["leaf01"].role`, `switch "leaf01" is declared role = "core" but 24 HCA(s) are cabled to it: a switch with endpoints is a leaf whatever its label. Set role = "leaf" or leave it unset`},
		{"core", "", `switches["leaf01"].role`, `declared role = "core" but 24 HCA(s)`},
		{"spine", "core", `switches["leaf01"].role`, `declared role = "spine" but 24 HCA(s)`},
		{"", "leaf", `switches["spine01"].role`, `switch "spine01" is declared role = "leaf" but has no endpoints and joins switches with endpoints that are not cabled to one another ("leaf01"): that is what a spine does`},
		{"leaf", "core", `switches["spine01"].role`, `switch "spine01" is declared role = "core" but is cabled to a leaf with endpoints ("leaf01"): a switch cabled to a leaf is a spine (a core is cabled to spines only). Set role = "spine" or leave it unset`},
	} {
		g, ps := Build(gateCluster(tc.leaf, tc.spine), catalog.Default())
		rp := roleProblems(ps)
		if len(rp) == 0 || rp[0].Severity != Error || rp[0].Path.String() != tc.path || !strings.Contains(rp[0].Message, tc.msg) {
			t.Errorf("leaf %q spine %q: role problems %v; want the first an error on %s saying %q", tc.leaf, tc.spine, rp, tc.path, tc.msg)
		}
		for name, want := range map[string]string{"leaf01": RoleLeaf, "spine01": RoleSpine} {
			i, _ := g.Lookup(name)
			if d := g.Devices[i]; d.Role != want {
				t.Errorf("leaf %q spine %q: %s has role %q in the graph, want %q (what the cabling makes of it)", tc.leaf, tc.spine, name, d.Role, want)
			}
		}
	}
	// The truthful labels pass.
	for _, roles := range [][2]string{{"", ""}, {"leaf", "spine"}, {"leaf", ""}, {"", "spine"}} {
		if _, ps := Build(gateCluster(roles[0], roles[1]), catalog.Default()); len(roleProblems(ps)) > 0 {
			t.Errorf("roles %v: %v", roles, ps)
		}
	}
}

// threeTier: leaves l1, l2 (4 HCAs each) under spines s1, s2 (one link per leaf-spine pair),
// spines under core c1 (one link each), with the roles given in that order.
func threeTier(roles ...string) *Spec {
	names := []string{"l1", "l2", "s1", "s2", "c1"}
	s := &Spec{}
	for i, n := range names {
		s.Switches = append(s.Switches, Switch{Name: n, Model: "QM9700", Role: roles[i]})
	}
	s.Nodes = []Node{{Name: "gpu001", Model: "DGX-H100"}}
	port := map[string]int{}
	cable := func(a, b string) {
		port[a]++
		port[b]++
		s.Cables = append(s.Cables, Cable{A: End{a, port[a]}, B: End{b, port[b]}})
	}
	for r := 0; r < 8; r++ {
		dev := fmt.Sprintf("mlx5_%d", r)
		s.HCAs = append(s.HCAs, HCA{Name: HCAName("gpu001", dev), Node: "gpu001", Device: dev, Rail: r})
		cable(HCAName("gpu001", dev), names[r/4])
	}
	for _, l := range []string{"l1", "l2"} {
		cable(l, "s1")
		cable(l, "s2")
	}
	cable("s1", "c1")
	cable("s2", "c1")
	return s
}

// Labels between spines and cores: a spine and a core declared alike at different distances
// from the endpoints (the link would be lateral); a swap (cores below spines) is refused at the
// switch cabled to leaves. Truthful and generated-style labels pass.
func TestDeclaredRolesAboveTheLeaves(t *testing.T) {
	for _, tc := range []struct {
		roles []string
		path  string
		msg   string
	}{
		{[]string{"leaf", "leaf", "spine", "spine", "spine"}, `switches["c1"].role`, `switch "c1" is declared role = "spine" like "s1", to which it is cabled, but sits further from the endpoints (3 links from the nearest HCA, "s1" 2)`},
		{[]string{"leaf", "leaf", "core", "spine", "spine"}, `switches["s1"].role`, `switch "s1" is declared role = "core" but is cabled to a leaf with endpoints ("l1", "l2")`},
		{[]string{"leaf", "leaf", "leaf", "leaf", "spine"}, `switches["s1"].role`, `switch "s1" is declared role = "leaf" but has no endpoints and joins switches with endpoints that are not cabled to one another ("l1", "l2")`},
	} {
		_, ps := Build(threeTier(tc.roles...), catalog.Default())
		rp := roleProblems(ps)
		if len(rp) == 0 || rp[0].Path.String() != tc.path || !strings.Contains(rp[0].Message, tc.msg) {
			t.Errorf("roles %v: role problems %v; want the first on %s saying %q", tc.roles, rp, tc.path, tc.msg)
		}
	}
	for _, roles := range [][]string{
		{"", "", "", "", ""},
		{"leaf", "leaf", "spine", "spine", "core"},
		{"leaf", "", "spine", "", "core"},
		{"leaf", "leaf", "spine", "spine", ""},
	} {
		if _, ps := Build(threeTier(roles...), catalog.Default()); len(roleProblems(ps)) > 0 {
			t.Errorf("roles %v: %v", roles, ps)
		}
	}
}

// A torus of declared leaves with routers that host no node yet is a direct network: its
// labels stand (issue 10), whether the empty routers are cabled to each other or only to
// routers with nodes that are themselves cabled together.
func TestTorusLeavesWithoutNodes(t *testing.T) {
	for _, populated := range []int{1, 2, 3, 4} {
		// A ring of 8 switches, every one declared leaf; the first `populated` get 2 HCAs.
		s := &Spec{Nodes: []Node{{Name: "gpu001", Model: "DGX-H100"}}}
		port := map[string]int{}
		cable := func(a, b string) {
			port[a]++
			port[b]++
			s.Cables = append(s.Cables, Cable{A: End{a, port[a]}, B: End{b, port[b]}})
		}
		sw := func(i int) string { return fmt.Sprintf("t%d", i%8) }
		for i := 0; i < 8; i++ {
			s.Switches = append(s.Switches, Switch{Name: sw(i), Model: "QM9700", Role: RoleLeaf})
		}
		for i := 0; i < 8; i++ {
			cable(sw(i), sw(i+1))
		}
		for h := 0; h < 2*populated; h++ {
			dev := fmt.Sprintf("mlx5_%d", h)
			s.HCAs = append(s.HCAs, HCA{Name: HCAName("gpu001", dev), Node: "gpu001", Device: dev, Rail: h})
			cable(HCAName("gpu001", dev), sw(h/2))
		}
		if _, ps := Build(s, catalog.Default()); len(roleProblems(ps)) > 0 {
			t.Errorf("ring with %d populated routers: %v", populated, ps)
		}
	}
}
