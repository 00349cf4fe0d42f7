package provider

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAccCIPlanGate runs examples/ci/plan-gate.sh the way the workflow of examples/ci does, with
// the real terraform and the provider built from this module, on examples/ci/infra: first as a
// new fabric (no state), failing at 1.5:1 and passing, each with its whole purchase order; then
// applied at 2 nodes, a passing plan that grows it to 3 nodes and a failing one whose leaf is
// 1.5:1.
func TestAccCIPlanGate(t *testing.T) {
	requireAcc(t)
	tf := newTerraformCLI(t)
	dir := t.TempDir()
	copyDir(t, filepath.Join(moduleRoot(), "examples", "ci", "infra"), dir)
	if inventoryIsList() {
		b, _ := os.ReadFile(filepath.Join(dir, "main.tf"))
		s := string(b)
		i := strings.Index(s, `resource "gpucluster_fabric"`)
		s = s[:i] + regexp.MustCompile(`(?m)^(\s+(switches|nodes|hcas|cables)\s+=\s+)(.*)$`).ReplaceAllString(s[i:], "${1}values(${3})")
		if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script := filepath.Join(moduleRoot(), "examples", "ci", "plan-gate.sh")

	// A new fabric (no state) that fails: the order is the whole fabric, from the summary's
	// totals, and the violation names the limit that would pass (24/16 = 1.5 exactly) and the
	// uplinks that would (24 at 1:1).
	fresh := filepath.Join(dir, "fresh.md")
	out, err := tf.script(dir, script, "-chdir="+dir, "-summary="+fresh, "--", "-var", "nodes=3", "-var", "uplinks=16")
	if err == nil {
		t.Fatalf("the gate passed a new fabric that violates the policy:\n%s", out)
	}
	md := read(t, fresh)
	for _, want := range []string{
		"## Fabric plan gate: FAIL: 1 policy violation\n",
		"The plan failed, so there is no plan file; this order is the fabric's plan summary.",
		"| `DGXH-G640F+P2EDI36` | node | 0 | 3 | +3 | unpriced |",
		"| `920-9B210-00FN-0M0` | switch | 0 | 2 | +2 |",
		"policy.tier_limits.leaf = 1.5 (tier leaf alone; the rest of training-large stays)",
		"policy.max_oversubscription = 1.5 (every tier)",
		"leaf01 needs 24 uplinks of 400 Gb/s (8 more",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary of a failing new fabric lacks %q:\n%s", want, md)
		}
	}
	// A new fabric that passes: the order is bom.items after, against nothing before.
	created := filepath.Join(dir, "created.md")
	if out, err := tf.script(dir, script, "-chdir="+dir, "-summary="+created, "--", "-var", "nodes=2", "-var", "uplinks=16"); err != nil {
		t.Fatalf("the gate failed a passing new fabric: %v\n%s", err, out)
	}
	md = read(t, created)
	for _, want := range []string{
		"## Fabric plan gate: PASS\n",
		"| `DGXH-G640F+P2EDI36` | NVIDIA DGX H100 (8x H100 SXM5) | 0 | 2 | +2 | unpriced | unpriced |",
		"| `920-9B210-00FN-0M0` |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary of a passing new fabric lacks %q:\n%s", want, md)
		}
	}

	tf.run(dir, "apply", "-auto-approve", "-input=false", "-var", "nodes=2", "-var", "uplinks=16")

	// Passing: one more node and its eight uplinks.
	pass := filepath.Join(dir, "pass.md")
	out, err = tf.script(dir, script, "-chdir="+dir, "-summary="+pass, "--", "-var", "nodes=3", "-var", "uplinks=24")
	if err != nil {
		t.Fatalf("the gate failed a passing plan: %v\n%s", err, out)
	}
	md = read(t, pass)
	for _, want := range []string{
		"## Fabric plan gate: PASS\n",
		"### Purchase order\n",
		"#### `gpucluster_fabric.gate`",
		"| `DGXH-G640F+P2EDI36` | NVIDIA DGX H100 (8x H100 SXM5) | 2 | 3 | +1 | unpriced | unpriced |",
		"| `MFP7E10-N` |",
		"### Links per tier\n",
		"| `gpucluster_fabric.gate` | node-leaf | 8 | 0 | 0 |",
		"| `gpucluster_fabric.gate` | leaf-spine | 8 | 0 | 0 |",
		// The OpenSM files the new node changes, as diffs: its first HCA port's GUID is added.
		"### OpenSM files\n",
		"```diff\n",
		"\n+0x0002c90300100010",
		"Policy: pass",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("passing summary lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "920-9B210-00FN-0M0") {
		t.Errorf("the switches do not change, yet the order lists them:\n%s", md)
	}
	if _, err := os.Stat(filepath.Join(dir, "tfplan")); err != nil {
		t.Errorf("no plan file after a passing plan: %v", err)
	}

	// Failing: 24 node links on 16 uplinks. No plan file; the verdict and the violation come
	// from the plan's diagnostics.
	fail := filepath.Join(dir, "fail.md")
	out, err = tf.script(dir, script, "-chdir="+dir, "-summary="+fail, "--", "-var", "nodes=3", "-var", "uplinks=16")
	if err == nil {
		t.Fatalf("the gate passed a plan that violates the policy:\n%s", out)
	}
	md = read(t, fail)
	for _, want := range []string{
		"## Fabric plan gate: FAIL: 1 policy violation\n",
		"### Violations and errors\n",
		"| policy | oversubscription | gpucluster_fabric.gate |",
		"1.5:1",
		"leaf01",
		// No plan file, yet the order is there: the summary's lines, with the summary's amounts.
		"The plan failed, so there is no plan file; this order is the fabric's plan summary.",
		"| `DGXH-G640F+P2EDI36` | node | 2 | 3 | +1 | unpriced |",
		"| `gpucluster_fabric.gate` | node-leaf | 8 | 0 | 0 |",
		"Policy: FAIL, 1 violation (oversubscription)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("failing summary lacks %q:\n%s", want, md)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "tfplan")); !os.IsNotExist(err) {
		t.Errorf("a plan file is left after a failed plan: %v", err)
	}
	t.Logf("failing summary:\n%s", md)
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
