package provider

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// TestAccBOMCablingChanges: the work order of the 2 -> 4 SU SuperPOD expansion, from the design
// built for 4 SU, lists exactly the cables the 4-SU design has and the 2-SU one has not, all of
// them to add; a prior design that is not buildable is refused on prior_design.
func TestAccBOMCablingChanges(t *testing.T) {
	requireAcc(t)
	config := func(prior string) string {
		return `
locals {
  prior = ` + prior + `
}

data "gpucluster_topology" "built" {
  kind                   = "rail-optimized"
  scalable_units         = 2
  planned_scalable_units = 4
}

data "gpucluster_topology" "next" {
  kind                   = "rail-optimized"
  scalable_units         = 4
  planned_scalable_units = 4
}

data "gpucluster_bom" "b" {
  design       = data.gpucluster_topology.next.design
  prior_design = local.prior
}
`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config: config("data.gpucluster_topology.built.design"),
				Check: func(s *terraform.State) error {
					rs := s.RootModule().Resources[bomDS]
					rows, err := csv.NewReader(strings.NewReader(rs.Primary.Attributes["cabling_changes_csv"])).ReadAll()
					if err != nil {
						return err
					}
					if len(rows) < 2 || rows[0][0] != "action" {
						return fmt.Errorf("no work order: %v", rows)
					}
					actions := map[string]int{}
					for _, r := range rows[1:] {
						actions[r[0]]++
					}
					// Counted from the two designs, not assumed: every row adds, and there are as
					// many as the cables the 4-SU design has more than the 2-SU one.
					count := func(ds string) (int, error) {
						var n int
						_, err := fmt.Sscan(s.RootModule().Resources[ds].Primary.Attributes["cables.%"], &n)
						return n, err
					}
					next, err := count("data.gpucluster_topology.next")
					if err != nil {
						return err
					}
					built, err := count("data.gpucluster_topology.built")
					if err != nil {
						return err
					}
					if actions["remove"] != 0 || actions["move"] != 0 || actions["add"] != next-built || next <= built {
						return fmt.Errorf("work order %v, want exactly %d adds (%d cables at 4 SU, %d at 2 SU)", actions, next-built, next, built)
					}
					return nil
				},
			},
			{
				// A plain object that is no buildable design is refused on its argument.
				Config:      config(`merge(data.gpucluster_topology.built.design, { scalable_units = 9 })`),
				ExpectError: re(`prior_design.scalable_units: scalable_units (9) exceed planned_scalable_units (4)`),
			},
		},
	})
}
