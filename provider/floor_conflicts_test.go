package provider

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// twoCablesOnOnePort is the declared 8-node fat-tree's expected topology with leaf01[40], cabled
// to spine01[8], listed a second time to spine01[9] (issue 32's impossible floor), in a file;
// with the line number of the second listing, counted here from the text.
func twoCablesOnOnePort(t *testing.T) (file string, line int) {
	_, g := testrig.Generate(t, topogen.Params{Kind: topogen.KindFatTree, Nodes: 8, Tiers: 2})
	lines := strings.Split(opensm.ExpectedTopology(g), "\n")
	inLeaf := false
	for i, l := range lines {
		if strings.HasPrefix(l, "Switch") {
			inLeaf = strings.Contains(l, `"leaf01"`)
		}
		if inLeaf && strings.HasPrefix(l, "[40]\t\"spine01\"[8]") {
			lines = append(lines[:i+1], append([]string{"[40]\t\"spine01\"[9]\t\t# lid 0 4xHDR"}, lines[i+1:]...)...)
			line = i + 2
			break
		}
	}
	if line == 0 {
		t.Fatal("leaf01[40] <-> spine01[8] is not in the expected topology")
	}
	file = filepath.Join(t.TempDir(), "ibnetdiscover.out")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	return file, line
}

// The same impossible floor is refused alike, on topology_file with the line number, by
// gpucluster_discovered_fabric with a declared fabric (its drift report said clean = true) and
// by the floor reader of the list resources (terraform query generated both cables).
func TestAccFloorOneTruth(t *testing.T) {
	file, line := twoCablesOnOnePort(t)
	want := fmt.Sprintf("line %d: leaf01[40] is on two cables: to spine01[8] (line %d) and to spine01[9]", line, line-1)

	_, diags := readFloor(context.Background(), nil, floorModel{TopologyFile: types.StringValue(file), NodeNameMap: types.StringNull(), Host: types.StringNull()}, path.Empty())
	if len(diags) != 1 || !diags.HasError() {
		t.Fatalf("the list resources' floor: %v", diags)
	}
	if d := diags[0]; d.Summary() != "The topology is not one fabric" || !strings.Contains(d.Detail(), want) {
		t.Errorf("the list resources' floor: %s: %s", d.Summary(), d.Detail())
	}
	if d, ok := diags[0].(interface{ Path() path.Path }); !ok || !d.Path().Equal(path.Root("topology_file")) {
		t.Errorf("the list resources' floor: not on topology_file: %v", diags[0])
	}

	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "gpucluster_topology" "demo" {
  kind       = "fat-tree"
  node_count = 8
  tiers      = 2
  items      = []
}
data "gpucluster_discovered_fabric" "floor" {
  topology_file = %q
  simulated     = true
  design        = data.gpucluster_topology.demo.design
}
`, file),
			PlanOnly: true,
			ExpectError: regexp.MustCompile(`Error: The topology is not one fabric[\s│]+with data.gpucluster_discovered_fabric.floor,[^\n]*\n[│ ]*on [^\n]+ line \d+, in data "gpucluster_discovered_fabric" "floor":\n[│ ]*\d+:[ \t]*topology_file[^\n]*\n[\s\S]*` +
				regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(want), `[\s│]+`)),
		}},
	})
}
