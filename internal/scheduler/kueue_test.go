package scheduler

import (
	"regexp"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/yaml"
)

// nodeLabelPattern is the kubebuilder validation of TopologyLevel.nodeLabel in Kueue's API
// (apis/kueue/v1beta2/topology_types.go), which the API server enforces through the CRD.
var nodeLabelPattern = regexp.MustCompile(`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$`)

// decodeTopology decodes strictly into Kueue's own type: an unknown or misspelt field is an error.
func decodeTopology(t *testing.T, text string) kueue.Topology {
	t.Helper()
	var obj kueue.Topology
	if err := yaml.UnmarshalStrict([]byte(text), &obj); err != nil {
		t.Fatalf("Kueue Topology does not decode strictly: %v\n%s", err, text)
	}
	return obj
}

// The CRD's own rules on spec.levels (topology_types.go markers): 1 to 16 levels, unique, the
// hostname label only as the last one, each nodeLabel matching the pattern.
func checkLevels(t *testing.T, obj kueue.Topology) {
	t.Helper()
	lv := obj.Spec.Levels
	if len(lv) < 1 || len(lv) > 16 {
		t.Errorf("%d levels, Kueue takes 1 to 16", len(lv))
	}
	seen := map[string]bool{}
	for i, l := range lv {
		if seen[l.NodeLabel] {
			t.Errorf("level %q twice", l.NodeLabel)
		}
		seen[l.NodeLabel] = true
		if !nodeLabelPattern.MatchString(l.NodeLabel) || len(l.NodeLabel) > 316 {
			t.Errorf("nodeLabel %q fails Kueue's pattern", l.NodeLabel)
		}
		if l.NodeLabel == HostnameLabel && i != len(lv)-1 {
			t.Errorf("kubernetes.io/hostname at level %d of %d; Kueue allows it only last", i, len(lv))
		}
	}
}

func TestKueueTopologyDecodesStrictly(t *testing.T) {
	for _, f := range fabrics {
		t.Run(f.name, func(t *testing.T) {
			d, g := generate(t, f.p)
			top := mustBuild(t, g)
			obj := decodeTopology(t, top.KueueTopology())
			if obj.APIVersion != "kueue.x-k8s.io/v1beta2" || obj.Kind != "Topology" || obj.Name != "gpucluster" {
				t.Errorf("object %s %s %q", obj.APIVersion, obj.Kind, obj.Name)
			}
			checkLevels(t, obj)
			// Levels: the top tier first, tier-0 (leaf or SU) next to last, hostname last.
			var want []string
			for k := d.Tiers - 1; k >= 0; k-- {
				want = append(want, "fabric.topograph.run/tier-"+string(rune('0'+k)))
			}
			want = append(want, "kubernetes.io/hostname")
			var got []string
			for _, l := range obj.Spec.Levels {
				got = append(got, l.NodeLabel)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("levels %v, want %v", got, want)
			}
		})
	}
	// The decoder is strict: a misspelt field fails (so the test above could fail).
	var obj kueue.Topology
	if err := yaml.UnmarshalStrict([]byte("apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nspec:\n  level:\n  - nodeLabel: a\n"), &obj); err == nil {
		t.Error("strict decoding accepted spec.level")
	}
}

// Node labels: valid Kubernetes label keys and values (apimachinery's own validation), and nested
// domains as Kueue requires: nodes sharing a tier-k value share every higher tier's value.
func TestNodeLabels(t *testing.T) {
	for _, f := range fabrics {
		t.Run(f.name, func(t *testing.T) {
			d, g := generate(t, f.p)
			top := mustBuild(t, g)
			if err := top.CheckLabels(); err != nil {
				t.Fatal(err)
			}
			labels := top.NodeLabels()
			if len(labels) != len(d.Nodes) {
				t.Errorf("labels for %d nodes, the design has %d", len(labels), len(d.Nodes))
			}
			keys := top.LabelKeys()
			parentOf := make([]map[string]string, len(keys))
			for k := range parentOf {
				parentOf[k] = map[string]string{}
			}
			for nd, m := range labels {
				if len(m) != len(keys) {
					t.Errorf("%s has %d labels, want %d", nd, len(m), len(keys))
				}
				for k, key := range keys {
					if errs := validation.IsQualifiedName(key); len(errs) > 0 {
						t.Errorf("label key %q: %v", key, errs)
					}
					v := m[key]
					if errs := validation.IsValidLabelValue(v); len(errs) > 0 || v == "" {
						t.Errorf("%s: %s=%q: %v", nd, key, v, errs)
					}
					if k+1 < len(keys) {
						up := m[keys[k+1]]
						if prev, ok := parentOf[k][v]; ok && prev != up {
							t.Errorf("tier-%d domain %s lies in both %s and %s at tier %d", k, v, prev, up, k+1)
						}
						parentOf[k][v] = up
					}
				}
			}
			switch f.name {
			case "superpod-4su":
				if m := labels["gpu001"]; m["fabric.topograph.run/tier-0"] != "su01" || m["fabric.topograph.run/tier-1"] != "spines" {
					t.Errorf("gpu001 labels %v, want tier-0 su01 and tier-1 the spine domain", m)
				}
			case "fat-tree-3tier":
				// Al-Fares pods: the tier-1 domain of a node is its pod, and there are two.
				pods := map[string]bool{}
				for _, m := range labels {
					pods[m["fabric.topograph.run/tier-1"]] = true
				}
				if len(pods) != 2 || !pods["pod01"] || !pods["pod02"] {
					t.Errorf("tier-1 domains %v, want pod01 and pod02", pods)
				}
			}
		})
	}
}

func TestLabelKeysOverride(t *testing.T) {
	_, g := generate(t, fabrics[2].p)
	top, err := Build(g, Options{Groups: g.Spec.Groups, LabelKeys: []string{"example.com/su", "example.com/spine"}, TopologyName: "pod", NoHostnameLevel: true})
	if err != nil {
		t.Fatal(err)
	}
	obj := decodeTopology(t, top.KueueTopology())
	if len(obj.Spec.Levels) != 2 || obj.Spec.Levels[0].NodeLabel != "example.com/spine" || obj.Spec.Levels[1].NodeLabel != "example.com/su" || obj.Name != "pod" {
		t.Errorf("levels %+v name %q", obj.Spec.Levels, obj.Name)
	}
	if top.NodeLabels()["gpu127"]["example.com/su"] != "su04" {
		t.Errorf("gpu127 labels %v", top.NodeLabels()["gpu127"])
	}
	if r := CheckLabelKey("Example.com/su"); r == "" {
		t.Error("upper-case prefix accepted")
	}
	if r := CheckLabelKey("example.com/-su"); r == "" {
		t.Error("name starting with '-' accepted")
	}
}
