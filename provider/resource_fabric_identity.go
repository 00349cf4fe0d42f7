package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// gpucluster_fabric's identity and import. They wrap the fabric resource rather than live in
// resource_fabric.go, so the fabric's own file keeps its plan and push logic and needs one hook:
// newFabricResource returns withFabricIdentity(&fabricResource{}).
//
// The identity is the fabric's name. An import (by identity, or by ID: the name) records the name
// alone: the first apply records the fabric's inputs from the configuration and pushes its
// OpenSM files, which leaves hosts that already have them alone, and later refreshes read the
// files back as they do for a fabric created here.

var (
	_ resource.ResourceWithConfigure   = fabricWithIdentity{}
	_ resource.ResourceWithModifyPlan  = fabricWithIdentity{}
	_ resource.ResourceWithIdentity    = fabricWithIdentity{}
	_ resource.ResourceWithImportState = fabricWithIdentity{}
)

// fabricWithIdentity is the fabric resource with its identity.
type fabricWithIdentity struct{ *fabricResource }

func withFabricIdentity(r *fabricResource) resource.Resource { return fabricWithIdentity{r} }

func (r fabricWithIdentity) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = nameIdentitySchema("fabric")
}

func (r fabricWithIdentity) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	r.fabricResource.Create(ctx, req, resp)
	setFabricIdentity(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

func (r fabricWithIdentity) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	r.fabricResource.Read(ctx, req, resp)
	setFabricIdentity(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

func (r fabricWithIdentity) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	r.fabricResource.Update(ctx, req, resp)
	setFabricIdentity(ctx, resp.State, resp.Identity, &resp.Diagnostics)
}

// setFabricIdentity sets the identity from the name the state records, unless the operation
// failed (it then records no new state, so no identity either).
func setFabricIdentity(ctx context.Context, state tfsdk.State, id *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if diags.HasError() || state.Raw.IsNull() {
		return
	}
	var name types.String
	diags.Append(state.GetAttribute(ctx, path.Root("name"), &name)...)
	setIdentity(ctx, id, nameIdentity{name}, diags)
}

// ImportState takes the fabric's name, as an ID or as the identity `{ name }`.
func (r fabricWithIdentity) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var name string
	if importByIdentity(req) {
		name = importName(ctx, req, fabric.CheckName, &resp.Diagnostics)
	} else if msg := fabric.CheckName(req.ID); msg != "" {
		resp.Diagnostics.AddError("Invalid import ID", "a fabric is imported by its name: "+msg)
	} else {
		name = req.ID
	}
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), name)...)
	// The schema's default, as a fabric created here records it.
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("transport"), policy.TransportInfiniBand)...)
}
