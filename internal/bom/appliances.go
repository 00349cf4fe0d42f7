package bom

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// UncountedAppliances says which of a generated design's appliance links (UFM in reserved SU
// slots: RA-11333-001 Table 8 counts their 4 transceivers) a bill of materials leaves out
// because they are not among its external links; "" when none is. The links are not devices of
// the graph (doc.go), so without this a BOM built from the design alone is short by their
// cables and modules and says nothing.
func UncountedAppliances(d *topogen.Design, ext []ExternalLink) string {
	if d == nil || len(d.ApplianceList) == 0 {
		return ""
	}
	given := make(map[string]bool, len(ext))
	for _, e := range ext {
		given[e.Label] = true
		// An external link may be keyed by its switch end instead of the appliance's.
		given[fmt.Sprintf("%s:%d", e.Switch, e.SwitchPort)] = true
	}
	var missing []string
	appliances := map[string]bool{}
	for _, a := range d.ApplianceList {
		if given[a.Key] || given[fmt.Sprintf("%s:%d", a.Leaf, a.LeafPort)] {
			continue
		}
		missing = append(missing, fmt.Sprintf("%s - %s:%d", a.Key, a.Leaf, a.LeafPort))
		appliances[a.Appliance] = true
	}
	if len(missing) == 0 {
		return ""
	}
	names := make([]string, 0, len(appliances))
	for n := range appliances {
		names = append(names, n)
	}
	sort.Strings(names)
	shown := missing
	if len(shown) > 5 {
		shown = append(shown[:5:5], fmt.Sprintf("and %d more", len(missing)-5))
	}
	return fmt.Sprintf("the design cables %s to %s (%s) in reserved node slots, and this bill of materials does not count "+
		"their cables and transceivers: give them as external_links = values(data.gpucluster_topology.<name>.appliance_links) "+
		"to count them",
		plural(len(missing), "appliance link", "appliance links"), strings.Join(names, ", "), strings.Join(shown, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%s %s", Count(n), many)
}
