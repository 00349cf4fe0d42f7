package provider

import (
	"context"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
	"github.com/gpucluster/terraform-provider-gpucluster/provider/tfwire"
)

const topo = "data.gpucluster_topology.pod"

// superPOD1SU is one DGX SuperPOD scalable unit generated and fed straight into the fabric. The
// data source is an output, so plan checks see every value without an apply.
func superPOD1SU(reserved int) string {
	return fmt.Sprintf(`
data "gpucluster_topology" "pod" {
  kind                = "rail-optimized"
  scalable_units      = 1
  reserved_node_slots = %d
}

locals {
  t = data.gpucluster_topology.pod
}

# The maps as they are, and the design: the same graph.
resource "gpucluster_fabric" "f" {
  name     = "pod"
  racks    = local.t.racks
  switches = local.t.switches
  nodes    = local.t.nodes
  hcas     = local.t.hcas
  cables   = local.t.cables
  policy   = { preset = "training-large", spine_headroom = 0 }
}

resource "gpucluster_fabric" "d" {
  name   = "pod"
  design = local.t.design
  policy = { preset = "training-large", spine_headroom = 0 }
}

output "t" {
  value = local.t
}

output "compute_and_ufm_links" {
  value = local.t.summary.links_by_tier["node-leaf"] + lookup(local.t.summary.links_by_tier, "appliance-leaf", 0)
}
`, reserved)
}

// TestAccTopologySuperPOD reproduces RA-11333-001 Table 4 for one SU (31 nodes, 8 leaves, 4
// spines, 252 compute+UFM links, 256 leaf-spine links) through the data source, and proves the
// generated fabric non-blocking with the fabric resource, all at plan time.
func TestAccTopologySuperPOD(t *testing.T) {
	requireAcc(t)
	const f = "gpucluster_fabric.f"
	at := tfjsonpath.New[string]
	out := func(p tfjsonpath.Path, v knownvalue.Check) plancheck.PlanCheck {
		return plancheck.ExpectKnownOutputValueAtPath("t", p, v)
	}
	i := knownvalue.Int64Exact
	str := knownvalue.StringExact
	analysis := func(k string, v knownvalue.Check) plancheck.PlanCheck {
		return plancheck.ExpectKnownValue(f, at("analysis").AtMapKey(k), v)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:             superPOD1SU(1),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					out(at("summary").AtMapKey("nodes"), i(31)),
					out(at("summary").AtMapKey("switches_by_role"), knownvalue.MapExact(map[string]knownvalue.Check{"leaf": i(8), "spine": i(4)})),
					out(at("summary").AtMapKey("links_by_tier"), knownvalue.MapExact(map[string]knownvalue.Check{
						"node-leaf": i(248), "appliance-leaf": i(4), "leaf-spine": i(256),
					})),
					plancheck.ExpectKnownOutputValue("compute_and_ufm_links", i(252)),
					out(at("summary").AtMapKey("tiers"), i(2)),
					out(at("summary").AtMapKey("planned_groups"), knownvalue.Null()),
					// The maps, keyed by name, with the resources' attributes; unset is null.
					out(at("nodes"), knownvalue.MapSizeExact(31)),
					out(at("hcas"), knownvalue.MapSizeExact(248)),
					out(at("switches"), knownvalue.MapSizeExact(12)),
					out(at("cables"), knownvalue.MapSizeExact(504)),
					out(at("appliance_links"), knownvalue.MapSizeExact(4)),
					out(at("hcas").AtMapKey("gpu001/mlx5_3"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"name": str("gpu001/mlx5_3"), "node": str("gpu001"), "device": str("mlx5_3"),
						"model": knownvalue.Null(), "port_guid": str("0x0002c90100000004"), "rail": i(3),
					})),
					out(at("cables").AtMapKey("gpu001/mlx5_3:1"), knownvalue.ObjectExact(map[string]knownvalue.Check{
						"a":    knownvalue.ObjectExact(map[string]knownvalue.Check{"device": str("gpu001/mlx5_3"), "port": i(1)}),
						"b":    knownvalue.ObjectExact(map[string]knownvalue.Check{"device": str("leaf04"), "port": i(1)}),
						"kind": knownvalue.Null(), "length_m": knownvalue.Null(),
					})),
					out(at("switches").AtMapKey("leaf01"), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"role": str("leaf"), "guid": str("0x0002c90000100001"), "group": knownvalue.Null(), "model": str("QM9700"),
					})),
					out(at("switches").AtMapKey("spine01").AtMapKey("role"), str("spine")),
					out(at("appliance_links").AtMapKey("ufm01:1"), knownvalue.ObjectPartial(map[string]knownvalue.Check{
						"switch": str("leaf01"), "switch_port": i(32),
					})),
					// The groups are listed; their maps stay empty unless items_by_group: nothing twice.
					out(at("groups"), knownvalue.MapSizeExact(2)),
					out(at("groups").AtMapKey("su01").AtMapKey("kind"), str("scalable-unit")),
					out(at("groups").AtMapKey("su01").AtMapKey("nodes"), knownvalue.MapSizeExact(0)),
					out(at("port_plan_text"), knownvalue.StringRegexp(re("leaf ports 33-64: spines"))),
					out(at("notes"), knownvalue.ListSizeExact(2)),
					// The spines are full at the planned size: the note says what the policy's spine-headroom rule says.
					out(at("notes").AtSliceIndex(1), knownvalue.StringExact("spine headroom: top tier spine has 0% free ports at spine01 (0 of 64 free); "+
						"the origin document's rule keeps 30% (20 of 64) free on every top-tier switch for growth, so a fabric of this design gets a "+
						"spine-headroom warning under the default policy (policy.spine_headroom = 0.3), none where its policy sets spine_headroom = 0; "+
						"planned_scalable_units = 2 keeps 30% of the top tier free at this size (8 spines, 4 now)")),
					// 31 nodes under 32 uplinks per leaf: 31:32, full bisection proved (lower = upper).
					analysis("endpoints", i(248)),
					analysis("max_oversubscription", knownvalue.Float64Exact(0.96875)),
					analysis("full_bisection_gbps", knownvalue.Float64Exact(49600)),
					analysis("bisection_lower_gbps", knownvalue.Float64Exact(49600)),
					analysis("bisection_upper_gbps", knownvalue.Float64Exact(49600)),
					analysis("bisection_ratio", knownvalue.Float64Exact(1)),
					// The normalized design: defaults filled, the planned size resolved.
					out(at("design").AtMapKey("scalable_units"), i(1)),
					out(at("design").AtMapKey("planned_scalable_units"), i(1)),
					out(at("design").AtMapKey("tiers"), i(2)),
					out(at("design").AtMapKey("switch_model"), str("QM9700")),
					out(at("design").AtMapKey("node_count"), knownvalue.Null()),
					// The fabric given the design builds the same graph as from the maps.
					plancheck.ExpectKnownValue("gpucluster_fabric.d", at("analysis").AtMapKey("endpoints"), i(248)),
					plancheck.ExpectKnownValue("gpucluster_fabric.d", at("analysis").AtMapKey("links"), i(504)),
					plancheck.ExpectKnownValue("gpucluster_fabric.d", at("analysis").AtMapKey("bisection_lower_gbps"), knownvalue.Float64Exact(49600)),
					analysis("links", i(504)),
				}},
			},
			{
				// The full SU without the UFM slot: exactly 1:1.
				Config:             superPOD1SU(0),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					out(at("summary").AtMapKey("nodes"), i(32)),
					out(at("appliance_links"), knownvalue.MapSizeExact(0)),
					analysis("oversubscription", knownvalue.MapExact(map[string]knownvalue.Check{"leaf": knownvalue.Float64Exact(1)})),
					analysis("max_oversubscription", knownvalue.Float64Exact(1)),
					analysis("full_bisection_gbps", knownvalue.Float64Exact(51200)),
					analysis("bisection_lower_gbps", knownvalue.Float64Exact(51200)),
					analysis("bisection_upper_gbps", knownvalue.Float64Exact(51200)),
				}},
			},
		},
	})
}

// TestAccTopologyRefusal: what cannot be built fails the plan on the argument at fault, with the
// nearest buildable input.
func TestAccTopologyRefusal(t *testing.T) {
	t.Parallel()
	cfg := func(args string) string {
		return `data "gpucluster_topology" "pod" {` + "\n" + args + "\n}\n"
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: cfg(`kind = "rail-optimized"
  scalable_units         = 3
  planned_scalable_units = 2`),
				ExpectError: re("Cannot build this topology"),
			},
			{
				Config: cfg(`kind = "rail-optimized"
  scalable_units         = 3
  planned_scalable_units = 2`),
				ExpectError: re("scalable_units: scalable_units (3) exceed planned_scalable_units (2)"),
			},
			{
				Config: cfg(`kind = "rail-optimized"
  scalable_units         = 3
  planned_scalable_units = 2`),
				ExpectError: re("Nearest buildable: planned_scalable_units = 3."),
			},
			{
				// The source line Terraform quotes is the argument's.
				Config: cfg(`kind = "fat-tree"
  tiers      = 2
  node_count = 257`),
				ExpectError: re("node_count = 257"),
			},
			{
				Config: cfg(`kind = "fat-tree"
  tiers      = 2
  node_count = 257`),
				ExpectError: re("Nearest buildable: at most 256 nodes of 8 HCAs, or tiers = 3."),
			},
			{
				// An argument of another kind is refused, not ignored, naming this kind's size argument.
				Config: cfg(`kind = "fat-tree"
  scalable_units = 1`),
				ExpectError: re(`scalable_units does not apply to kind "fat-tree", which is sized by node_count; it applies to rail-optimized`),
			},
			{
				Config: cfg(`kind = "fat-tree"
  node_count       = 16
  oversubscription = 2.51`),
				ExpectError: re("Nearest buildable: oversubscription = 43/17 (43:17 on 64 ports, 4 spare) or oversubscription = 2.5 (45:18 on 64 ports, 1 spare)."),
			},
			{
				Config:      cfg(`kind = "fat-tree"` + "\n" + `node_count = 4` + "\n" + `hca_guid_base = "0xzz"`),
				ExpectError: re("Invalid GUID"),
			},
			// Zero is not "unset" (issue 22 item 5): refused on the argument, null is the default.
			{
				Config:      cfg(`kind = "fat-tree"` + "\n" + `node_count = 4` + "\n" + `oversubscription = 0`),
				ExpectError: re("oversubscription = 0 is out of range: it takes at least 1; leave it unset (null) for the default (1)"),
			},
			{
				Config:      cfg(`kind = "fat-tree"` + "\n" + `node_count = 64` + "\n" + `spines = 0`),
				ExpectError: re("spines = 0 is out of range: it takes at least 1"),
			},
			// Two prefixes naming a switch and a node alike, on the prefix, naming both.
			{
				Config:      cfg(`kind = "fat-tree"` + "\n" + `node_count = 4` + "\n" + `prefixes = { leaf = "gpu0", node = "gpu" }`),
				ExpectError: re(`prefixes.leaf: prefixes.leaf = "gpu0" names leaf switch gpu001 and prefixes.node = "gpu" names node gpu001: two devices of one name`),
			},
			// A GUID base that would wrap: the largest that fits.
			{
				Config:      cfg(`kind = "fat-tree"` + "\n" + `node_count = 4` + "\n" + `switch_guid_base = "0xffffffffffffffff"`),
				ExpectError: re(`Nearest buildable: switch_guid_base = "0xffffffffffeffffe".`),
			},
			{
				Config:      cfg(`kind = "fat-tree"` + "\n" + `node_count = 4` + "\n" + `items = ["nodes", "wires"]`),
				ExpectError: re(`items[1]`),
			},
		},
	})
}

// TestAccTopologyItems: `items` chooses the maps Terraform gets, `items_by_group` puts them in
// the groups instead; nothing is output twice (issue 19 item 6).
func TestAccTopologyItems(t *testing.T) {
	accHeavy(t)
	t.Parallel()
	at := tfjsonpath.New[string]
	config := func(args string) string {
		return `
data "gpucluster_topology" "pod" {
  kind                = "rail-optimized"
  scalable_units      = 1
  reserved_node_slots = 1
` + args + `
}

output "sizes" {
  value = { for k in ["racks", "switches", "nodes", "hcas", "cables", "appliance_links"] : k => length(data.gpucluster_topology.pod[k]) }
}

output "groups" {
  value = { for g, v in data.gpucluster_topology.pod.groups : g => { for k in ["switches", "nodes", "hcas", "cables"] : k => length(v[k]) } }
}
`
	}
	sizes := func(m map[string]int64) plancheck.PlanCheck {
		checks := map[string]knownvalue.Check{}
		for k, v := range m {
			checks[k] = knownvalue.Int64Exact(v)
		}
		return plancheck.ExpectKnownOutputValue("sizes", knownvalue.MapExact(checks))
	}
	group := func(g string, m map[string]int64) plancheck.PlanCheck {
		checks := map[string]knownvalue.Check{}
		for k, v := range m {
			checks[k] = knownvalue.Int64Exact(v)
		}
		return plancheck.ExpectKnownOutputValueAtPath("groups", at(g), knownvalue.MapExact(checks))
	}
	step := func(args string, checks ...plancheck.PlanCheck) resource.TestStep {
		return resource.TestStep{Config: config(args), PlanOnly: true, ExpectNonEmptyPlan: true,
			ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: checks}}
	}
	none := map[string]int64{"switches": 0, "nodes": 0, "hcas": 0, "cables": 0}
	// resource.Test, not UnitTest: see accHeavy.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			step("", sizes(map[string]int64{"racks": 10, "switches": 12, "nodes": 31, "hcas": 248, "cables": 504, "appliance_links": 4}), group("su01", none)),
			step(`items = ["nodes", "hcas"]`, sizes(map[string]int64{"racks": 0, "switches": 0, "nodes": 31, "hcas": 248, "cables": 0, "appliance_links": 0}), group("su01", none)),
			step(`items = []`, sizes(map[string]int64{"racks": 0, "switches": 0, "nodes": 0, "hcas": 0, "cables": 0, "appliance_links": 0})),
			step(`items = ["nodes", "hcas"]`+"\n"+`items_by_group = true`,
				sizes(map[string]int64{"racks": 0, "switches": 0, "nodes": 0, "hcas": 0, "cables": 0, "appliance_links": 0}),
				group("su01", map[string]int64{"switches": 0, "nodes": 31, "hcas": 248, "cables": 0}),
				group("spines", none)),
			step(`items_by_group = true`,
				group("su01", map[string]int64{"switches": 8, "nodes": 31, "hcas": 248, "cables": 504}),
				group("spines", map[string]int64{"switches": 4, "nodes": 0, "hcas": 0, "cables": 0})),
		},
	})
}

// growth is a rail-optimized pod planned for 2 SUs with per-item resources for what has an
// apply-side life, fed by the generator's maps.
func growth(sus int) string {
	return fmt.Sprintf(`
data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = %d
  planned_scalable_units = 2
}

locals {
  t = data.gpucluster_topology.pod
}

resource "gpucluster_rack" "all" {
  for_each = local.t.racks
  name     = each.value.name
  row      = each.value.row
  position = each.value.position
  units    = each.value.units
  power_kw = each.value.power_kw
}

resource "gpucluster_switch" "all" {
  for_each   = local.t.switches
  name       = each.value.name
  rack       = gpucluster_rack.all[each.value.rack].name
  position_u = each.value.position_u
  role       = each.value.role
  guid       = each.value.guid
}

resource "gpucluster_node" "all" {
  for_each   = local.t.nodes
  name       = each.value.name
  rack       = gpucluster_rack.all[each.value.rack].name
  position_u = each.value.position_u
}

output "maps" {
  value = { for k in ["racks", "switches", "nodes", "hcas", "cables"] : k => local.t[k] }
}
`, sus)
}

// expectOnlyAdditions fails a plan that does anything to the per-item resources but create them
// or leave them alone (a fabric fed by them would update: its lists grow).
type expectOnlyAdditions struct{}

func (expectOnlyAdditions) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	creates := 0
	for _, rc := range req.Plan.ResourceChanges {
		if rc.Type == "gpucluster_fabric" || rc.Mode != "managed" {
			continue
		}
		switch {
		case rc.Change.Actions.Create():
			creates++
		case rc.Change.Actions.NoOp():
		default:
			resp.Error = fmt.Errorf("%s: %v, want only create or no-op when growing within the plan", rc.Address, rc.Change.Actions)
			return
		}
	}
	if creates == 0 {
		resp.Error = fmt.Errorf("growing added nothing")
	}
}

// TestAccTopologyGrowth: growing from 1 to 2 SUs within planned_scalable_units = 2 only adds:
// every per-item resource keyed by the maps stays as it is, and every entry of the maps keeps its
// key and value. Step 2 is a plan, checked against the state of step 1. (The fabric's purchase order
// over the same growth is shown by examples/clusters/expansion-2su-to-4su.) (No Check functions: terraform-plugin-testing's legacy state shim
// refuses for_each instances.)
func TestAccTopologyGrowth(t *testing.T) {
	requireAcc(t)
	before := map[string]any{}
	at := tfjsonpath.New[string]
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: growth(1),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(topo, at("switches"), knownvalue.MapSizeExact(16)), // 8 leaves, 8 spines for 2 SUs
					statecheck.ExpectKnownValue(topo, at("summary").AtMapKey("planned_scalable_units"), knownvalue.Int64Exact(2)),
					mapEntries{into: before},
				},
			},
			{
				Config:             growth(2),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: resource.ConfigPlanChecks{PostApplyPreRefresh: []plancheck.PlanCheck{
					expectOnlyAdditions{},
					plancheck.ExpectResourceAction(`gpucluster_switch.all["leaf01"]`, plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction(`gpucluster_switch.all["spine08"]`, plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction(`gpucluster_node.all["gpu032"]`, plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction(`gpucluster_rack.all["rack01"]`, plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction(`gpucluster_switch.all["leaf09"]`, plancheck.ResourceActionCreate),
					plancheck.ExpectResourceAction(`gpucluster_node.all["gpu033"]`, plancheck.ResourceActionCreate),
					plancheck.ExpectKnownOutputValueAtPath("maps", at("switches"), knownvalue.MapSizeExact(24)),
					plancheck.ExpectKnownOutputValueAtPath("maps", at("nodes"), knownvalue.MapSizeExact(64)),
					plancheck.ExpectKnownOutputValueAtPath("maps", at("cables"), knownvalue.MapSizeExact(1024)),
					mapEntries{before: before},
				}},
			},
			{
				// No for_each instances left for the test harness's final state read.
				Config: `data "gpucluster_topology" "pod" {
  kind           = "rail-optimized"
  scalable_units = 1
}`,
			},
		},
	})
}

var topoMaps = []string{"racks", "switches", "nodes", "hcas", "cables"}

// mapEntries records every entry of the five maps from the state (into), or checks that every
// recorded entry is still in the planned `maps` output with the same value (before).
type mapEntries struct {
	into, before map[string]any
}

func (c mapEntries) CheckState(_ context.Context, req statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	for _, r := range req.State.Values.RootModule.Resources {
		if r.Address == topo {
			for _, name := range topoMaps {
				m, _ := r.AttributeValues[name].(map[string]any)
				for k, v := range m {
					c.into[name+"/"+k] = v
				}
			}
		}
	}
	if len(c.into) < 500 {
		resp.Error = fmt.Errorf("recorded only %d entries of %s", len(c.into), topo)
	}
}

func (c mapEntries) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	o, ok := req.Plan.PlannedValues.Outputs["maps"]
	if !ok {
		resp.Error = fmt.Errorf("no planned output maps")
		return
	}
	maps, _ := o.Value.(map[string]any)
	var changed []string
	for k, v := range c.before {
		name, key, _ := strings.Cut(k, "/")
		m, _ := maps[name].(map[string]any)
		if now, ok := m[key]; !ok || !reflect.DeepEqual(now, v) {
			changed = append(changed, fmt.Sprintf("%s: %v -> %v", k, v, now))
		}
	}
	if len(c.before) < 500 {
		resp.Error = fmt.Errorf("compared only %d entries", len(c.before))
	}
	if len(changed) > 0 {
		sort.Strings(changed)
		if len(changed) > 10 {
			changed = append(changed[:10], fmt.Sprintf("... %d in all", len(changed)))
		}
		resp.Error = fmt.Errorf("growing changed existing entries:\n%s", strings.Join(changed, "\n"))
	}
}

// ---- unit tests ----

func topologySchemaType(t testing.TB) tftypes.Object {
	var sr datasource.SchemaResponse
	newTopologyDataSource().Schema(context.Background(), datasource.SchemaRequest{}, &sr)
	if sr.Diagnostics.HasError() {
		t.Fatal(sr.Diagnostics)
	}
	if d := sr.Schema.ValidateImplementation(context.Background()); d.HasError() {
		t.Fatal(d)
	}
	return as[tftypes.Object](t, sr.Schema.Type().TerraformType(context.Background()))
}

func generate(t testing.TB, p topogen.Params) *topogen.Design {
	d, err := topogen.Generate(p, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestTopologyOutputs checks that the values built without the framework have exactly the
// schema's types, and that unset fields become null.
func TestTopologyOutputs(t *testing.T) {
	typ := topologySchemaType(t)
	for _, p := range []topogen.Params{
		{Kind: topogen.KindRailOptimized, ScalableUnits: 1, ReservedNodeSlots: 1, CableKind: "fiber-mm"},
		{Kind: topogen.KindFatTree, Nodes: 40},
		{Kind: topogen.KindDragonflyPlus, Groups: 3, LeavesPerGroup: 4, SpinesPerGroup: 4},
		{Kind: topogen.KindTorus3D, TorusDims: [3]int{2, 2, 3}},
	} {
		out := topologyOutputs(generate(t, p), nil, noFloor, allItems())
		for k, v := range out {
			if want := typ.AttributeTypes[k]; !v.Type().Equal(want) {
				t.Errorf("%s: %s: type %s, schema %s", p.Kind, k, v.Type(), want)
			}
		}
		for k := range typ.AttributeTypes {
			if _, isOut := out[k]; !isOut && strings.Contains("racks switches nodes hcas cables appliance_links groups summary notes port_plan port_plan_text", k) {
				t.Errorf("%s: output %s not set", p.Kind, k)
			}
		}
		cfg := map[string]tftypes.Value{}
		for k, at := range typ.AttributeTypes {
			cfg[k] = tftypes.NewValue(at, nil)
		}
		if _, err := tfwire.WithOutputs(tftypes.NewValue(typ, cfg), out); err != nil {
			t.Errorf("%s: state: %v", p.Kind, err)
		}
	}

	attr := func(v tftypes.Value, path ...string) tftypes.Value {
		t.Helper()
		for _, p := range path {
			var m map[string]tftypes.Value
			if err := v.As(&m); err != nil {
				t.Fatal(err)
			}
			v = m[p]
		}
		return v
	}
	ft := topologyOutputs(generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 40}), nil, noFloor, allItems())
	if r := attr(ft["hcas"], "gpu001/mlx5_0", "rail"); !r.IsNull() {
		t.Errorf("fat-tree rail = %v, want null", r)
	}
	if k := attr(ft["cables"], "gpu001/mlx5_0:1", "kind"); !k.IsNull() {
		t.Errorf("kind = %v, want null", k)
	}
	if g := attr(ft["summary"], "planned_scalable_units"); !g.IsNull() {
		t.Errorf("planned_scalable_units = %v, want null", g)
	}
	ro := topologyOutputs(generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 1, CableKind: "fiber-mm"}), nil, noFloor, allItems())
	var kind string
	if err := attr(ro["cables"], "leaf01:33", "kind").As(&kind); err != nil || kind != "fiber-mm" {
		t.Errorf("kind = %q (%v), want fiber-mm", kind, err)
	}
	var rail big.Float
	if err := attr(ro["hcas"], "gpu002/mlx5_7", "rail").As(&rail); err != nil || rail.String() != "7" {
		t.Errorf("rail = %s (%v), want 7", rail.String(), err)
	}
}

// bigFatTree is the scale case of the design guide (docs/guides/design.md): 16,384 endpoints in a 3-tier fat tree, 49,152 cables.
var bigFatTree = topogen.Params{Kind: topogen.KindFatTree, Nodes: 2048, Tiers: 3}

// cableMap builds the cables output of a design the way topologyOutputs does: one object per
// cable, keyed by the design's cable key.
func cableMap(d *topogen.Design) tftypes.Value {
	m := make(map[string]tftypes.Value, len(d.CableList))
	for i, c := range d.CableList {
		m[d.CableKeys[i]] = cableValue(c)
	}
	return tfMap(tfCable, m)
}

// TestTopologyCables: the scale case of the design guide (docs/guides/design.md, "Scale") gives
// one cable object per cable of its three tiers, 3 x 16,384 = 49,152, each the encoding of its
// cable under its own key. How fast is BenchmarkTopologyCables' question, not a test's.
func TestTopologyCables(t *testing.T) {
	d := generate(t, bigFatTree)
	var m map[string]tftypes.Value
	if err := cableMap(d).As(&m); err != nil {
		t.Fatal(err)
	}
	if len(m) != 49152 || len(d.CableList) != 49152 {
		t.Fatalf("%d cable objects from %d cables, want 49,152 of each", len(m), len(d.CableList))
	}
	for _, i := range []int{0, len(d.CableList) / 2, len(d.CableList) - 1} {
		if got, want := m[d.CableKeys[i]], cableValue(d.CableList[i]); !got.Equal(want) {
			t.Errorf("cable %s: %v, want %v", d.CableKeys[i], got, want)
		}
	}
}

// BenchmarkTopologyCables: the 49,152 cable objects of the scale case; the design guide's
// budget is well under a second (compare ns/op with 1e9).
func BenchmarkTopologyCables(b *testing.B) {
	d := generate(b, bigFatTree)
	b.ReportAllocs()
	for b.Loop() {
		if cableMap(d).IsNull() {
			b.Fatal("null map")
		}
	}
}

// BenchmarkTopologyOutputs: every output of the 16,384-endpoint tree, groups included.
func BenchmarkTopologyOutputs(b *testing.B) {
	d := generate(b, bigFatTree)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		topologyOutputs(d, nil, noFloor, allItems())
	}
}

// TestTopologyArgs: the configuration reaches topogen.Params through the design's decoder; null
// is topogen's default (zero).
func TestTopologyArgs(t *testing.T) {
	typ := topologySchemaType(t)
	cfg := map[string]tftypes.Value{}
	for k, at := range typ.AttributeTypes {
		cfg[k] = tftypes.NewValue(at, nil)
	}
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	num := func(n float64) tftypes.Value { return tftypes.NewValue(tftypes.Number, n) }
	pt := as[tftypes.Object](t, typ.AttributeTypes["prefixes"])
	pre := map[string]tftypes.Value{}
	for k, at := range pt.AttributeTypes {
		pre[k] = tftypes.NewValue(at, nil)
	}
	pre["node"], pre["leaf"] = str("dgx"), str("l")
	cfg["kind"], cfg["rack_power_kw"], cfg["cable_kind"] = str("torus-3d"), num(30), str("aoc")
	cfg["torus_dims"] = tftypes.NewValue(tftypes.List{ElementType: tftypes.Number}, []tftypes.Value{num(2), num(3), num(4)})
	cfg["prefixes"] = tftypes.NewValue(pt, pre)
	cfg["switch_guid_base"], cfg["hca_guid_base"] = str("0x0002c90000000000"), str("0002:c901:0000:0000")
	cfg["hca_guids"] = tftypes.NewValue(tftypes.Map{ElementType: tftypes.String}, map[string]tftypes.Value{"dgx001/mlx5_0": str("0x10")})
	cfg["group_oversubscription"] = num(2)
	r := specReader{}
	p := r.decodeArgs(cfg, path.Root, "")
	if r.diags.HasError() || r.unknown {
		t.Fatal(r.diags)
	}
	want := topogen.Params{
		Kind: "torus-3d", RackPowerKW: 30, TorusDims: [3]int{2, 3, 4}, NodePrefix: "dgx", LeafPrefix: "l",
		SwitchGUIDBase: 0x0002c90000000000, HCAGUIDBase: 0x0002c90100000000, GroupOversubscription: 2,
		HCAGUIDs: map[string]string{"dgx001/mlx5_0": "0x10"}, CableKind: "aoc",
	}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("params\n got %+v\nwant %+v", p, want)
	}

	cfg["hca_guid_base"] = str("0xnothex")
	r = specReader{}
	if r.decodeArgs(cfg, path.Root, ""); !r.diags.HasError() || !strings.Contains(r.diags[0].Detail(), "hex digits") {
		t.Errorf("want an Invalid GUID error, got %v", r.diags)
	}
}

// TestTopologyItemSelection: items chooses the maps, items_by_group puts them in the groups
// instead of the top level; an object is never output twice.
func TestTopologyItemSelection(t *testing.T) {
	d := generate(t, topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 2, ReservedNodeSlots: 1})
	size := func(v tftypes.Value) int {
		var m map[string]tftypes.Value
		if err := v.As(&m); err != nil {
			t.Fatal(err)
		}
		return len(m)
	}
	groupSizes := func(out map[string]tftypes.Value, name string) int {
		var gs map[string]tftypes.Value
		if err := out["groups"].As(&gs); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, g := range gs {
			var attrs map[string]tftypes.Value
			if err := g.As(&attrs); err != nil {
				t.Fatal(err)
			}
			n += size(attrs[name])
		}
		return n
	}
	want := map[string]int{"racks": len(d.Racks), "switches": len(d.Switches), "nodes": len(d.Nodes), "hcas": len(d.HCAs),
		"cables": len(d.Cables), "appliance_links": len(d.Appliances)}
	nodesHCAs := itemSelection{maps: map[string]bool{"nodes": true, "hcas": true}}
	for name, sel := range map[string]itemSelection{
		"all": allItems(), "none": {maps: map[string]bool{}}, "nodes and hcas": nodesHCAs,
		"nodes and hcas by group": {maps: nodesHCAs.maps, byGroup: true}, "all by group": {maps: allItems().maps, byGroup: true},
	} {
		out := topologyOutputs(d, nil, noFloor, sel)
		for _, m := range topologyItemMaps {
			top, inGroups := size(out[m]), groupSizes(out, m)
			w := 0
			if sel.maps[m] {
				w = want[m]
			}
			if sel.byGroup {
				top, inGroups = inGroups, top
			}
			if top != w || inGroups != 0 {
				t.Errorf("%s: %s has %d objects where asked (want %d) and %d elsewhere (want 0)", name, m, top, w, inGroups)
			}
		}
	}
	// The groups are listed whatever the selection.
	if n := size(topologyOutputs(d, nil, noFloor, itemSelection{})["groups"]); n != len(d.Groups) {
		t.Errorf("%d groups listed, want %d", n, len(d.Groups))
	}
}
