package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
)

// Imports by identity of the inventory types whose import ID carries their attributes. The
// identity names the item. An item on the provider's `floor` starts from what the floor says of
// it, exactly what the list resources return for it (floor.go), so a configuration that
// `terraform query -generate-config-out` wrote plans with no change; any other starts from the
// identity and the defaults the schema would give, and the first apply records the rest
// (identity.go).

// hcaIdentity is the identity of an HCA: the node it sits in and its RDMA device there.
type hcaIdentity struct {
	Node   types.String `tfsdk:"node"`
	Device types.String `tfsdk:"device"`
}

// cableIdentity is the identity of a cable: its label, which holds both ends.
type cableIdentity struct {
	Label types.String `tfsdk:"label"`
}

func (r *switchResource) importIdentity(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name := importName(ctx, req, fabric.CheckName, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if f := floorOf(ctx, r.data, &resp.Diagnostics); f != nil {
		if s := f.Spec.SwitchNamed(name); s != nil {
			m := floorSwitch(r.data, s)
			resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
			return
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	n := types.StringValue(name)
	m := switchModel{ID: n, Name: n, Model: types.StringValue(defaultSwitchModel), Rack: types.StringNull(),
		PositionU: types.Int64Null(), Role: types.StringNull(), GUID: types.StringNull(), Group: types.StringNull()}
	cat := inventoryCatalog(r.data)
	sm, ok := cat.Switches[m.Model.ValueString()]
	if !ok {
		addUnknownModel(&resp.Diagnostics, path.Root("model"), "switch", m.Model.ValueString(), cat.SwitchNames())
		return
	}
	m.Ports = types.Int64Value(int64(sm.Ports))
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *nodeResource) importIdentity(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	name := importName(ctx, req, fabric.CheckName, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if f := floorOf(ctx, r.data, &resp.Diagnostics); f != nil {
		if nd := f.Spec.NodeNamed(name); nd != nil {
			m := floorNode(ctx, r.data, f.Spec, nd)
			resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
			return
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	n := types.StringValue(name)
	m := nodeModel{ID: n, Name: n, Model: types.StringValue(defaultNodeModel), Rack: types.StringNull(),
		PositionU: types.Int64Null(), SSHHost: types.StringNull()}
	nullNodeBMCFields(&m)
	cat := inventoryCatalog(r.data)
	nm, ok := cat.Nodes[m.Model.ValueString()]
	if !ok {
		addUnknownModel(&resp.Diagnostics, path.Root("model"), "node", m.Model.ValueString(), cat.NodeNames())
		return
	}
	m.ComputeHCAs = types.Int64Value(int64(nm.ComputeHCAs))
	m.HCADevices = defaultHCADevices(nm.ComputeHCAs)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *hcaResource) importIdentity(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	node := identityString(ctx, req, "node", fabric.CheckName, &resp.Diagnostics)
	device := identityString(ctx, req, "device", fabric.CheckName, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	if f := floorOf(ctx, r.data, &resp.Diagnostics); f != nil {
		if h := f.Spec.HCAOn(node, device); h != nil {
			m := floorHCA(h)
			resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
			return
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	name := types.StringValue(fabric.HCAName(node, device))
	m := hcaModel{ID: name, Name: name, Node: types.StringValue(node), Device: types.StringValue(device),
		Model: types.StringValue(defaultHCAModel), PortGUID: types.StringNull(), Rail: types.Int64Null(), MSTDevice: types.StringNull()}
	nullHCAFirmwareFields(&m)
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}

func (r *cableResource) importIdentity(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	label := identityString(ctx, req, "label", nil, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	fa, fb, err := importid.CableIdentity(label)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import identity", "identity.label: "+err.Error())
		return
	}
	if f := floorOf(ctx, r.data, &resp.Diagnostics); f != nil {
		if c := f.Spec.CableLabelled(fabric.CableLabel(fa, fb)); c != nil {
			m := floorCable(c)
			resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
			return
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	m := importedCable(importid.Cable{A: fa, B: fb})
	resp.Diagnostics.Append(resp.State.Set(ctx, &m)...)
}
