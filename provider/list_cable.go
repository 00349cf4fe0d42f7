package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
)

// newCableList lists the floor's cables by label, ends in the order as_built gives them (the
// lower-tier end first, the key of as_built's cables) (list_shared.go).
func newCableList() list.ListResource {
	return &floorList{kind: "cable", what: "cable", items: func(_ context.Context, _ *Data, f *asbuilt.Floor) []listItem {
		out := make([]listItem, 0, len(f.Spec.Cables))
		for i := range f.Spec.Cables {
			m := floorCable(&f.Spec.Cables[i])
			out = append(out, listItem{name: m.Label.ValueString(), identity: cableIdentity{m.Label}, model: m})
		}
		return out
	}}
}
