package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
)

// newSwitchList lists the floor's switches by name (list_shared.go).
func newSwitchList() list.ListResource {
	return &floorList{kind: "switch", what: "switch", items: func(_ context.Context, data *Data, f *asbuilt.Floor) []listItem {
		out := make([]listItem, 0, len(f.Spec.Switches))
		for i := range f.Spec.Switches {
			m := floorSwitch(data, &f.Spec.Switches[i])
			out = append(out, listItem{name: m.Name.ValueString(), identity: nameIdentity{m.Name}, model: m})
		}
		return out
	}}
}
