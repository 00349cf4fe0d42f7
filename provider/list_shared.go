package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
)

// The list resources (Terraform 1.14+, `terraform query`): the switches, nodes, HCAs and cables of
// the fabric on the floor (floor.go), each as its identity and, for -generate-config-out, the
// resource object an import of that identity gives (floorSwitch and the rest), so the generated
// configuration plans with no change when the provider's `floor` is the same floor.

// floorList lists the floor's items of one kind.
type floorList struct {
	kind  string // the type's suffix: "switch"
	what  string // for the docs: "switch"
	items func(ctx context.Context, data *Data, f *asbuilt.Floor) []listItem
	data  *Data
}

// listItem is one result: the name shown, the identity and the resource model.
type listItem struct {
	name     string
	identity any
	model    any
}

var (
	_ list.ListResourceWithConfigure = (*floorList)(nil)
)

func (l *floorList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_" + l.kind
}

func (l *floorList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	l.data = providerData(req.ProviderData, &resp.Diagnostics)
}

func (l *floorList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = floorListSchema(l.what)
}

func (l *floorList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var m floorModel
	var diags diag.Diagnostics
	diags.Append(req.Config.Get(ctx, &m)...)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	var f *asbuilt.Floor
	var d diag.Diagnostics
	switch {
	case m.set():
		f, d = readFloor(ctx, l.data, m, path.Empty())
	case l.data != nil && l.data.floor != nil:
		f, d = l.data.floor.get(ctx, l.data)
	default:
		m.check(path.Empty(), &d)
	}
	diags.Append(d...)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	items := l.items(ctx, l.data, f)
	stream.Results = func(push func(list.ListResult) bool) {
		for i, it := range items {
			if req.Limit > 0 && int64(i) >= req.Limit {
				return
			}
			r := req.NewListResult(ctx)
			r.DisplayName = it.name
			if i == 0 {
				r.Diagnostics.Append(diags...) // the reader's warnings, once
			}
			r.Diagnostics.Append(r.Identity.Set(ctx, it.identity)...)
			if req.IncludeResource {
				r.Diagnostics.Append(r.Resource.Set(ctx, it.model)...)
			}
			if !push(r) {
				return
			}
		}
	}
}
