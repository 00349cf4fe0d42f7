package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/plan"
)

// rewireOverride swaps the leaf ports of gpu001's first two HCAs in examples/clusters/small: a
// two-cable rewire (leaf01:1 <-> leaf01:2), written as a Terraform override file so the example
// itself stays as it is.
const rewireOverride = `
resource "gpucluster_cable" "node" {
  a = {
    device = gpucluster_switch.leaf[each.value.leaf].name
    port   = lookup({ "gpu001/mlx5_0" = 2, "gpu001/mlx5_1" = 1 }, each.key, each.value.leaf_port)
  }
}
`

// TestAccFabricRewireSmall applies examples/clusters/small with the real terraform, rewires two
// cables and plans: the fabric's diff holds exactly those two cables, and its plan summary says
// 2 rewired and nothing added or removed.
func TestAccFabricRewireSmall(t *testing.T) {
	requireAcc(t)
	tf := newTerraformCLI(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(moduleRoot(), "examples", "clusters", "small"), dir)
	tf.run(dir, "apply", "-auto-approve", "-input=false")
	if out := tf.run(dir, "plan", "-input=false", "-detailed-exitcode", "-no-color"); !strings.Contains(out, "No changes") || strings.Contains(out, plan.SummaryTitle) {
		t.Fatalf("the applied example plans changes, or the fabric says something of a no-op plan:\n%s", out)
	}

	if err := os.WriteFile(filepath.Join(dir, "rewire_override.tf"), []byte(rewireOverride), 0o644); err != nil {
		t.Fatal(err)
	}
	stream := tf.run(dir, "plan", "-input=false", "-json", "-out=tfplan")
	summary := ""
	for _, line := range strings.Split(stream, "\n") {
		var msg struct {
			Type       string `json:"type"`
			Diagnostic struct {
				Severity, Summary, Detail string
			} `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Type == "diagnostic" && strings.HasPrefix(msg.Diagnostic.Summary, plan.SummaryTitle) {
			if summary != "" {
				t.Errorf("more than one plan summary")
			}
			summary = msg.Diagnostic.Detail
		}
	}
	for _, want := range []string{
		"Links node-leaf: 0 added, 0 removed, 2 rewired\n" +
			"  e.g. rewired gpu001/mlx5_0:1 leaf01:1 -> leaf01:2\n" +
			"  e.g. rewired gpu001/mlx5_1:1 leaf01:2 -> leaf01:1\n",
		"Policy: pass",
	} {
		if !strings.Contains(summary, want) {
			t.Errorf("plan summary lacks %q:\n%s", want, summary)
		}
	}
	t.Logf("plan summary:\n%s", summary)
	for _, not := range []string{"Devices:", "Buy:", "Free:", "leaf-spine"} {
		if strings.Contains(summary, not) {
			t.Errorf("plan summary of a rewire says %q:\n%s", not, summary)
		}
	}
	if n := strings.Count(summary, "\n") + 1; n > 5 {
		t.Errorf("plan summary of a two-cable rewire is %d lines:\n%s", n, summary)
	}

	var plan struct {
		ResourceChanges []struct {
			Address string
			Type    string
			Change  struct {
				Actions       []string
				Before, After map[string]any
			}
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(tf.run(dir, "show", "-json", "tfplan")), &plan); err != nil {
		t.Fatal(err)
	}
	var updated []string
	for _, rc := range plan.ResourceChanges {
		if reflect.DeepEqual(rc.Change.Actions, []string{"no-op"}) {
			continue
		}
		updated = append(updated, rc.Address)
		if rc.Type != "gpucluster_fabric" {
			continue
		}
		changed := changedElements(rc.Change.Before["cables"], rc.Change.After["cables"])
		if len(changed) != 2 {
			t.Errorf("the fabric's cables diff has %d changed elements, want the 2 rewired: %v", len(changed), changed)
		}
		for attr := range rc.Change.After {
			if attr != "cables" && attr != "opensm" && !reflect.DeepEqual(rc.Change.Before[attr], rc.Change.After[attr]) {
				t.Errorf("the rewire changes the fabric's %s", attr)
			}
		}
	}
	sort.Strings(updated)
	want := []string{`gpucluster_cable.node["gpu001/mlx5_0"]`, `gpucluster_cable.node["gpu001/mlx5_1"]`, "gpucluster_fabric.compute"}
	if !reflect.DeepEqual(updated, want) {
		t.Errorf("the plan changes %q, want %q", updated, want)
	}
}

// changedElements names the elements of a list or map value that differ between before and
// after (by index or key; added and removed ones too).
func changedElements(before, after any) []string {
	var out []string
	switch b := before.(type) {
	case map[string]any:
		a, _ := after.(map[string]any)
		for k, v := range a {
			if !reflect.DeepEqual(b[k], v) {
				out = append(out, k)
			}
		}
		for k := range b {
			if _, ok := a[k]; !ok {
				out = append(out, k)
			}
		}
	case []any:
		a, _ := after.([]any)
		for i := 0; i < max(len(a), len(b)); i++ {
			if i >= len(a) || i >= len(b) || !reflect.DeepEqual(a[i], b[i]) {
				out = append(out, fmt.Sprint(i))
			}
		}
	}
	sort.Strings(out)
	return out
}
