package provider

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	tfjson "github.com/hashicorp/terraform-json"
)

// identityConfig declares one resource of every type, all of them reached by nothing remote.
const identityConfig = `
resource "gpucluster_rack" "r" {
  name     = "r01"
  row      = 1
  position = 2
}
resource "gpucluster_switch" "s" {
  name       = "leaf01"
  rack       = "r01"
  position_u = 40
  guid       = "0x0002c90300000001"
}
resource "gpucluster_node" "n" {
  name       = "gpu001"
  rack       = "r01"
  position_u = 2
}
resource "gpucluster_hca" "h" {
  node      = "gpu001"
  device    = "mlx5_0"
  port_guid = "0x0002c90300000101"
  rail      = 0
}
resource "gpucluster_cable" "c" {
  a = { device = "leaf01", port = 1 }
  b = { device = "gpu001/mlx5_0", port = 1 }
}
resource "gpucluster_partition" "p" {
  name    = "tenant_a"
  pkey    = "0x0a01"
  members = [{ hca = "gpu001/mlx5_0" }]
}
resource "gpucluster_fabric" "f" {
  name     = "compute"
  racks    = { r01 = gpucluster_rack.r }
  switches = { leaf01 = gpucluster_switch.s }
  nodes    = { gpu001 = gpucluster_node.n }
  hcas     = { "gpu001/mlx5_0" = gpucluster_hca.h }
  cables   = { c = gpucluster_cable.c }
}
`

// TestAccIdentity checks that every resource records its identity, and that an import block with
// `identity = { ... }` imports each one in place: never a replacement (the identity attributes
// are the ones whose change replaces), the identity Terraform stores equal to the one given,
// and the plan after it changing only what the identity cannot carry. A cable's label holds all
// it declares here, so its import is a no-op; the others record the rest of their declaration
// from the configuration.
func TestAccIdentity(t *testing.T) {
	requireAcc(t)
	str := knownvalue.StringExact
	steps := []resource.TestStep{{
		Config: identityConfig,
		ConfigStateChecks: []statecheck.StateCheck{
			statecheck.ExpectIdentity("gpucluster_rack.r", map[string]knownvalue.Check{"name": str("r01")}),
			statecheck.ExpectIdentity("gpucluster_switch.s", map[string]knownvalue.Check{"name": str("leaf01")}),
			statecheck.ExpectIdentity("gpucluster_node.n", map[string]knownvalue.Check{"name": str("gpu001")}),
			statecheck.ExpectIdentity("gpucluster_hca.h", map[string]knownvalue.Check{"node": str("gpu001"), "device": str("mlx5_0")}),
			statecheck.ExpectIdentity("gpucluster_cable.c", map[string]knownvalue.Check{"label": str("leaf01:1 <-> gpu001/mlx5_0:1")}),
			statecheck.ExpectIdentity("gpucluster_partition.p", map[string]knownvalue.Check{"name": str("tenant_a")}),
			statecheck.ExpectIdentity("gpucluster_fabric.f", map[string]knownvalue.Check{"name": str("compute")}),
		},
	}}
	// The attributes each import leaves to the configuration: what the plan after it may change.
	for addr, fromConfig := range map[string][]string{
		"gpucluster_rack.r":      {"row", "position"},
		"gpucluster_switch.s":    {"rack", "position_u", "guid"},
		"gpucluster_node.n":      {"rack", "position_u"},
		"gpucluster_hca.h":       {"port_guid", "rail"},
		"gpucluster_cable.c":     nil,
		"gpucluster_partition.p": {"pkey", "members"},
		"gpucluster_fabric.f":    {"racks", "switches", "nodes", "hcas", "cables", "analysis", "bom", "opensm", "summary"},
	} {
		step := resource.TestStep{
			ResourceName:       addr,
			ImportState:        true,
			ImportStateKind:    resource.ImportBlockWithResourceIdentity,
			ExpectNonEmptyPlan: fromConfig != nil,
			ImportPlanChecks: resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{
				importChanges{addr: addr, allowed: fromConfig},
			}},
		}
		steps = append(steps, step)
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: testProviders,
		Steps:                    steps,
	})
}

// importChanges checks the plan of an import: the resource is imported, not replaced, and only
// the allowed attributes change.
type importChanges struct {
	addr    string
	allowed []string
}

func (c importChanges) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	var rc *tfjson.ResourceChange
	for _, r := range req.Plan.ResourceChanges {
		if r.Address == c.addr {
			rc = r
		}
	}
	switch {
	case rc == nil:
		resp.Error = fmt.Errorf("%s: not in the plan", c.addr)
		return
	case rc.Change.Importing == nil:
		resp.Error = fmt.Errorf("%s: not imported", c.addr)
		return
	case !rc.Change.Actions.NoOp() && !rc.Change.Actions.Update():
		resp.Error = fmt.Errorf("%s: planned %v after the import, want no-op or update in place", c.addr, rc.Change.Actions)
		return
	}
	before, _ := rc.Change.Before.(map[string]any)
	after, _ := rc.Change.After.(map[string]any)
	allowed := map[string]bool{}
	for _, a := range c.allowed {
		allowed[a] = true
	}
	var changed []string
	for k := range after {
		if fmt.Sprint(before[k]) != fmt.Sprint(after[k]) && !allowed[k] {
			changed = append(changed, fmt.Sprintf("%s: %v -> %v", k, before[k], after[k]))
		}
	}
	if len(changed) > 0 {
		resp.Error = fmt.Errorf("%s: the import left attributes that the identity determines to change: %s", c.addr, strings.Join(changed, "; "))
	}
}

// TestAccIdentityInvalid checks that a wrong identity fails the plan once, naming the identity
// attribute and what would be right.
func TestAccIdentityInvalid(t *testing.T) {
	requireAcc(t)
	cases := []struct{ resource, identity, want string }{
		{`resource "gpucluster_rack" "x" {
  name     = "r01"
  row      = 1
  position = 1
}`, `{ name = "r 01" }`, `identity.name: "r 01" holds a space`},
		{`resource "gpucluster_hca" "x" {
  node      = "gpu001"
  device    = "mlx5_0"
  port_guid = "0x0002c90300000101"
}`, `{ node = "gpu001", device = "mlx5 0" }`, `identity.device: "mlx5 0" holds a space`},
		{`resource "gpucluster_cable" "x" {
  a = { device = "leaf01", port = 1 }
  b = { device = "leaf02", port = 2 }
}`, `{ label = "leaf01:1 - leaf01:2" }`, `identity.label: "leaf01:1 - leaf01:2" is not a cable label: no "<->" between the ends`},
	}
	var steps []resource.TestStep
	for _, c := range cases {
		typ := strings.Fields(c.resource)[1]
		steps = append(steps, resource.TestStep{
			Config:      c.resource + "\nimport {\n  to       = " + strings.Trim(typ, `"`) + ".x\n  identity = " + c.identity + "\n}\n",
			PlanOnly:    true,
			ExpectError: re(c.want),
		})
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: testProviders,
		Steps:                    steps,
	})
}

// TestAccIdentityFromFloor: with the provider's floor, an import by identity fills the switch and
// the HCA from what discovery saw (the spine's GUID comes from the floor's node name map, the
// HCA's port GUID from its port line), so a configuration that says the same plans the import and
// nothing else; without the floor, the same import plans the GUIDs as changes (the control).
func TestAccIdentityFromFloor(t *testing.T) {
	requireAcc(t)
	floor, err := filepath.Abs("../examples/clusters/brownfield/floor")
	if err != nil {
		t.Fatal(err)
	}
	cfg := func(withFloor bool) string {
		p := ""
		if withFloor {
			p = fmt.Sprintf(`provider "gpucluster" {
  floor = {
    topology_file = %q
    node_name_map = %q
  }
}
`, filepath.Join(floor, "ibnetdiscover.out"), filepath.Join(floor, "node-name-map"))
		}
		return p + `
resource "gpucluster_switch" "s" {
  name = "ib-spine-01"
  guid = "0xb83fd203004b0100"
}
import {
  to       = gpucluster_switch.s
  identity = { name = "ib-spine-01" }
}
resource "gpucluster_hca" "h" {
  node      = "hgx-a001"
  device    = "mlx5_0"
  port_guid = "0xa088c20300000101"
}
import {
  to       = gpucluster_hca.h
  identity = { node = "hgx-a001", device = "mlx5_0" }
}
`
	}
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_12_0)},
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				// Not empty: an import-only plan counts as empty here, so the GUIDs changed.
				Config:             cfg(false),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config: cfg(true),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpucluster_switch.s", plancheck.ResourceActionNoop),
					plancheck.ExpectResourceAction("gpucluster_hca.h", plancheck.ResourceActionNoop),
					importChanges{addr: "gpucluster_switch.s"}, importChanges{addr: "gpucluster_hca.h"},
				}},
			},
		},
	})
}
