package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bmc"
)

var _ resource.ResourceWithValidateConfig = (*nodeResource)(nil)

// ValidateConfig refuses at plan what the BMC would refuse at apply and that one attribute's
// validator cannot see alone: an account name too long for IPMI when IPMI may carry it (the name
// and bmc.protocols), and an endpoint whose port contradicts bmc.port (internal/bmc's rules).
func (r *nodeResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var b types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("bmc"), &b)...)
	if resp.Diagnostics.HasError() || b.IsNull() || b.IsUnknown() {
		return
	}
	var m nodeBMCModel
	if resp.Diagnostics.Append(b.As(ctx, &m, objectAsOptions)...); resp.Diagnostics.HasError() {
		return
	}
	if !m.Endpoint.IsUnknown() && !m.Port.IsUnknown() && !m.Endpoint.IsNull() && !m.Port.IsNull() {
		if msg := bmc.CheckEndpointPort(m.Endpoint.ValueString(), int(m.Port.ValueInt64())); msg != "" {
			addRuleError(&resp.Diagnostics, path.Root("bmc").AtName("port"), "BMC port given twice", msg)
		}
	}
	if m.Protocols.IsUnknown() {
		return
	}
	var protos []string
	if !m.Protocols.IsNull() {
		for _, v := range m.Protocols.Elements() {
			s, ok := v.(types.String)
			if !ok || s.IsUnknown() {
				return
			}
			protos = append(protos, s.ValueString())
		}
	}
	if !m.Username.IsNull() && !m.Username.IsUnknown() {
		if msg := bmc.CheckUserName(m.Username.ValueString(), protos); msg != "" {
			addRuleError(&resp.Diagnostics, path.Root("bmc").AtName("username"), "BMC user name too long for IPMI", msg)
		}
	}
	var users types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("bmc_users"), &users)...)
	if users.IsNull() || users.IsUnknown() {
		return
	}
	var long diag.Diagnostics // one per user, and the list has no bound: capped
	defer func() { resp.Diagnostics.Append(capDiagnostics(long)...) }()
	for i, u := range users.Elements() {
		o, ok := u.(types.Object)
		if !ok || o.IsNull() || o.IsUnknown() {
			continue
		}
		name, ok := o.Attributes()["name"].(types.String)
		if !ok || name.IsNull() || name.IsUnknown() {
			continue
		}
		if msg := bmc.CheckUserName(name.ValueString(), protos); msg != "" {
			addRuleError(&long, path.Root("bmc_users").AtListIndex(i).AtName("name"), "BMC user name too long for IPMI", msg)
		}
	}
}
