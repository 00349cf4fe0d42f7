package provider

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// nodeSchemaAttributes is how many attributes gpucluster_node has, as the provider serves its
// schema to Terraform (not as powerNodeOf lists them).
func nodeSchemaAttributes(t *testing.T) int { return len(servedAttributes(t, "gpucluster_node")) }

// servedAttributes names the attributes of a resource as the provider serves its schema to
// Terraform (not as instanceRef lists them).
func servedAttributes(t *testing.T, resourceType string) []string {
	t.Helper()
	fw := providerserver.NewProtocol6(New("test")())()
	resp, err := fw.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range resp.ResourceSchemas[resourceType].Block.Attributes {
		names = append(names, a.Name)
	}
	return names
}

// TestAccActionNodePowerNamesItsBMC: an action names what it touches (issue 32: node = "gpu999"
// with gpu001's bmc powered gpu001 and logged "node gpu999: already on"). The action takes the
// node itself and powers its own BMC, so the case cannot be written any more: through the real
// Terraform, with gpucluster_node gpu001 on the Redfish rig, the old form (a name beside a bmc),
// an object written in the configuration under another name, and a bmc beside the node are each
// refused at plan on their attribute with what to write, before the BMC is asked anything (the
// rig records no reset); `node = gpucluster_node.n` runs once, on gpu001's BMC.
func TestAccActionNodePowerNamesItsBMC(t *testing.T) {
	requireAcc(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{RestartTime: 100 * 1e6})
	rig.SetPowerOutOfBand("On")
	config := func(body, input string) string {
		return rfNode(rig, "") + fmt.Sprintf(`
action "gpucluster_node_power" "p" {
  config {
%s
    power = "force_restart"
  }
}

resource "terraform_data" "maintenance" {
  input = [gpucluster_node.n.id, %q]
  lifecycle {
    action_trigger {
      events  = [after_create, after_update]
      actions = [action.gpucluster_node_power.p]
    }
  }
}
`, body, input)
	}
	noReset := func() {
		if got := rig.Resets(); len(got) != 0 {
			t.Errorf("a refused action reached the BMC: %v", got)
		}
	}
	others := nodeSchemaAttributes(t) - 2 // all but name and bmc
	resource.Test(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: config(`    node = "gpu999"
    bmc  = gpucluster_node.n.bmc`, "window-1"),
				ExpectError: regexp.MustCompile(`(?s)` + re(`node is the gpucluster_node itself, not its name`).String() +
					`.*action\.gpucluster_node_power\.p.*line \d+.*node = "gpu999".*` +
					re(`write node = gpucluster_node.<resource> for the node "gpu999" (e.g. gpucluster_node.gpu999`).String() + `.*` +
					re("and remove bmc").String()),
			},
			{
				PreConfig: noReset,
				Config:    config(`    node = { name = "gpu999", bmc = gpucluster_node.n.bmc }`, "window-1"),
				ExpectError: regexp.MustCompile(`(?s)` + re(`node is not a gpucluster_node`).String() + `.*` +
					re(fmt.Sprintf(`node is an object without %d of gpucluster_node's attributes`, others)).String()),
			},
			{
				PreConfig: noReset,
				Config: config(`    node = gpucluster_node.n
    bmc  = gpucluster_node.n.bmc`, "window-1"),
				ExpectError: regexp.MustCompile(`(?s)` + re(`bmc is no longer taken: the BMC is the node's own`).String() +
					`.*bmc  = gpucluster_node\.n\.bmc.*Remove bmc`),
			},
			{
				PreConfig: noReset,
				Config:    config(`    node = gpucluster_node.n`, "window-2"),
				Check: rigCheck(func() error {
					if got := rig.Resets(); len(got) != 1 || got[0] != "ComputerSystem.Reset ForceRestart" {
						return fmt.Errorf("on the node itself the action did not run once: %v", got)
					}
					return nil
				}),
			},
		},
	})
}

// TestPowerNodeOf: what gpucluster_node_power takes as its node, value by value, against the
// node's attributes as the provider serves them: one gpucluster_node (every attribute) is taken
// with its name and bmc; a whole for_each (an object keyed by instance), a count (a tuple), a
// node without bmc, a name and an object with a subset of the attributes are refused once each on
// `node`; a node not known yet is neither taken nor refused.
func TestPowerNodeOf(t *testing.T) {
	ctx := context.Background()
	names := nodeAttributeNames(ctx)
	if len(names) != nodeSchemaAttributes(t) {
		t.Fatalf("nodeAttributeNames has %d names, the schema %d attributes", len(names), nodeSchemaAttributes(t))
	}
	mkBMC := func() types.Object {
		vals := map[string]attr.Value{}
		for k, ty := range nodeBMCAttrTypes {
			v, err := ty.ValueFromTerraform(ctx, tftypes.NewValue(ty.TerraformType(ctx), nil))
			if err != nil {
				t.Fatal(err)
			}
			vals[k] = v
		}
		vals["endpoint"] = types.StringValue("10.0.0.11")
		return types.ObjectValueMust(nodeBMCAttrTypes, vals)
	}
	// node builds an object with the given attributes of gpucluster_node: name and bmc set, the
	// others null strings (their types do not matter to the check).
	node := func(attrs []string, bmcObj types.Object) types.Dynamic {
		tys, vals := map[string]attr.Type{}, map[string]attr.Value{}
		for _, k := range attrs {
			switch k {
			case "name":
				tys[k], vals[k] = types.StringType, types.StringValue("gpu001")
			case "bmc":
				tys[k], vals[k] = bmcObj.Type(ctx), bmcObj
			default:
				tys[k], vals[k] = types.StringType, types.StringNull()
			}
		}
		return types.DynamicValue(types.ObjectValueMust(tys, vals))
	}
	full := node(names, mkBMC())
	name, b, d := powerNodeOf(ctx, full, types.DynamicNull())
	if ep, _ := b.Attributes()["endpoint"].(types.String); d.HasError() || name != "gpu001" || ep.ValueString() != "10.0.0.11" {
		t.Fatalf("the node itself: %q %v %v", name, b, d)
	}
	fe := types.DynamicValue(types.ObjectValueMust(map[string]attr.Type{"gpu001": full.UnderlyingValue().Type(ctx)},
		map[string]attr.Value{"gpu001": full.UnderlyingValue()}))
	count := types.DynamicValue(types.TupleValueMust([]attr.Type{full.UnderlyingValue().Type(ctx)}, []attr.Value{full.UnderlyingValue()}))
	for _, c := range []struct {
		what string
		node types.Dynamic
		bmc  types.Dynamic
		want string
	}{
		{"a name", types.DynamicValue(types.StringValue("gpu999")), types.DynamicNull(), "not its name"},
		{"a name beside a bmc", types.DynamicValue(types.StringValue("gpu999")), types.DynamicValue(mkBMC()), "not its name"},
		{"the node beside a bmc", full, types.DynamicValue(mkBMC()), "bmc is no longer taken"},
		{"name and bmc only", node([]string{"name", "bmc"}, mkBMC()), types.DynamicNull(), fmt.Sprintf("without %d of", len(names)-2)},
		{"a whole for_each", fe, types.DynamicNull(), fmt.Sprintf("without %d of", len(names))},
		{"a count", count, types.DynamicNull(), "node is a Tuple"},
		{"a node without bmc", node(names, types.ObjectNull(nodeBMCAttrTypes)), types.DynamicNull(), "has no bmc"},
	} {
		_, _, d := powerNodeOf(ctx, c.node, c.bmc)
		if d.ErrorsCount() != 1 || !strings.Contains(d.Errors()[0].Detail()+d.Errors()[0].Summary(), c.want) {
			t.Errorf("%s: %d errors %v, want one saying %q", c.what, d.ErrorsCount(), d, c.want)
		}
	}
	if name, _, d := powerNodeOf(ctx, types.DynamicUnknown(), types.DynamicNull()); name != "" || d.HasError() {
		t.Errorf("an unknown node: %q %v", name, d)
	}
}
