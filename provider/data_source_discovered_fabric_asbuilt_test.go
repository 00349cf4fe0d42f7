package provider

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// asBuiltConfig reads the brownfield example's floor (a real ibnetdiscover snapshot of a
// hand-built fabric on ibsim, and its node name map) with every map of as_built (`items`), and
// feeds the maps, as they are, to the fabric, the BOM and the OpenSM files.
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
  items         = ["switches", "nodes", "hcas", "cables"]
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
	accHeavy(t)
	t.Parallel()
	const d, f = "data.gpucluster_discovered_fabric.floor", "gpucluster_fabric.floor"
	// resource.Test, not UnitTest: see accHeavy.
	resource.Test(t, resource.TestCase{
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

// TestAccDiscoveredFabricFloor adopts the same floor as one value: `floor` is the record of it
// (its sha256 recomputed here from the record's gzipped JSON, its summary counted from the
// JSON's lists), the maps stay null without `items`, and gpucluster_fabric given `as_built`
// alone plans the floor as it stands, with the analysis and BOM the maps give above.
func TestAccDiscoveredFabricFloor(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("../examples/clusters/brownfield/floor")
	if err != nil {
		t.Fatal(err)
	}
	const d, f = "data.gpucluster_discovered_fabric.floor", "gpucluster_fabric.floor"
	topologyText, err := os.ReadFile(filepath.Join(dir, "ibnetdiscover.out"))
	if err != nil {
		t.Fatal(err)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: fmt.Sprintf(`
data "gpucluster_discovered_fabric" "floor" {
  topology_file = %q
  node_name_map = %q
  simulated     = true
}

resource "gpucluster_fabric" "floor" {
  name     = "floor"
  as_built = data.gpucluster_discovered_fabric.floor.floor
}
`, filepath.Join(dir, "ibnetdiscover.out"), filepath.Join(dir, "node-name-map")),
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckNoResourceAttr(d, "as_built.switches.%"),
				resource.TestCheckNoResourceAttr(d, "as_built.cables.%"),
				resource.TestCheckResourceAttr(d, "floor.summary", "24 switches, 64 nodes, 512 HCAs, 1,023 cables"),
				// topology is the file, byte for byte (sent from the file's own buffer).
				resource.TestCheckResourceAttr(d, "topology", string(topologyText)),
				func(s *terraform.State) error {
					a := s.RootModule().Resources[d].Primary.Attributes
					z, err := base64.StdEncoding.DecodeString(a["floor.record"])
					if err != nil {
						return err
					}
					zr, err := gzip.NewReader(bytes.NewReader(z))
					if err != nil {
						return err
					}
					js, err := io.ReadAll(zr)
					if err != nil {
						return err
					}
					if sum := sha256.Sum256(js); hex.EncodeToString(sum[:]) != a["floor.sha256"] {
						return fmt.Errorf("floor.sha256 %s is not the digest of the record's JSON", a["floor.sha256"])
					}
					var body map[string]any
					if err := json.Unmarshal(js, &body); err != nil {
						return err
					}
					for k, want := range map[string]int{"Switches": 24, "Nodes": 64, "HCAs": 512, "Cables": 1023} {
						if l, _ := body[k].([]any); len(l) != want {
							return fmt.Errorf("the record holds %d %s, want %d", len(l), k, want)
						}
					}
					return nil
				},
				resource.TestCheckResourceAttr(f, "analysis.endpoints", "512"),
				resource.TestCheckResourceAttr(f, "analysis.switches", "24"),
				resource.TestCheckResourceAttr(f, "analysis.links", "1023"),
				resource.TestCheckResourceAttr(f, "analysis.max_switch_hops", "2"),
				resource.TestCheckResourceAttr(f, "bom.items.920-9B210-00FN-0M0.quantity", "24"),
			),
		}},
	})
}

// TestAccFloorRefused: a floor whose record is edited is refused on the record, the old maps
// are refused with the line to write instead, and a fabric's as_built beside a design must be
// the floor the design carries.
func TestAccFloorRefused(t *testing.T) {
	t.Parallel()
	dir, err := filepath.Abs("../examples/clusters/brownfield/floor")
	if err != nil {
		t.Fatal(err)
	}
	floor := fmt.Sprintf(`
data "gpucluster_discovered_fabric" "floor" {
  topology_file = %q
  node_name_map = %q
  simulated     = true
  items         = ["switches"]
}
`, filepath.Join(dir, "ibnetdiscover.out"), filepath.Join(dir, "node-name-map"))
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: floor + `
data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = 2
  planned_scalable_units = 2
  reserved_node_slots    = 0
  items                  = []
  as_built = merge(data.gpucluster_discovered_fabric.floor.floor, {
    record = replace(data.gpucluster_discovered_fabric.floor.floor.record, "A", "B")
  })
}
`,
				ExpectError: re(`The floor record is refused`),
			},
			{
				Config: floor + `
data "gpucluster_bom" "work" {
  switches = data.gpucluster_discovered_fabric.floor.as_built.switches
  as_built = data.gpucluster_discovered_fabric.floor.as_built
}
`,
				ExpectError: re(`write as_built = data.gpucluster_discovered_fabric.x.floor`),
			},
			{
				Config: floor + `
data "gpucluster_topology" "pod" {
  kind                   = "rail-optimized"
  scalable_units         = 2
  planned_scalable_units = 2
  reserved_node_slots    = 0
  items                  = []
}

resource "gpucluster_fabric" "pod" {
  name     = "pod"
  design   = data.gpucluster_topology.pod.design
  as_built = data.gpucluster_discovered_fabric.floor.floor
}
`,
				ExpectError: re(`as_built beside a design built without a floor`),
			},
		},
	})
}
