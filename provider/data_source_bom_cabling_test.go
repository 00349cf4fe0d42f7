package provider

import (
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// TestAccBOMCablingSuperPOD: through the real terraform, the 4-SU SuperPOD's cabling_csv has the
// 2,044 rows of RA-11333-001 (1,016 node-leaf, 1,024 leaf-spine, 4 UFM) and every row names the
// cage, the split where the cage has two ports, and the part at both ends.
func TestAccBOMCablingSuperPOD(t *testing.T) {
	requireAcc(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{{
			Config: superPODConfig(`
data "gpucluster_bom" "b" {
  design         = data.gpucluster_topology.pod.design
  external_links = values(data.gpucluster_topology.pod.appliance_links)
}
`),
			Check: resource.TestCheckResourceAttrWith(bomDS, "cabling_csv", func(v string) error {
				recs, err := csv.NewReader(strings.NewReader(v)).ReadAll()
				if err != nil {
					return err
				}
				if len(recs) != 2045 {
					return fmt.Errorf("%d records, want a header and 2044 rows", len(recs))
				}
				col := map[string]int{}
				for i, h := range recs[0] {
					col[h] = i
				}
				for _, r := range recs[1:] {
					for _, e := range []string{"a", "b"} {
						ufm := strings.HasPrefix(r[col[e+"_device"]], "ufm")
						if r[col[e+"_cage"]] == "" || r[col[e+"_part"]] == "" || (!ufm && r[col[e+"_split"]] == "") {
							return fmt.Errorf("row %s: %s end lacks cage, split or part: %q", r[0], e, r)
						}
					}
				}
				return nil
			}),
		}},
	})
}
