package provider

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// asBuiltConfig reads the brownfield example's floor (a real ibnetdiscover snapshot of a
// hand-built fabric on ibsim, and its node name map) and feeds as_built, as it is, to the
// fabric, the BOM and the OpenSM files.
func asBuiltConfig(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../examples/clusters/brownfield/floor")
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`
data "gpucluster_discovered_fabric" "floor" {
  topology_file = %q
  node_name_map = %q
  simulated     = true
}

locals {
  floor = data.gpucluster_discovered_fabric.floor.as_built
}

resource "gpucluster_fabric" "floor" {
  name     = "floor"
  switches = local.floor.switches
  nodes    = local.floor.nodes
  hcas     = local.floor.hcas
  cables   = local.floor.cables
}

data "gpucluster_bom" "floor" {
  switches = local.floor.switches
  nodes    = local.floor.nodes
  hcas     = local.floor.hcas
  cables   = local.floor.cables
}

data "gpucluster_opensm_files" "floor" {
  switches = local.floor.switches
  nodes    = local.floor.nodes
  hcas     = local.floor.hcas
  cables   = local.floor.cables
}
`, filepath.Join(dir, "ibnetdiscover.out"), filepath.Join(dir, "node-name-map"))
}

// TestAccDiscoveredFabricAsBuilt adopts the floor: as_built holds every device and cable of the
// snapshot in the fabric's own shapes (names from descriptions and the node name map, GUIDs and
// ports as discovered, each cable's width and speed), and gpucluster_fabric given its maps as
// they are plans it: analysis, BOM and OpenSM files, with the location checks skipped and said
// once in as_built_notes.
func TestAccDiscoveredFabricAsBuilt(t *testing.T) {
	t.Parallel()
	const d, f = "data.gpucluster_discovered_fabric.floor", "gpucluster_fabric.floor"
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: asBuiltConfig(t),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(d, "as_built.switches.%", "24"),
				resource.TestCheckResourceAttr(d, "as_built.nodes.%", "64"),
				resource.TestCheckResourceAttr(d, "as_built.hcas.%", "512"),
				resource.TestCheckResourceAttr(d, "as_built.cables.%", "1023"),
				// A spine named by the node name map, a leaf by its description.
				resource.TestCheckResourceAttr(d, "as_built.switches.ib-spine-02.guid", "0xb83fd203004b0200"),
				resource.TestCheckResourceAttr(d, "as_built.switches.ib-spine-02.model", "QM9700"),
				resource.TestCheckNoResourceAttr(d, "as_built.switches.ib-spine-02.rack"),
				resource.TestCheckResourceAttr(d, "as_built.switches.ib-leaf-07.name", "ib-leaf-07"),
				resource.TestCheckResourceAttr(d, "as_built.nodes.hgx-b017.model", "DGX-H100"),
				resource.TestCheckResourceAttr(d, "as_built.hcas.hgx-b017/mlx5_3.node", "hgx-b017"),
				resource.TestCheckResourceAttr(d, "as_built.hcas.hgx-b017/mlx5_3.device", "mlx5_3"),
				resource.TestCheckResourceAttr(d, "as_built.hcas.hgx-b017/mlx5_3.port_guid", "0xa088c20300101111"),
				// The swapped rail: mlx5_0 of hgx-b017 on the rail-1 leaf, as it is on the floor.
				resource.TestCheckResourceAttr(d, "as_built.cables.hgx-b017/mlx5_0:1.b.device", "ib-leaf-10"),
				resource.TestCheckResourceAttr(d, "as_built.cables.hgx-b017/mlx5_0:1.b.port", "49"),
				resource.TestCheckResourceAttr(d, "as_built.cables.ib-leaf-12:5.b.device", "ib-spine-02"),
				resource.TestCheckResourceAttr(d, "as_built.cables.ib-leaf-12:5.width", "4x"),
				resource.TestCheckResourceAttr(d, "as_built.cables.ib-leaf-12:5.speed", "NDR"),
				resource.TestCheckNoResourceAttr(d, "as_built.cables.ib-leaf-12:6.a.device"), // the dead uplink
				resource.TestMatchResourceAttr(d, "as_built_notes.0", re("location unknown for 24 switches and 64 nodes: cable reach and rack power are not checked")),
				resource.TestCheckResourceAttr(f, "analysis.endpoints", "512"),
				resource.TestCheckResourceAttr(f, "analysis.switches", "24"),
				resource.TestCheckResourceAttr(f, "analysis.links", "1023"),
				resource.TestCheckResourceAttr(f, "analysis.tiers", "2"),
				resource.TestCheckResourceAttr(f, "analysis.max_switch_hops", "2"),
				resource.TestCheckResourceAttr(f, "bom.items.920-9B210-00FN-0M0.quantity", "24"),
				resource.TestCheckResourceAttrSet(f, "opensm.opensm.conf.sha256"),
				resource.TestMatchResourceAttr("data.gpucluster_opensm_files.floor", "files.node-name-map", re(`0xb83fd203004b0200 "ib-spine-02"`)),
				resource.TestCheckResourceAttrSet("data.gpucluster_bom.floor", "csv"),
			),
		}},
	})
}
