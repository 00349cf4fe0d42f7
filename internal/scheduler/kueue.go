package scheduler

import (
	"fmt"
	"sort"
	"strings"
)

// TopographTierKey is the node label NVIDIA Topograph writes for fabric tier n, tier 0 being the
// switch closest to the node ("fabric.topograph.run/tier-N", Topograph v1.0 reference "Node
// Labels and Annotations", https://docs.nvidia.com/topograph/reference/node-labels-and-annotations).
func TopographTierKey(n int) string { return fmt.Sprintf("fabric.topograph.run/tier-%d", n) }

// HostnameLabel is the label Kueue recommends as the lowest topology level
// (kueue.x-k8s.io Topology: "the kubernetes.io/hostname label can only be used at the lowest
// level of topology").
const HostnameLabel = "kubernetes.io/hostname"

// KueueAPIVersion is the version Kueue stores Topology in (v0.15 and later: v1beta2 is the
// storage version, v1beta1 is deprecated).
const KueueAPIVersion = "kueue.x-k8s.io/v1beta2"

// LabelKeys returns the label key of each fabric tier, tier 0 first.
func (t *Topology) LabelKeys() []string {
	out := make([]string, t.Tiers)
	for k := range out {
		if k < len(t.opts.LabelKeys) && t.opts.LabelKeys[k] != "" {
			out[k] = t.opts.LabelKeys[k]
		} else {
			out[k] = TopographTierKey(k)
		}
	}
	return out
}

// NodeLabels returns, per node, the labels it must carry: one per fabric tier. The hostname
// label is left out: the kubelet sets it.
func (t *Topology) NodeLabels() map[string]map[string]string {
	keys := t.LabelKeys()
	out := make(map[string]map[string]string, len(t.Domains))
	for nd, ds := range t.Domains {
		m := make(map[string]string, len(ds))
		for k, v := range ds {
			m[keys[k]] = v
		}
		out[nd] = m
	}
	return out
}

// KueueTopology renders a Kueue Topology object as YAML. Kueue lists levels from the broadest
// down (the documented example: block, rack, hostname), so the highest fabric tier comes first
// and kubernetes.io/hostname last.
func (t *Topology) KueueTopology() string {
	var b strings.Builder
	b.WriteString("apiVersion: " + KueueAPIVersion + "\n")
	b.WriteString("kind: Topology\n")
	b.WriteString("metadata:\n")
	b.WriteString("  name: " + yamlString(t.opts.TopologyName) + "\n")
	b.WriteString("spec:\n")
	b.WriteString("  levels:\n")
	keys := t.LabelKeys()
	for k := len(keys) - 1; k >= 0; k-- {
		b.WriteString("  - nodeLabel: " + yamlString(keys[k]) + "\n")
	}
	if !t.opts.NoHostnameLevel {
		b.WriteString("  - nodeLabel: " + HostnameLabel + "\n")
	}
	return b.String()
}

// yamlString quotes s as a YAML double-quoted scalar when a plain one could be misread.
func yamlString(s string) string {
	plain := s != ""
	for _, r := range s {
		if ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./", r); !ok {
			plain = false
		}
	}
	if plain {
		switch strings.ToLower(s) {
		case "true", "false", "yes", "no", "on", "off", "null", "~":
			plain = false
		}
		if s[0] >= '0' && s[0] <= '9' || s[0] == '-' || s[0] == '.' {
			plain = false
		}
	}
	if plain {
		return s
	}
	return fmt.Sprintf("%q", s)
}

// CheckLabelKey says why k is not a valid Kubernetes label key (an optional DNS-subdomain
// prefix of at most 253 characters and a "/", then a name of at most 63 characters of
// [A-Za-z0-9._-] beginning and ending alphanumeric; Kubernetes "Labels and Selectors"), or "".
func CheckLabelKey(k string) string {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		name, prefix = prefix, ""
	}
	if hasPrefix {
		if prefix == "" || len(prefix) > 253 {
			return "the prefix before '/' must be a DNS subdomain of 1 to 253 characters"
		}
		for _, part := range strings.Split(prefix, ".") {
			if part == "" || len(part) > 63 || !alnum(part[0]) || !alnum(part[len(part)-1]) || strings.Trim(strings.ToLower(part), "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || strings.ToLower(part) != part {
				return "the prefix before '/' must be lower-case DNS labels (a-z, 0-9, '-') joined by dots"
			}
		}
	}
	if r := checkLabelValue(name); r != "" || name == "" {
		return "the name after the prefix must be 1 to 63 characters of A-Z, a-z, 0-9, '-', '_', '.', beginning and ending with a letter or digit"
	}
	return ""
}

func alnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

// checkLabelValue says why v is not a valid label value, or "".
func checkLabelValue(v string) string {
	if v == "" {
		return ""
	}
	if len(v) > 63 {
		return "longer than 63 characters"
	}
	if !alnum(v[0]) || !alnum(v[len(v)-1]) {
		return "does not begin and end with a letter or digit"
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Sprintf("contains %q", c)
		}
	}
	return ""
}

// CheckLabels checks every label value Build produced; names that Slurm accepts may still not be
// label values (a '/' or '+').
func (t *Topology) CheckLabels() error {
	nodes := make([]string, 0, len(t.Domains))
	for nd := range t.Domains {
		nodes = append(nodes, nd)
	}
	sort.Strings(nodes)
	for _, nd := range nodes {
		for _, v := range t.Domains[nd] {
			if r := checkLabelValue(v); r != "" {
				return fmt.Errorf("node %s: label value %q is not a Kubernetes label value: %s", nd, v, r)
			}
		}
	}
	for _, k := range t.LabelKeys() {
		if r := CheckLabelKey(k); r != "" {
			return fmt.Errorf("label key %q: %s", k, r)
		}
	}
	return nil
}
