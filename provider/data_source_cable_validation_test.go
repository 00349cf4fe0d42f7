package provider

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

const cableValidationDS = "data.gpucluster_cable_validation.wave"

// siteFloor is the 4-node rail-optimized design's cabling under a site's own switch and node
// names and GUIDs, with leaf03's ports 1 and 2 swapped when swap is set, as HCL for `floor`.
func siteFloor(t *testing.T, swap bool) string {
	t.Helper()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindRailOptimized, Nodes: 4}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	s := d.FabricSpec()
	rn := map[string]string{}
	floor := &fabric.Spec{}
	for i, sw := range s.Switches {
		rn[sw.Name] = "site-" + sw.Name
		sw.Name, sw.GUID, sw.Rack, sw.PositionU, sw.Role, sw.Group, sw.Ref = rn[sw.Name], fmt.Sprintf("0x9a00%012x", 500+i), "", 0, "", "", fabric.Ref{}
		floor.Switches = append(floor.Switches, sw)
	}
	for _, n := range s.Nodes {
		rn[n.Name] = "site-" + n.Name
		n.Name, n.Rack, n.PositionU, n.Ref = rn[n.Name], "", 0, fabric.Ref{}
		floor.Nodes = append(floor.Nodes, n)
	}
	for i, h := range s.HCAs {
		h.Node = rn[h.Node]
		rn[h.Name] = fabric.HCAName(h.Node, h.Device)
		h.Name, h.PortGUID, h.Rail, h.Ref = rn[h.Name], fmt.Sprintf("0x5b00%012x", 900+i), -1, fabric.Ref{}
		floor.HCAs = append(floor.HCAs, h)
	}
	for _, c := range s.Cables {
		if swap && c.B.Device == "leaf03" && (c.B.Port == 1 || c.B.Port == 2) {
			c.B.Port = 3 - c.B.Port
		}
		c.A.Device, c.B.Device, c.Kind, c.LengthM, c.Ref = rn[c.A.Device], rn[c.B.Device], "", 0, fabric.Ref{}
		floor.Cables = append(floor.Cables, c)
	}
	rec, err := asbuilt.EncodeRecord(floor)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("{\n    summary = %q\n    sha256  = %q\n    record  = %q\n  }", asbuilt.Summary(floor), rec.SHA256, rec.Data)
}

// workOrder names two node links of leaf01 as gpucluster_bom's cabling_changes_csv writes them
// (bom.ChangesHeader's columns).
var workOrder = strings.Join(bom.ChangesHeader, ",") + "\n" +
	"add,,gpu001/mlx5_0:1,gpu001,gpu001/mlx5_0,1,1,1,1/1,rack02,10,,leaf01,,1,1,1,1/1,rack06,42,,fiber-mm,5,X,,\n" +
	"add,,gpu002/mlx5_0:1,gpu002,gpu002/mlx5_0,1,1,1,1/1,rack02,20,,leaf01,,2,1,2,1/2,rack06,42,,fiber-mm,5,X,,\n"

func cableValidationConfig(floor, extra string) string {
	return `
data "gpucluster_topology" "pod" {
  kind       = "rail-optimized"
  node_count = 4
}
data "gpucluster_cable_validation" "wave" {
  design = data.gpucluster_topology.pod.design
  floor  = ` + floor + `
` + extra + `
}
`
}

// TestAccCableValidation: through the real terraform, a floor with its own names and one swap
// on a leaf gives one swap row naming the two leaf ports and fails; the same floor cabled right
// passes with no rows; an altered record and a CSV that is not a work order are errors on their
// attributes.
func TestAccCableValidation(t *testing.T) {
	requireAcc(t)
	swapped, right := siteFloor(t, true), siteFloor(t, false)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: cableValidationConfig(swapped, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(cableValidationDS, "passed", "false"),
					resource.TestCheckResourceAttr(cableValidationDS, "summary.expected", "288"),
					resource.TestCheckResourceAttr(cableValidationDS, "summary.ok", "286"),
					resource.TestCheckResourceAttr(cableValidationDS, "summary.swapped", "2"),
					resource.TestCheckResourceAttr(cableValidationDS, "punch_list.#", "1"),
					resource.TestCheckResourceAttr(cableValidationDS, "punch_list.0.action", "swap"),
					resource.TestCheckResourceAttr(cableValidationDS, "punch_list.0.a", "leaf03:1"),
					resource.TestCheckResourceAttr(cableValidationDS, "punch_list.0.b", "leaf03:2"),
					resource.TestMatchResourceAttr(cableValidationDS, "punch_list.0.where", regexp.MustCompile(`^rack06 U40 leaf03 \[site-leaf03 on the floor\] cage 1 split 1 \(leaf03:1\) <-> rack06 U40 leaf03 \[site-leaf03 on the floor\] cage 1 split 2 \(leaf03:2\)$`)),
					resource.TestMatchResourceAttr(cableValidationDS, "report", regexp.MustCompile(`^first light failed: 286 of 288 link\(s\) ok;.*2 swapped.*\n1\. swap `)),
					resource.TestMatchResourceAttr(cableValidationDS, "punch_list_csv", regexp.MustCompile(`(?m)^swap,swapped,.*,leaf03:1,2,rack06,40,1,1,site-leaf03,leaf03:2,2,rack06,40,1,2,site-leaf03,`)),
					resource.TestMatchResourceAttr(cableValidationDS, "topo", regexp.MustCompile(`(?m)^QM9700 leaf03\n   P1 -> NODE_DGXH100 gpu001 P3\n`)),
					resource.TestMatchResourceAttr(cableValidationDS, "topo_ibnl.QM9700.ibnl", regexp.MustCompile(`NODE SW 64 MT54000 U1`)),
				),
			},
			{
				Config: cableValidationConfig(right, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(cableValidationDS, "passed", "true"),
					resource.TestCheckResourceAttr(cableValidationDS, "summary.ok", "288"),
					resource.TestCheckResourceAttr(cableValidationDS, "punch_list.#", "0"),
				),
			},
			{
				// counters as gpucluster_port_counters' links give them (by the floor's label here);
				// a work order naming two node links, one of them the noisy one
				Config: cableValidationConfig(right, `
  counters = {
    "site-gpu002/mlx5_0:1 <-> site-leaf01:2" = { verdict = "suspect", reason = "SymbolErrorCounter 40 in 60 s", rate_gbps = 400 }
    "site-gpu001/mlx5_0:1 <-> site-leaf01:1" = { verdict = "ok", reason = "", rate_gbps = 400 }
  }
  scope = <<-EOT
`+workOrder+`EOT`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(cableValidationDS, "passed", "false"),
					resource.TestCheckResourceAttr(cableValidationDS, "summary.expected", "2"),
					resource.TestCheckResourceAttr(cableValidationDS, "summary.ok", "1"),
					resource.TestCheckResourceAttr(cableValidationDS, "summary.noisy", "1"),
					resource.TestCheckResourceAttr(cableValidationDS, "summary.outside_scope", "286"),
					resource.TestCheckResourceAttr(cableValidationDS, "punch_list.#", "1"),
					resource.TestCheckResourceAttr(cableValidationDS, "punch_list.0.action", "replace"),
					resource.TestCheckResourceAttr(cableValidationDS, "punch_list.0.label", "gpu002/mlx5_0:1 <-> leaf01:2"),
					resource.TestMatchResourceAttr(cableValidationDS, "punch_list.0.detail", regexp.MustCompile(`counters say suspect: SymbolErrorCounter 40 in 60 s`)),
				),
			},
			{
				Config:      cableValidationConfig(regexp.MustCompile(`sha256  = "[0-9a-f]`).ReplaceAllString(right, `sha256  = "X`), ""),
				ExpectError: regexp.MustCompile(`(?s)floor.*does not match its sha256`),
			},
			{
				Config:      cableValidationConfig(right, `  scope = "label,a\nx,y\n"`),
				ExpectError: regexp.MustCompile(`(?s)scope.*no "action" column`),
			},
		},
	})
}

// TestAccCableValidationFittedDesign: a design fitted to the brownfield floor (its `as_built`),
// judged against that floor within the work order from it: the node's swapped rails are one
// swap, the dead uplink one plug, and the design's other links are outside the work order.
func TestAccCableValidationFittedDesign(t *testing.T) {
	requireAcc(t)
	dir, err := filepath.Abs("../examples/clusters/brownfield/floor")
	if err != nil {
		t.Fatal(err)
	}
	topo, names := filepath.Join(dir, "ibnetdiscover.out"), filepath.Join(dir, "node-name-map")
	l, err := asbuilt.LoadFile(topo, names, asbuilt.ReadOptions{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := asbuilt.EncodeRecord(l.Floor.Spec)
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`
data "gpucluster_discovered_fabric" "floor" {
  topology_file = %q
  node_name_map = %q
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

data "gpucluster_bom" "work" {
  design = data.gpucluster_topology.pod.design
}

data "gpucluster_cable_validation" "wave" {
  design = data.gpucluster_topology.pod.design
  floor  = { summary = %q, sha256 = %q, record = %q }
  scope  = data.gpucluster_bom.work.cabling_changes_csv
}
`, topo, names, asbuilt.Summary(l.Floor.Spec), rec.SHA256, rec.Data)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: config,
			Check: resource.ComposeAggregateTestCheckFunc(
				resource.TestCheckResourceAttr(cableValidationDS, "passed", "false"),
				resource.TestCheckResourceAttr(cableValidationDS, "summary.expected", "3"),
				resource.TestCheckResourceAttr(cableValidationDS, "summary.swapped", "2"),
				resource.TestCheckResourceAttr(cableValidationDS, "summary.missing", "1"),
				resource.TestCheckResourceAttr(cableValidationDS, "summary.unexpected", "0"),
				resource.TestCheckResourceAttr(cableValidationDS, "punch_list.#", "2"),
				resource.TestCheckTypeSetElemNestedAttrs(cableValidationDS, "punch_list.*", map[string]string{"action": "swap"}),
				resource.TestCheckTypeSetElemNestedAttrs(cableValidationDS, "punch_list.*", map[string]string{"action": "plug"}),
				resource.TestMatchResourceAttr(cableValidationDS, "report", regexp.MustCompile(`^first light failed: 0 of 3 link\(s\) ok;`)),
			),
		}},
	})
}
