package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
)

// newHCAList lists the floor's HCAs by node and device, each with its port GUID
// (list_shared.go).
func newHCAList() list.ListResource {
	return &floorList{kind: "hca", what: "HCA", items: func(_ context.Context, _ *Data, f *asbuilt.Floor) []listItem {
		out := make([]listItem, 0, len(f.Spec.HCAs))
		for i := range f.Spec.HCAs {
			m := floorHCA(&f.Spec.HCAs[i])
			out = append(out, listItem{name: m.Name.ValueString(), identity: hcaIdentity{m.Node, m.Device}, model: m})
		}
		return out
	}}
}
