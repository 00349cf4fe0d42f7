package provider

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
)

// TestCIPlanGateMoney holds the CI gate's jq money and commas (examples/ci/plan-gate.sh, which
// formats the purchase order from the plan JSON and cannot call Go) to bom.Money and bom.Count,
// the provider's one money and count format: the same text for every amount, ties and negatives
// included.
func TestCIPlanGateMoney(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(moduleRoot(), "examples", "ci", "plan-gate.sh"))
	if err != nil {
		t.Fatal(err)
	}
	defs := regexp.MustCompile(`(?s)def commas:.*?;\n\s*def money:.*?end;\n`).Find(src)
	if defs == nil {
		t.Fatal("plan-gate.sh has no jq def commas / def money")
	}
	amounts := []float64{0, 0.005, 0.125, -0.125, 2.675, 999.5, 999.995, 1234567.891, -85000, 85000, 1360000, -170000.5, 1e12}
	counts := []int{0, 7, 999, 1000, -1000, 65536, -1234567}
	var in strings.Builder
	for _, a := range amounts {
		in.WriteString(strconv.FormatFloat(a, 'g', -1, 64) + "\n")
	}
	cmd := exec.Command("jq", "-r", string(defs)+` if type == "array" then .[0] | commas else money end`)
	for _, c := range counts {
		in.WriteString("[" + strconv.Itoa(c) + "]\n")
	}
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("jq: %v", err)
	}
	got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(got) != len(amounts)+len(counts) {
		t.Fatalf("jq printed %d lines for %d inputs:\n%s", len(got), len(amounts)+len(counts), out)
	}
	for i, a := range amounts {
		if got[i] != bom.Money(a) {
			t.Errorf("amount %v: the gate writes %q, bom.Money %q", a, got[i], bom.Money(a))
		}
	}
	for i, c := range counts {
		if g := got[len(amounts)+i]; g != bom.Count(c) {
			t.Errorf("count %d: the gate writes %q, bom.Count %q", c, g, bom.Count(c))
		}
	}
}
