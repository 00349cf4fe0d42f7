package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
)

// newNodeList lists the floor's nodes by name, each with the devices of its HCAs
// (list_shared.go).
func newNodeList() list.ListResource {
	return &floorList{kind: "node", what: "node", items: func(ctx context.Context, data *Data, f *asbuilt.Floor) []listItem {
		out := make([]listItem, 0, len(f.Spec.Nodes))
		for i := range f.Spec.Nodes {
			m := floorNode(ctx, data, f.Spec, &f.Spec.Nodes[i])
			out = append(out, listItem{name: m.Name.ValueString(), identity: nameIdentity{m.Name}, model: m})
		}
		return out
	}}
}
