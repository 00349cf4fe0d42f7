package policy

import (
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

func judge(t *testing.T, spec *fabric.Spec) []Violation {
	t.Helper()
	g, probs := fabric.Build(spec, catalog.Default())
	if fabric.HasErrors(probs) {
		t.Fatalf("build: %v", probs)
	}
	return Evaluate(g, analysis.Analyze(g, nil), Policy{}, nil)
}

func count(vs []Violation, rule string) int {
	n := 0
	for _, v := range vs {
		if v.Rule == rule {
			n++
		}
	}
	return n
}

// NVIDIA's reference architecture (RA-11333-001, 4 SU, 16 spines with every port used) is built
// to its planned size: the spine-headroom advice does not apply (issue 10: it fired on every
// full-size design). The same fabric declared by hand keeps the rule, as one diagnostic for the
// fabric, not one per spine.
func TestSpineHeadroomPlannedSize(t *testing.T) {
	des, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 4, ReservedNodeSlots: 1}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	spec := des.FabricSpec()
	if n := count(judge(t, spec), RuleSpineHeadroom); n != 0 {
		t.Errorf("generated at its planned size: %d spine-headroom diagnostics, want none", n)
	}
	declared := des.Spec() // the same objects fed as plain inventory: no plan
	vs := judge(t, declared)
	if n := count(vs, RuleSpineHeadroom); n != 1 {
		t.Fatalf("declared: %d spine-headroom diagnostics, want 1", n)
	}
	for _, v := range vs {
		if v.Rule == RuleSpineHeadroom && !strings.Contains(v.Message, "16 of 16 spine switches") {
			t.Errorf("the one diagnostic names every spine: %s", v.Message)
		}
	}
	// A switch the user adds beside the design is not the generator's plan: the rule applies.
	mixed := des.FabricSpec()
	mixed.Switches = append(mixed.Switches, fabric.Switch{Name: "spare-spine", Model: "QM9700", Role: fabric.RoleSpine})
	c := &checker{g: &fabric.Graph{Spec: mixed}}
	if c.builtToPlan() {
		t.Error("a declared switch beside the design still counts as built to plan")
	}
	// Below the plan the spines keep the ports reserved for it; the rule applies as usual.
	des, err = topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2, PlannedScalableUnits: 4, ReservedNodeSlots: 1}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	c = &checker{g: &fabric.Graph{Spec: des.FabricSpec()}}
	if c.builtToPlan() {
		t.Error("2 of 4 planned SUs counts as built to plan")
	}
}

// An empty fabric is an error that says what is missing (issue 10/13: it passed with
// bisection_ratio = 1).
func TestEmptyFabric(t *testing.T) {
	for name, spec := range map[string]*fabric.Spec{
		"nothing":        {},
		"switch only":    {Switches: []fabric.Switch{{Name: "leaf01", Model: "QM9700"}}},
		"nodes uncabled": {Nodes: []fabric.Node{{Name: "gpu001", Model: "DGX-H100"}}, HCAs: []fabric.HCA{{Name: "gpu001/mlx5_0", Node: "gpu001", Device: "mlx5_0", Rail: -1}}},
	} {
		t.Run(name, func(t *testing.T) {
			g, _ := fabric.Build(spec, catalog.Default())
			vs := Evaluate(g, analysis.Analyze(g, nil), Policy{}, nil)
			if count(vs, RuleEmptyFabric) != 1 || !HasErrors(vs) {
				t.Fatalf("violations %v, want one empty-fabric error", vs)
			}
			for _, v := range vs {
				if v.Rule == RuleEmptyFabric && !strings.Contains(v.Message, "no endpoints") {
					t.Errorf("message %q", v.Message)
				}
			}
		})
	}
}
