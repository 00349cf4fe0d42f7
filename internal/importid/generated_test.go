package importid

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// generated writes what `terraform query -generate-config-out` writes for list results, in its
// format (Terraform's internal/genconfig: the resource block, then its import block with the
// identity), named by position: <list>_<index>.
func generated(list, typ string, identities []string, bodies []string) string {
	var b strings.Builder
	for i, id := range identities {
		fmt.Fprintf(&b, "resource %q \"%s_%d\" {\n%s\n}\n\nimport {\n  to       = %s.%s_%d\n  provider = gpucluster\n  identity = {\n%s\n  }\n}\n\n",
			typ, list, i, bodies[i], typ, list, i, id)
	}
	return b.String()
}

// TestNameGenerated: switches, HCAs and cables written by position come back named after their
// items: valid identifiers (checked by HCL's own parser), unique per type, each import's `to`
// naming its own resource (the one whose attributes are the item's), and nothing else changed.
func TestNameGenerated(t *testing.T) {
	src := generated("floor", "gpucluster_switch",
		[]string{`    name = "ql-07-a"`, `    name = "qs-01"`, `    name = "7spine"`, `    name = "floor_0"`},
		[]string{`  name = "ql-07-a"`, `  name = "qs-01"`, `  name = "7spine"`, `  name = "floor_0"`}) +
		generated("floor", "gpucluster_hca",
			[]string{"    device = \"mlx5_0\"\n    node   = \"gpu001\"", "    device = \"mlx5_0\"\n    node   = \"gpu001.a\"", "    device = \"mlx5_0\"\n    node   = \"gpu001_a\""},
			[]string{`  name = "gpu001/mlx5_0"`, `  name = "gpu001.a/mlx5_0"`, `  name = "gpu001_a/mlx5_0"`}) +
		generated("floor", "gpucluster_cable",
			[]string{`    label = "gpu001/mlx5_0:1 <-> ql-07-a:64"`},
			[]string{"  a = {\n    device = \"gpu001/mlx5_0\"\n    port   = 1\n  }"}) +
		"resource \"gpucluster_switch\" \"kept\" {\n  name = \"spare\"\n}\n"
	out, renames, err := NameGenerated("adopted.tf", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"gpucluster_switch.floor_0": "ql-07-a", "gpucluster_switch.floor_1": "qs-01",
		"gpucluster_switch.floor_2": "_7spine", "gpucluster_switch.floor_3": "floor_0",
		"gpucluster_hca.floor_0": "gpu001_mlx5_0", "gpucluster_hca.floor_1": "gpu001_a_mlx5_0",
		"gpucluster_hca.floor_2":   "gpu001_a_mlx5_0_2",
		"gpucluster_cable.floor_0": "gpu001_mlx5_0_1_ql-07-a_64",
	}
	if len(renames) != len(want) {
		t.Fatalf("%d renames, want %d: %+v", len(renames), len(want), renames)
	}
	for _, r := range renames {
		if w := want[r.Type+"."+r.From]; r.To != w {
			t.Errorf("%s.%s -> %s, want %s", r.Type, r.From, r.To, w)
		}
	}
	// HCL parses it, every label is an identifier, every import points at a resource of the
	// file whose item is the one it imports, and names are unique per type.
	f, diags := hclsyntax.ParseConfig(out, "adopted.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%s\n%s", diags.Error(), out)
	}
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		t.Fatalf("the file's body is a %T", f.Body)
	}
	seen := map[string]bool{}
	ident := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
	for _, b := range body.Blocks {
		if b.Type != "resource" {
			continue
		}
		addr := b.Labels[0] + "." + b.Labels[1]
		if seen[addr] || !ident.MatchString(b.Labels[1]) || !hclsyntax.ValidIdentifier(b.Labels[1]) {
			t.Errorf("resource %s: duplicate or not an identifier", addr)
		}
		seen[addr] = true
	}
	for _, b := range body.Blocks {
		if b.Type != "import" {
			continue
		}
		expr, ok := b.Body.Attributes["to"].Expr.(*hclsyntax.ScopeTraversalExpr)
		if !ok || len(expr.Traversal) < 2 {
			t.Fatalf("import block without a resource address in to")
		}
		name, ok := expr.Traversal[1].(hcl.TraverseAttr)
		if !ok {
			t.Fatalf("import to %s: not a resource address", expr.Traversal.RootName())
		}
		addr := expr.Traversal.RootName() + "." + name.Name
		if !seen[addr] {
			t.Errorf("import to %s: no such resource in the file", addr)
		}
	}
	text := string(out)
	for _, pair := range [][2]string{
		{`resource "gpucluster_switch" "ql-07-a" {`, `name = "ql-07-a"`},
		{`resource "gpucluster_hca" "gpu001_a_mlx5_0_2" {`, `name = "gpu001_a/mlx5_0"`},
		{`resource "gpucluster_switch" "floor_0" {`, `name = "floor_0"`},
	} {
		i := strings.Index(text, pair[0])
		if i < 0 || !strings.HasPrefix(strings.TrimSpace(text[i+len(pair[0]):]), pair[1]) {
			t.Errorf("%s does not hold %s:\n%s", pair[0], pair[1], text)
		}
	}
	if !strings.Contains(text, `resource "gpucluster_switch" "kept" {`) {
		t.Errorf("a resource without an import was renamed:\n%s", text)
	}
	// Named already: a second pass gives each the name it has.
	if again, _, err := NameGenerated("adopted.tf", out); err != nil || string(again) != text {
		t.Errorf("renaming twice changes the file (%v):\n%s", err, again)
	}
}
