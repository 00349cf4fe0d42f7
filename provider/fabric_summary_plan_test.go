package provider

import (
	"regexp"
	"strings"
	"testing"
)

// TestAccFabricSummaryLeadsPerItemPlan runs the real terraform on the superpod example's pattern
// (per-item gpucluster_node and gpucluster_hca from the topology's maps, and a fabric of the
// design), applied at 4 nodes and planned at 8, and reads the human plan as a user does: the
// fabric's `summary` says where the plan summary is before the first item's diff, its totals
// change from the applied to the planned counts, and the warning it names is there, after the
// items. Issue 28 item 3: the per-item pattern buries the summary under the items' diffs.
func TestAccFabricSummaryLeadsPerItemPlan(t *testing.T) {
	c := newTerraformCLI(t)
	dir := writeConfig(t, `
variable "nodes" {
  type = number
}

data "gpucluster_topology" "pod" {
  kind       = "fat-tree"
  node_count = var.nodes
  items      = ["nodes", "hcas"]
}

resource "gpucluster_node" "all" {
  for_each   = data.gpucluster_topology.pod.nodes
  name       = each.value.name
  rack       = each.value.rack
  position_u = each.value.position_u
}

resource "gpucluster_hca" "all" {
  for_each  = data.gpucluster_topology.pod.hcas
  node      = gpucluster_node.all[each.value.node].name
  device    = each.value.device
  port_guid = each.value.port_guid
  rail      = each.value.rail
}

resource "gpucluster_fabric" "pod" {
  name   = "pod"
  design = data.gpucluster_topology.pod.design
}
`)
	c.run(dir, "apply", "-auto-approve", "-no-color", "-var", "nodes=4")
	out := c.run(dir, "plan", "-no-color", "-var", "nodes=8")
	lines := strings.Split(out, "\n")
	find := func(re string) int {
		r := regexp.MustCompile(re)
		for i, l := range lines {
			if r.MatchString(l) {
				return i
			}
		}
		t.Fatalf("the plan has no line matching %s:\n%s", re, out)
		return -1
	}
	pointer := find(`^\s+What this plan changes, per tier, and what to buy: the warning "Fabric plan summary \(pod\)" after the plan\.$`)
	fabricDiff := find(`^  # gpucluster_fabric\.pod will be updated in-place$`)
	firstItem := find(`^  # gpucluster_(hca|node)\.all\[`)
	warning := find(`^Warning: Fabric plan summary \(pod\)$`)
	lastItem := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "  # gpucluster_hca.all[") || strings.HasPrefix(l, "  # gpucluster_node.all[") {
			lastItem = i
		}
	}
	if fabricDiff >= pointer || pointer >= firstItem || lastItem >= warning {
		t.Errorf("plan lines (0-based): fabric diff %d, summary pointer %d, first item diff %d, last item diff %d, summary warning %d; "+
			"want the pointer inside the fabric's diff, before the items, and the warning after them:\n%s", fabricDiff, pointer, firstItem, lastItem, warning, out)
	}
	// The totals: 4 nodes of 8 HCAs (DGX H100), one leaf (64 ports hold the 64 HCAs of 8
	// nodes), one node-leaf link per HCA; grown to 8 nodes, on the same leaf.
	for _, want := range []string{
		"- Devices: 4 node, 32 hca, 1 leaf\n", "+ Devices: 8 node, 64 hca, 1 leaf\n",
		"- Links: 32 node-leaf\n", "+ Links: 64 node-leaf\n",
		"\nDevices: +4 node, +32 hca\n",
	} {
		if i := strings.Index(out, want); i < 0 {
			t.Errorf("the plan lacks %q:\n%s", want, out)
		}
	}
	// Planned again after the apply of the growth, nothing changes: the totals are no delta.
	c.run(dir, "apply", "-auto-approve", "-no-color", "-var", "nodes=8")
	if again := c.run(dir, "plan", "-no-color", "-detailed-exitcode", "-var", "nodes=8"); !strings.Contains(again, "No changes.") {
		t.Errorf("the plan after the apply shows changes:\n%s", again)
	}
}
