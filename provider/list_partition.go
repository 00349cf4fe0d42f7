package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	lschema "github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/ufm"
)

// partitionList lists the PKeys of the provider's UFM for `terraform query` (partition_ufm.go):
// each as its identity { name } and, for -generate-config-out, the gpucluster_partition an import
// of that identity gives, so the generated configuration plans with no change. The management
// PKey 0x7fff is not listed: the provider never creates nor removes it, and a fabric may not
// declare it.
type partitionList struct{ data *Data }

var _ list.ListResourceWithConfigure = (*partitionList)(nil)

func newPartitionList() list.ListResource { return &partitionList{} }

func (l *partitionList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_partition"
}

func (l *partitionList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (l *partitionList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = lschema.Schema{
		MarkdownDescription: "Every PKey of the provider's `ufm` (NVIDIA UFM, where it runs the subnet manager) but the management " +
			"PKey 0x7fff, as `gpucluster_partition`, for `terraform query` (Terraform 1.14 or later): with " +
			"`-generate-config-out`, a resource block and an `import` block with its identity for each, members by port GUID. " +
			"Each is named by UFM's partition name when that is a valid partition name no other PKey bears, else " +
			"`pkey_0x` and its P_Key (`pkey_0x0101`). Bring the imported partitions into the fabric's `partitions`: its " +
			"next apply owns them.",
	}
}

func (l *partitionList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	held, err := ufmHeld(ctx, l.data)
	if err != nil {
		var d diag.Diagnostics
		d.AddError("Cannot list UFM's PKeys", err.Error())
		stream.Results = list.ListResultsStreamDiagnostics(d)
		return
	}
	names := ufm.ImportNames(held)
	stream.Results = func(push func(list.ListResult) bool) {
		for i, p := range held {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			r := req.NewListResult(ctx)
			r.DisplayName = names[p.PKey] + " (P_Key " + ufm.PKeyString(p.PKey) + ")"
			m := ufmPartitionModel(names[p.PKey], p, &r.Diagnostics)
			r.Diagnostics.Append(r.Identity.Set(ctx, nameIdentity{m.Name})...)
			if req.IncludeResource && !r.Diagnostics.HasError() {
				r.Diagnostics.Append(r.Resource.Set(ctx, &m)...)
			}
			if !push(r) {
				return
			}
		}
	}
}
