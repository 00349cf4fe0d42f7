package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// tenantRe matches words of an error in order, across Terraform's wrapping (spaces and the
// box-drawing margin).
func tenantRe(parts ...string) *regexp.Regexp {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(p), `[\s│]+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(q, `.*`))
}

// TestAccFabricTenantPolicy: policy.partitions' refusals at plan with the real terraform, each on
// its attribute (partitions by key, members by index), once per cause, for both targets: OpenSM
// (subnet_manager with hosts, never reached at plan) and UFM (the test service, never reached at
// plan either). The P_Key refusals hold for both targets too.
func TestAccFabricTenantPolicy(t *testing.T) {
	requireAcc(t)
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	dir := t.TempDir()
	caFile, known := filepath.Join(dir, "ufm-ca.pem"), filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(caFile, []byte(u.CAPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(known, []byte("# no host is dialled at plan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	targets := map[string]string{
		"opensm": fmt.Sprintf(`{ kind = "opensm", hosts = ["127.0.0.1"], ssh_user = "sm", ssh_private_key = "not used at plan", known_hosts_file = %q }`, known),
		"ufm":    `{ kind = "ufm" }`,
	}
	fabricHCL := func(sm, partitions, pol string) string {
		return fmt.Sprintf(`
provider "gpucluster" {
  ufm = { url = %q, username = %q, password = %q, ca_file = %q }
}
`, u.URL, u.Username, u.Password, caFile) + simFabricHCL() + fmt.Sprintf(`
resource "gpucluster_fabric" "f" {
  name           = "sim"
  switches       = local.switches
  nodes          = local.nodes
  hcas           = local.hcas
  cables         = local.cables
  partitions     = { %s }
  subnet_manager = %s
  policy         = %s
}
`, partitions, sm, pol)
	}
	// gpu001/mlx5_0 is HCA 0; its port GUID is computed here from the fabric's GUID plan.
	hca0 := simHCAGUID(0)
	shared := `
    red  = { pkey = "0x0a0a", members = [{ hca = "gpu001/mlx5_0" }, { hca = "gpu002/mlx5_0" }] },
    blue = { pkey = "0x0b0b", members = [{ hca = "gpu003/mlx5_0" }, { guid = "` + hca0 + `" }] },`
	for _, kind := range []string{"opensm", "ufm"} {
		sm := targets[kind]
		t.Run(kind, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviders,
				Steps: []resource.TestStep{
					{
						// A GUID no HCA of the fabric has.
						Config:   fabricHCL(sm, `t = { pkey = "0x0201", members = [{ hca = "gpu001/mlx5_1" }, { guid = "0x0002c90300fffff1" }] },`, "null"),
						PlanOnly: true,
						ExpectError: tenantRe(`Partition policy: partition-member-not-hca`, `partitions["t"].members[1].guid:`,
							`member guid 0x0002c90300fffff1 is not the port GUID of any HCA of this fabric`, `hca = "<node>/<device>"`),
					},
					{
						// A switch's GUID: named as such.
						Config:      fabricHCL(sm, fmt.Sprintf(`t = { pkey = "0x0201", members = [{ guid = "0x%016x" }] },`, simSwitchGUIDBase+1), "null"),
						PlanOnly:    true,
						ExpectError: tenantRe(`partitions["t"].members[0].guid:`, `is the GUID of switch "spine01", not an HCA's port`),
					},
					{
						// gpu001/mlx5_0, by name in red and by GUID in blue, full in both: one error for the pair.
						Config:   fabricHCL(sm, shared, "null"),
						PlanOnly: true,
						ExpectError: tenantRe(`Partition policy: shared-full-member`, `partitions["red"].members[0].membership:`,
							`partitions "blue" and "red" share 1 full member(s): gpu001/mlx5_0.`, `membership = "limited"`,
							`policy.partitions.shared_full_members = true`),
					},
					{
						// The same with the policy's permission: it plans.
						Config:             fabricHCL(sm, shared, `{ partitions = { shared_full_members = true } }`),
						PlanOnly:           true,
						ExpectNonEmptyPlan: true,
					},
					{
						// A storage HCA must be a limited member.
						Config: fabricHCL(sm, `
    store = { pkey = "0x0c0c", members = [{ hca = "gpu008/mlx5_7" }, { hca = "gpu001/mlx5_0", membership = "limited" }] },`,
							`{ partitions = { storage_hcas = ["gpu008/mlx5_7"] } }`),
						PlanOnly: true,
						ExpectError: tenantRe(`Partition policy: storage-full-member`, `partitions["store"].members[0].membership:`,
							`gpu008/mlx5_7 is a storage HCA (policy.partitions.storage_hcas) and a full member of partition "store"`, `set membership = "limited"`),
					},
					{
						// A storage HCA the fabric does not have.
						Config: fabricHCL(sm, `t = { pkey = "0x0201", members = [{ hca = "gpu001/mlx5_0" }] },`,
							`{ partitions = { storage_hcas = ["nas01/mlx5_0"] } }`),
						PlanOnly:    true,
						ExpectError: tenantRe(`Partition policy: storage-hca-unknown`, `policy.partitions.storage_hcas[0]:`, `"nas01/mlx5_0" is not an HCA of this fabric`),
					},
					{
						Config:      fabricHCL(sm, `t = { pkey = "0x0000", members = [{ hca = "gpu001/mlx5_0" }] },`, "null"),
						PlanOnly:    true,
						ExpectError: tenantRe(`partitions["t"].pkey:`, `pkey 0x0000 is the invalid P_Key, which no port may hold`),
					},
					{
						Config:      fabricHCL(sm, `t = { pkey = "0x7fff", members = [{ hca = "gpu001/mlx5_0" }] },`, "null"),
						PlanOnly:    true,
						ExpectError: tenantRe(`partitions["t"].pkey:`, `pkey 0x7fff is OpenSM's default partition, which always exists and is not declared`),
					},
					{
						Config:      fabricHCL(sm, `t = { pkey = "0x8201", members = [{ hca = "gpu001/mlx5_0" }] },`, "null"),
						PlanOnly:    true,
						ExpectError: tenantRe(`partitions["t"].pkey:`, `pkey 0x8201 has the membership bit (0x8000) set; write the 15-bit key "0x0201"`),
					},
				},
			})
		})
	}
}
