package plan

import (
	"fmt"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// Standing is the fabric as planned, in a few lines: where the plan summary is, then the devices
// by role, the links by tier (fabric.Compare from an empty fabric: the totals, counted as the
// summary counts its changes) and the policy verdict. The fabric's `summary` attribute holds it.
//
// Terraform prints a provider's warnings, the plan summary among them, after the whole plan; a
// plan of per-item nodes and HCAs puts thousands of lines of their diffs before it. Terraform
// renders the resource changes in address order, so a gpucluster_fabric's diff comes before
// those of gpucluster_hca and gpucluster_node, and a multi-line string attribute whose lines
// change is shown with all its lines. Standing's first line is therefore the first thing of the
// fabric's change a reader meets, and it says where the summary is; the lines after it are
// totals, not a change, so the state keeps no delta and Terraform's diff of them (-127 node,
// +255 node) is the change.
//
// title is the summary's warning title (SummaryTitle and the fabric's name).
func Standing(title string, next *Outcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "What this plan changes, per tier, and what to buy: the warning %q after the plan.\n", title)
	d := fabric.Compare(nil, next.Graph)
	if len(d.Devices) > 0 {
		parts := make([]string, 0, len(d.Devices))
		for _, c := range d.Devices {
			parts = append(parts, bom.Count(c.Added)+" "+c.Role)
		}
		b.WriteString("Devices: " + strings.Join(parts, ", ") + "\n")
	}
	if len(d.Links) > 0 {
		parts := make([]string, 0, len(d.Links))
		for _, t := range d.Links {
			parts = append(parts, bom.Count(t.Added)+" "+t.Tier)
		}
		b.WriteString("Links: " + strings.Join(parts, ", ") + "\n")
	}
	b.WriteString(Verdict(next.Violations, next.UnreadPolicyFiles) + "\n")
	return b.String()
}
