package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// effectiveFabric is the 512-GPU two-tier fat tree (64 DGX H100, 16 leaves x 8 spines)
// generated and fed to the fabric; extra goes into the fabric.
func effectiveFabric(extra string) string {
	return fmt.Sprintf(`
data "gpucluster_topology" "t" {
  kind   = "fat-tree"
  node_count = 64
  tiers  = 2
  spines = 8
}

resource "gpucluster_fabric" "f" {
  name   = "ft512"
  design = data.gpucluster_topology.t.design
  %s
}
`, extra)
}

// expectedEffective computes, through internal/ only, what the plan must show: the same design,
// the top tier as ftree's roots, the generator's switch GUIDs.
func expectedEffective(t *testing.T, engine string) *analysis.Effective {
	t.Helper()
	d, err := topogen.Generate(topogen.Params{Kind: "fat-tree", Nodes: 64, Tiers: 2, Spines: 8}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	g, problems := fabric.Build(d.Spec(), catalog.Default())
	if fabric.HasErrors(problems) {
		t.Fatal(problems)
	}
	r := analysis.Routing{Engines: []string{engine}, GUIDs: make([]uint64, len(g.Devices))}
	for i := range g.Devices {
		dev := &g.Devices[i]
		if dev.Kind != fabric.KindSwitch {
			continue
		}
		v, err := strconv.ParseUint(strings.TrimPrefix(dev.GUID, "0x"), 16, 64)
		if err != nil {
			t.Fatalf("switch %s GUID %q: %v", dev.Name, dev.GUID, err)
		}
		r.GUIDs[i] = v
		if dev.Level == 2 {
			r.Roots = append(r.Roots, int32(i))
		}
	}
	e, err := analysis.EffectiveBisection(g, r)
	if err != nil || e == nil {
		t.Fatalf("EffectiveBisection: %v", err)
	}
	return e
}

// TestAccFabricEffectiveBisection plans the 512-GPU fat tree: analysis.effective_bisection
// shows the ftree routes the provider configures, min_effective_bisection_ratio fails a plan
// with the engine, the mean and the limit, and a torus (routes not modelled) fails the rule
// instead of passing it.
func TestAccFabricEffectiveBisection(t *testing.T) {
	accHeavy(t)
	t.Parallel()
	const f = "gpucluster_fabric.f"
	at := tfjsonpath.New[string]
	e := expectedEffective(t, "ftree")
	eff := func(k string, v knownvalue.Check) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue(f, at("analysis").AtMapKey("effective_bisection").AtMapKey(k), v)
	}
	minhop := expectedEffective(t, "minhop")
	dir := t.TempDir()
	key := filepath.Join(dir, "id_ed25519")
	testrig.ClientKey(t, key)
	knownHosts := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(knownHosts, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// A subnet_manager that routes with minhop (nothing is pushed: the steps only plan).
	sm := fmt.Sprintf(`subnet_manager = {
    hosts            = ["127.0.0.1"]
    routing_engine   = "minhop"
    ssh_user         = "root"
    ssh_private_key  = file(%q)
    known_hosts_file = %q
  }`, key, knownHosts)
	torus := func(extra string) string {
		return `
data "gpucluster_topology" "t" {
  kind       = "torus-3d"
  torus_dims = [3, 3, 3]
}

resource "gpucluster_fabric" "f" {
  name   = "torus"
  design = data.gpucluster_topology.t.design
  ` + extra + `
}
`
	}
	// resource.Test, not UnitTest: see accHeavy.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:             torus(""),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(f, at("analysis").AtMapKey("effective_bisection"), knownvalue.Null()),
				}},
			},
			{
				Config:             effectiveFabric(sm),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					eff("routing_engine", knownvalue.StringExact("minhop")),
					eff("ratio_mean", knownvalue.Float64Exact(minhop.RatioMean)),
					eff("ratio_p05", knownvalue.Float64Exact(minhop.RatioP05)),
				}},
			},
			{
				// routing_engine known only at apply: the output is unknown and the rule waits
				// (a warning at plan), rather than passing on a guess.
				Config: `
resource "terraform_data" "engine" {
  input = "minhop"
}
` + effectiveFabric(strings.Replace(sm, `routing_engine   = "minhop"`, `routing_engine   = terraform_data.engine.output`, 1)+`
  policy = { min_effective_bisection_ratio = 0.9 }`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					plancheck.ExpectUnknownValue(f, at("analysis").AtMapKey("effective_bisection")),
					plancheck.ExpectKnownValue(f, at("analysis").AtMapKey("endpoints"), knownvalue.Int64Exact(512)),
				}},
			},
			{
				Config:             effectiveFabric(`policy = { min_effective_bisection_ratio = 0.5 }`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					eff("routing_engine", knownvalue.StringExact("ftree")),
					eff("ratio_mean", knownvalue.Float64Exact(e.RatioMean)),
					eff("ratio_p05", knownvalue.Float64Exact(e.RatioP05)),
					eff("samples", knownvalue.Int64Exact(int64(analysis.DefaultSamples))),
					plancheck.ExpectKnownValue(f, at("analysis").AtMapKey("bisection_ratio"), knownvalue.Float64Exact(1)),
				}},
			},
			{
				Config:      effectiveFabric(`policy = { min_effective_bisection_ratio = 0.9 }`),
				PlanOnly:    true,
				ExpectError: re(fmt.Sprintf("effective-bisection: under ftree routing, random bisection patterns get %s of full bisection on average", strconv.FormatFloat(e.RatioMean, 'f', -1, 64))),
			},
			{
				Config:   torus(`policy = { min_effective_bisection_ratio = 0.5 }`),
				PlanOnly: true,
				// The provider routes a torus with a deadlock-free engine (torus-2QoS or dfsssp),
				// neither of which the model reproduces.
				ExpectError: re(`but it cannot be checked: the routes of routing_engine`),
			},
		},
	})
	if !(e.RatioMean > 0.5 && e.RatioMean < 0.9) || minhop.RatioMean >= e.RatioMean {
		t.Fatalf("ftree mean %v, minhop %v: the steps above assume ftree between the two limits and above minhop", e.RatioMean, minhop.RatioMean)
	}
}
