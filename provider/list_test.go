package provider

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/importid"
)

// floorCounts counts a floor's devices and links straight from the ibnetdiscover text, apart
// from the reader under test: switches and CAs by their headers, nodes by the distinct hosts of
// the CAs' descriptions ("<host> <device>"), links by the port lines, each link being printed from
// both of its ends.
func floorCounts(t *testing.T, file string) (switches, nodes, hcas, cables int) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hosts := map[string]bool{}
	ports := 0
	caDesc := regexp.MustCompile(`^Ca\s+\d+\s+"[^"]*"\s+# "(\S+) \S+"`)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "Switch"):
			switches++
		case strings.HasPrefix(l, "Ca"):
			hcas++
			if m := caDesc.FindStringSubmatch(l); m != nil {
				hosts[m[1]] = true
			}
		case strings.HasPrefix(l, "["):
			ports++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return switches, len(hosts), hcas, ports / 2
}

// TestAccQueryAdoptsFloor adopts the hand-built brownfield floor (examples/clusters/brownfield,
// 2 SU cabled by hand with its own names and a node name map) the way a user does: the real
// `terraform query -generate-config-out` over the four list resources writes a resource block and
// an import block with its identity for every switch, node, HCA and cable (counted from the
// ibnetdiscover text itself), named after its item once cmd/gpucluster-names has renamed what
// Terraform names by position, and `terraform plan` of that imports them all and changes
// nothing: the imports fill each item from the provider's floor exactly as the list returned it.
func TestAccQueryAdoptsFloor(t *testing.T) {
	requireAcc(t)
	requireTerraform(t, actionsVersion, "terraform query")
	c := newTerraformCLI(t)
	floor, err := filepath.Abs("../examples/clusters/brownfield/floor")
	if err != nil {
		t.Fatal(err)
	}
	topo := filepath.Join(floor, "ibnetdiscover.out")
	switches, nodes, hcas, cables := floorCounts(t, topo)
	dir := writeConfig(t, fmt.Sprintf(`provider "gpucluster" {
  floor = {
    topology_file = %q
    node_name_map = %q
    simulated     = true
  }
}
`, topo, filepath.Join(floor, "node-name-map")))
	var q strings.Builder
	for _, typ := range []string{"switch", "node", "hca", "cable"} {
		fmt.Fprintf(&q, `list "gpucluster_%s" "floor" {
  provider         = gpucluster
  include_resource = true
  limit            = 10000
}
`, typ)
	}
	if err := os.WriteFile(filepath.Join(dir, "adopt.tfquery.hcl"), []byte(q.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := c.run(dir, "query", "-no-color", "-generate-config-out=adopted.tf")
	b, err := os.ReadFile(filepath.Join(dir, "adopted.tf"))
	if err != nil {
		t.Fatalf("no adopted.tf: %v\n%s", err, out)
	}
	adopted := string(b)
	for typ, want := range map[string]int{"switch": switches, "node": nodes, "hca": hcas, "cable": cables} {
		res := strings.Count(adopted, `resource "gpucluster_`+typ+`" `)
		imp := regexp.MustCompile(`(?m)^\s*to\s*=\s*gpucluster_`+typ+`\.`).FindAllStringIndex(adopted, -1)
		if res != want || len(imp) != want {
			t.Errorf("adopted.tf: %d gpucluster_%s resources and %d imports, the floor has %d", res, typ, len(imp), want)
		}
	}
	if !strings.Contains(adopted, `identity = {`) {
		t.Fatalf("adopted.tf imports without identity:\n%s", adopted[:min(len(adopted), 2000)])
	}
	// Terraform names them by position (floor_0, floor_1, ...); cmd/gpucluster-names names them
	// after their items, and the plan imports the same items under those names.
	named, renames, err := importid.NameGenerated("adopted.tf", b)
	if err != nil {
		t.Fatal(err)
	}
	if len(renames) != switches+nodes+hcas+cables {
		t.Errorf("%d resources renamed, %d imported", len(renames), switches+nodes+hcas+cables)
	}
	if err := os.WriteFile(filepath.Join(dir, "adopted.tf"), named, 0o644); err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^resource "gpucluster_\w+" "floor_\d+"`).FindString(string(named)); m != "" {
		t.Errorf("a resource still named by position: %s", m)
	}
	hf, diags := hclsyntax.ParseConfig(named, "adopted.tf", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	byName := 0
	body, ok := hf.Body.(*hclsyntax.Body)
	if !ok {
		t.Fatalf("the generated file's body is a %T", hf.Body)
	}
	for _, blk := range body.Blocks {
		if blk.Type != "resource" || (blk.Labels[0] != "gpucluster_switch" && blk.Labels[0] != "gpucluster_node") {
			continue
		}
		a := blk.Body.Attributes["name"]
		if a == nil {
			t.Errorf("%s.%s has no name", blk.Labels[0], blk.Labels[1])
			continue
		}
		v, _ := a.Expr.Value(nil)
		if want := importid.Identifier(v.AsString()); blk.Labels[1] != want {
			t.Errorf("%s.%s holds item %q, want the name %s", blk.Labels[0], blk.Labels[1], v.AsString(), want)
		}
		byName++
	}
	if byName != switches+nodes {
		t.Errorf("%d switches and nodes checked by name, the floor has %d", byName, switches+nodes)
	}
	total := switches + nodes + hcas + cables
	plan := c.run(dir, "plan", "-input=false", "-no-color")
	want := fmt.Sprintf("Plan: %d to import, 0 to add, 0 to change, 0 to destroy.", total)
	if !strings.Contains(plan, want) {
		i := strings.Index(plan, "~ ")
		t.Fatalf("the plan of the generated configuration does not say %q; first change:\n%s", want, plan[max(i, 0):min(len(plan), max(i, 0)+3000)])
	}
}
