package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// TestActionSchemas: the provider serves the three actions, each taking its objects in exactly
// the shape of the resource attribute it mirrors (so `subnet_manager =
// gpucluster_fabric.x.subnet_manager` converts without loss), and the secrets in them say that an
// action cannot hide them; gpucluster_node_power takes the node itself, gpucluster_hca_reset the HCA.
func TestActionSchemas(t *testing.T) {
	fw := providerserver.NewProtocol6(New("test")())()
	resp, err := fw.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("%s: %s", d.Summary, d.Detail)
	}
	attr := func(s *tfprotov6.Schema, name string) *tfprotov6.SchemaAttribute {
		for _, a := range s.Block.Attributes {
			if a.Name == name {
				return a
			}
		}
		t.Fatalf("no attribute %s", name)
		return nil
	}
	mirror := []struct{ action, attr, resource, secret string }{
		{"gpucluster_opensm_sweep", "subnet_manager", "gpucluster_fabric", "ssh_private_key"},
	}
	// gpucluster_node_power takes the node itself (any value, checked by powerNodeOf): its bmc
	// is the node's, not an object of the same shape given beside it.
	if np := attr(resp.ActionSchemas["gpucluster_node_power"].Schema, "node"); !np.ValueType().Is(tftypes.DynamicPseudoType) || !np.Required {
		t.Errorf("gpucluster_node_power.node is %s (required %v), want a required dynamic value", np.ValueType(), np.Required)
	}
	// gpucluster_hca_reset takes the HCA itself (checked by hcaResetTargetOf), optional to
	// Terraform so that the old form gets one error saying what to write.
	if hr := attr(resp.ActionSchemas["gpucluster_hca_reset"].Schema, "hca"); !hr.ValueType().Is(tftypes.DynamicPseudoType) || !hr.Optional {
		t.Errorf("gpucluster_hca_reset.hca is %s (optional %v), want an optional dynamic value", hr.ValueType(), hr.Optional)
	}
	for _, m := range mirror {
		as, ok := resp.ActionSchemas[m.action]
		if !ok {
			t.Fatalf("the provider serves no %s", m.action)
		}
		a, r := attr(as.Schema, m.attr), attr(resp.ResourceSchemas[m.resource], m.attr)
		if !a.ValueType().Equal(r.ValueType()) {
			t.Errorf("%s.%s is %s, %s.%s is %s", m.action, m.attr, a.ValueType(), m.resource, m.attr, r.ValueType())
		}
		for _, na := range a.NestedType.Attributes {
			if na.Name == m.secret && !strings.Contains(na.Description, "An action cannot mark it sensitive") {
				t.Errorf("%s.%s.%s does not say it shows in the plan: %q", m.action, m.attr, m.secret, na.Description)
			}
		}
	}
}
