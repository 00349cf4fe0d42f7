package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccBOMWorkOrderFromFloor: the design fitted to the brownfield floor gives the work order
// from what is on the floor. At 2 SU: the two swapped rail cables moved, each from the port it
// is really on, and the dead uplink added on its own port; nothing else. Grown to 4 SU (planned
// 4): the counts are the fit's (2 moves of rails, 255 uplink moves, 1,025 adds: 512 node links
// and 513 uplinks); internal/asbuilt's tests check each row against the floor and the fitted
// fabric port by port.
func TestAccBOMWorkOrderFromFloor(t *testing.T) {
	accHeavy(t)
	dir, err := filepath.Abs("../examples/clusters/brownfield/floor")
	if err != nil {
		t.Fatal(err)
	}
	config := func(sus int) string {
		return fmt.Sprintf(`
data "gpucluster_discovered_fabric" "floor" {
  topology_file = %q
  node_name_map = %q
  simulated     = true
}

data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = %d
  planned_scalable_units = %d
  reserved_node_slots    = 0
  items                  = []
}

data "gpucluster_bom" "work" {
  design   = data.gpucluster_topology.pod.design
  as_built = data.gpucluster_discovered_fabric.floor.floor
}
`, filepath.Join(dir, "ibnetdiscover.out"), filepath.Join(dir, "node-name-map"), sus, sus)
	}
	rows := func(want map[string]int, check func(action string, r map[string]string) error) resource.TestCheckFunc {
		return func(s *terraform.State) error {
			rs := s.RootModule().Resources["data.gpucluster_bom.work"]
			csv := rs.Primary.Attributes["cabling_changes_csv"]
			lines := strings.Split(strings.TrimSpace(csv), "\n")
			header := strings.Split(lines[0], ",")
			got := map[string]int{}
			for _, l := range lines[1:] {
				f := strings.Split(l, ",")
				r := map[string]string{}
				for i, h := range header {
					if i < len(f) {
						r[h] = f[i]
					}
				}
				got[r["action"]]++
				if err := check(r["action"], r); err != nil {
					return fmt.Errorf("%w\n%s", err, l)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Errorf("work order %v, want %v", got, want)
			}
			return nil
		}
	}
	anyRow := func(string, map[string]string) error { return nil }
	// resource.Test, not UnitTest: see accHeavy.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: config(2),
				Check: rows(map[string]int{"add": 1, "move": 2}, func(action string, r map[string]string) error {
					if action == "move" && !strings.HasPrefix(r["label"], "hgx-b017/") {
						return fmt.Errorf("a move of another cable than the swapped rails")
					}
					return nil
				}),
			},
			{Config: config(4), Check: rows(map[string]int{"add": 1025, "move": 257}, anyRow)},
		},
	})
}

// TestAccBOMFloorIsTheDesigns: the BOM's floor is the one the design is fitted to (issue 32: a
// floor other than the design's wrote a 1,022-row work order against the wrong floor). The
// design fitted to the brownfield floor, given the same file read without its node name map
// (another record: the devices named by their descriptions) is refused on as_built;
// the design's own floor passes; prior_design beside a floor is refused on prior_design.
func TestAccBOMFloorIsTheDesigns(t *testing.T) {
	accHeavy(t)
	t.Parallel()
	dir, err := filepath.Abs("../examples/clusters/brownfield/floor")
	if err != nil {
		t.Fatal(err)
	}
	config := func(bom string) string {
		return fmt.Sprintf(`
data "gpucluster_discovered_fabric" "floor" {
  topology_file = %[1]q
  node_name_map = %[2]q
  simulated     = true
}

data "gpucluster_discovered_fabric" "other" {
  topology_file = %[1]q
  simulated     = true
}

data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = 2
  planned_scalable_units = 2
  reserved_node_slots    = 0
  items                  = []
  as_built               = data.gpucluster_discovered_fabric.floor.floor
}

data "gpucluster_topology" "cabled" {
  kind                   = "rail-optimized"
  scalable_units         = 2
  planned_scalable_units = 2
  reserved_node_slots    = 0
  items                  = []
}

data "gpucluster_bom" "work" {
  design = data.gpucluster_topology.pod.design
  %[3]s
}

output "floors" {
  value = [data.gpucluster_discovered_fabric.floor.floor.sha256, data.gpucluster_discovered_fabric.other.floor.sha256]
}
`, filepath.Join(dir, "ibnetdiscover.out"), filepath.Join(dir, "node-name-map"), bom)
	}
	// resource.Test, not UnitTest: see accHeavy.
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      config("as_built = data.gpucluster_discovered_fabric.other.floor"),
				ExpectError: regexp.MustCompile(`(?s)as_built is not the design.s floor.*as_built = data.gpucluster_discovered_fabric.other.floor.*The design is fitted to the floor\s+of\s+sha256`),
			},
			{
				Config: config("as_built = data.gpucluster_discovered_fabric.floor.floor"),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttrSet("data.gpucluster_bom.work", "cabling_changes_csv"),
					func(s *terraform.State) error {
						// The two reads are two floors: the refusal above is about a real difference.
						o, ok := s.RootModule().Outputs["floors"].Value.([]any)
						if !ok || len(o) != 2 {
							return fmt.Errorf("output floors is %#v, want the two sha256", s.RootModule().Outputs["floors"].Value)
						}
						if o[0] == o[1] {
							return fmt.Errorf("the two reads have one sha256 %v", o[0])
						}
						return nil
					},
				),
			},
			{
				Config:      config("prior_design = data.gpucluster_topology.cabled.design"),
				ExpectError: regexp.MustCompile(`(?s)prior_design beside a floor.*prior_design = `),
			},
			{
				Config:      config("as_built = data.gpucluster_discovered_fabric.floor.floor\n  prior_design = data.gpucluster_topology.cabled.design"),
				ExpectError: regexp.MustCompile(`(?s)prior_design beside a floor`),
			},
		},
	})
}
