package scheduler

import "github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"

// DesignGroups maps every switch of a generated design to its group's name (su01, pod01,
// group01, ...), the Options.Groups a generated fabric should pass.
func DesignGroups(d *topogen.Design) map[string]string {
	if d == nil {
		return nil
	}
	out := map[string]string{}
	for _, g := range d.Groups {
		for name := range g.Switches {
			out[name] = g.Name
		}
	}
	return out
}
