package provider

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
)

const bomDS = "data.gpucluster_bom.b"

// smallBOM is one DGX H100 in a rack with its leaf: eight HCAs cabled to leaf ports 1-8 (each
// twin-port DGX cage to one switch cage, 3 m of active copper), plus the given extra arguments.
func smallBOM(extra string) string {
	return `
data "gpucluster_bom" "b" {
  racks    = { r1 = { row = 1, position = 1, power_kw = 20 } }
  switches = { leaf01 = { rack = "r1", position_u = 40 } }
  nodes    = { gpu001 = { rack = "r1", position_u = 2 } }
  hcas     = { for i in range(8) : "gpu001/mlx5_${i}" => { node = "gpu001", device = "mlx5_${i}" } }
  cables = { for i in range(8) : "gpu001/mlx5_${i}:1" => {
    a = { device = "gpu001/mlx5_${i}", port = 1 }
    b = { device = "leaf01", port = i + 1 }
  } }
  ` + extra + `
}
`
}

// TestAccBOM: quantities, prices (catalog only: unpriced items are null and listed), the
// total, and the cabling plan, one CSV row per cable.
func TestAccBOM(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: smallBOM(""),
				Check: resource.ComposeAggregateTestCheckFunc(
					// Keyed by SKU.
					resource.TestCheckResourceAttr(bomDS, "items.%", "3"),
					resource.TestCheckResourceAttr(bomDS, "items.920-9B210-00FN-0M0.sku", "920-9B210-00FN-0M0"), // QM9700
					resource.TestCheckResourceAttr(bomDS, "items.920-9B210-00FN-0M0.quantity", "1"),
					resource.TestCheckResourceAttr(bomDS, "items.920-9B210-00FN-0M0.unit_price", "85000"),
					resource.TestCheckResourceAttr(bomDS, "items.920-9B210-00FN-0M0.cost", "85000"),
					resource.TestCheckResourceAttr(bomDS, "items.DGXH-G640F+P2EDI36.quantity", "1"),
					resource.TestCheckNoResourceAttr(bomDS, "items.DGXH-G640F+P2EDI36.unit_price"),
					resource.TestCheckNoResourceAttr(bomDS, "items.DGXH-G640F+P2EDI36.cost"),
					// Eight links on four twin-port copper cables.
					resource.TestCheckResourceAttr(bomDS, "items.MCA4J80-N003.quantity", "4"),
					resource.TestCheckResourceAttr(bomDS, "total_cost", "85000"),
					resource.TestCheckResourceAttr(bomDS, "unpriced.#", "2"),
					resource.TestCheckResourceAttr(bomDS, "unpriced.0", "DGXH-G640F+P2EDI36"),
					resource.TestCheckResourceAttr(bomDS, "unpriced.1", "MCA4J80-N003"),
					resource.TestMatchResourceAttr(bomDS, "markdown", re("**Total of priced items:** USD 85,000.00")),
					resource.TestMatchResourceAttr(bomDS, "json", re(`"total_cost": 85000`)),
					resource.TestCheckResourceAttr(bomDS, "csv", "category,sku,description,quantity,unit_price,cost\n"+
						"switch,920-9B210-00FN-0M0,\"NVIDIA Quantum-2 QM9700 NDR InfiniBand switch, managed (on-board CPU, can run an embedded SM)\",1,85000.00,85000.00\n"+
						"node,DGXH-G640F+P2EDI36,NVIDIA DGX H100 (8x H100 SXM5),1,,\n"+
						"cable,MCA4J80-N003,\"NDR active copper cable (ACC), twin-port OSFP, 2x400G, 3 m\",4,,\n"),
					cablingRows(8, func(rows [][]string) error {
						// gpu001/mlx5_1 shares the cable of mlx5_0: one twin-port ACC from DGX cage 1 (split 2)
						// into leaf cage 1 (split 2, logical port 2); the cable is the part at both ends.
						want := []string{"gpu001/mlx5_1:1",
							"gpu001", "gpu001/mlx5_1", "1", "1", "2", "1/2", "r1", "2", "MCA4J80-N003",
							"leaf01", "", "2", "1", "2", "1/2", "r1", "40", "MCA4J80-N003",
							"acc", "3", "MCA4J80-N003", "gpu001/mlx5_0:1"}
						if got := rows[2]; strings.Join(got, ",") != strings.Join(want, ",") {
							return fmt.Errorf("row 2 = %q, want %q", got, want)
						}
						return nil
					}),
				),
			},
			{
				// A fabric-manager appliance outside the graph: its own row and cable.
				Config: smallBOM(`external_links = [{ device = "ufm01", rack = "r1", position_u = 30, switch = "leaf01", switch_port = 9 }]`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(bomDS, "items.%", "4"),
					resource.TestCheckResourceAttr(bomDS, "items.MCP7Y00-N01A.quantity", "1"),
					resource.TestCheckResourceAttr(bomDS, "unpriced.#", "3"),
					cablingRows(9, func(rows [][]string) error {
						if got := rows[9][0]; got != "ufm01:1" {
							return fmt.Errorf("last row label = %q, want ufm01:1", got)
						}
						return nil
					}),
				),
			},
			{
				// An external link to a switch the fabric lacks is left out, with a warning.
				Config: smallBOM(`external_links = [{ device = "ufm01", switch = "leaf09", switch_port = 9 }]`),
				Check: resource.ComposeAggregateTestCheckFunc(
					resource.TestCheckResourceAttr(bomDS, "items.%", "3"),
					resource.TestMatchResourceAttr(bomDS, "warnings.0", re(`1 external link(s) name a switch that is not in the fabric, left out: ufm01:1 (switch "leaf09")`)),
					cablingRows(8, func([][]string) error { return nil }),
				),
			},
		},
	})
}

// TestAccBOMStructure: the fabric's structural errors land on the offending list element, as in
// gpucluster_fabric.
func TestAccBOMStructure(t *testing.T) {
	t.Parallel()
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: `
data "gpucluster_bom" "b" {
  switches = { leaf01 = {} }
  nodes    = { gpu001 = {} }
  hcas     = { for d in ["mlx5_0", "mlx5_1"] : "gpu001/${d}" => { node = "gpu001", device = d } }
  cables = {
    first  = { a = { device = "leaf01", port = 1 }, b = { device = "gpu001/mlx5_0", port = 1 } },
    second = { a = { device = "leaf01", port = 1 }, b = { device = "gpu001/mlx5_1", port = 1 } },
  }
}`,
				ExpectError: re(`leaf01 port 1 is already used by cables["first"]`),
			},
			{
				Config: `
data "gpucluster_bom" "b" {
  switches = { leaf01 = {} }
  cables   = { c = { a = { device = "leaf01" }, b = { device = "gpu009/mlx5_0", port = 1 } } }
}`,
				ExpectError: re("port is required for every cable end"),
			},
		},
	})
}

// cablingRows parses cabling_csv with encoding/csv: a header and one row per cable.
func cablingRows(cables int, check func([][]string) error) resource.TestCheckFunc {
	return func(s *terraform.State) error {
		rs, ok := s.RootModule().Resources[bomDS]
		if !ok {
			return fmt.Errorf("%s not in state", bomDS)
		}
		rows, err := csv.NewReader(strings.NewReader(rs.Primary.Attributes["cabling_csv"])).ReadAll()
		if err != nil {
			return fmt.Errorf("cabling_csv: %w", err)
		}
		if len(rows) != cables+1 {
			return fmt.Errorf("cabling_csv has %d rows, want a header and %d cables", len(rows), cables)
		}
		if strings.Join(rows[0], ",") != strings.Join(bom.CablingHeader, ",") {
			return fmt.Errorf("header %q", rows[0])
		}
		return check(rows)
	}
}
