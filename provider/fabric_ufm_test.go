package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// ufmHCAGUID is HCA h's port GUID as UFM writes it: 16 hex digits, no 0x (computed here from
// the fabric's GUID plan, simHCAGUIDBase + 0x10*h, not by the provider's code).
func ufmHCAGUID(h int) string { return strings.TrimPrefix(simHCAGUID(h), "0x") }

func ufmFabricHCL(u *testrig.UFM, caFile, partitions, smExtra string) string {
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
  subnet_manager = { kind = "ufm" %s }
}
`, partitions, smExtra)
}

// ufmHolds checks that UFM holds exactly these P_Keys with these GUID:membership members.
func ufmHolds(u *testrig.UFM, want map[uint16][]string) error {
	got := u.PKeys()
	for k, members := range want {
		p, ok := got[k]
		if !ok {
			return fmt.Errorf("UFM does not hold P_Key 0x%04x", k)
		}
		var have []string
		for _, g := range p.GUIDs {
			have = append(have, g.GUID+":"+g.Membership)
		}
		sort.Strings(have)
		sort.Strings(members)
		if strings.Join(have, " ") != strings.Join(members, " ") {
			return fmt.Errorf("UFM P_Key 0x%04x holds %v, want %v", k, have, members)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("UFM holds P_Key 0x%04x, which it should not", k)
		}
	}
	return nil
}

// TestAccFabricUFM applies a fabric's partitions to the UFM REST test service with the real
// terraform: apply, a GUID and then a whole PKey removed behind Terraform's back (drift in the
// plan, repaired by apply), an update, plan-time refusals, and a destroy that removes only the
// PKeys the fabric created.
func TestAccFabricUFM(t *testing.T) {
	requireAcc(t)
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	caFile := filepath.Join(t.TempDir(), "ufm-ca.pem")
	if err := os.WriteFile(caFile, []byte(u.CAPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	// Another team's PKey: never touched.
	u.SetPKey(0x0300, testrig.UFMPKey{Name: "other", IPoIB: true, MTULimit: 2, RateLimit: 2.5,
		GUIDs: []testrig.UFMGUID{{GUID: "0002c90300ffff01", Membership: "full"}}})
	other := []string{"0002c90300ffff01:full"}
	v1 := `
    tenant = {
      pkey = "0x0101", ipoib = true, mtu = 4096, rate = 200
      members = [{ hca = "gpu001/mlx5_0" }, { hca = "gpu001/mlx5_1", membership = "limited" }]
    },
    storage = { pkey = "0x0102", ipoib = true, mtu = 2048, members = [{ hca = "gpu002/mlx5_0" }] },`
	want1 := map[uint16][]string{0x7fff: nil, 0x0300: other,
		0x0101: {ufmHCAGUID(0) + ":full", ufmHCAGUID(1) + ":limited"},
		0x0102: {ufmHCAGUID(8) + ":full"}}
	v2 := `
    tenant = {
      pkey = "0x0101", ipoib = true, mtu = 4096, rate = 200
      members = [{ hca = "gpu001/mlx5_1" }, { hca = "gpu003/mlx5_2", membership = "limited" }]
    },`
	want2 := map[uint16][]string{0x7fff: nil, 0x0300: other,
		0x0101: {ufmHCAGUID(1) + ":full", ufmHCAGUID(18) + ":limited"}}
	holds := func(w map[uint16][]string) resource.TestCheckFunc {
		return func(*terraform.State) error { return ufmHolds(u, w) }
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: func(*terraform.State) error {
			return ufmHolds(u, map[uint16][]string{0x7fff: nil, 0x0300: other})
		},
		Steps: []resource.TestStep{
			{
				Config:      ufmFabricHCL(u, caFile, v1, `, hosts = ["127.0.0.1"]`),
				ExpectError: regexp.MustCompile(`Hosts are not used with UFM`),
			},
			{
				// 400 Gb/s is an IBTA rate OpenSM knows, but not one of UFM's rate_limit values.
				Config:      ufmFabricHCL(u, caFile, `fast = { pkey = "0x0104", ipoib = true, rate = 400, members = [{ hca = "gpu001/mlx5_0" }] },`, ""),
				ExpectError: regexp.MustCompile(`(?s)rate 400 Gb/s is not one UFM's rate_limit takes`),
			},
			{
				Config:      ufmFabricHCL(u, caFile, `bad = { pkey = "0x0103", members = [{ guid = "SELF" }] },`, ""),
				ExpectError: regexp.MustCompile(`(?s)OpenSM keyword;.*UFM takes port GUIDs only`),
			},
			{
				Config: ufmFabricHCL(u, caFile, v1, ""),
				Check: resource.ComposeAggregateTestCheckFunc(
					holds(want1),
					resource.TestCheckResourceAttr("gpucluster_fabric.f", "ufm_partitions.%", "2"),
					// MTU 2048 is UFM's default mtu_limit and reads back as the default, as planned.
					resource.TestCheckResourceAttr("gpucluster_fabric.f", "ufm_partitions.storage",
						"pkey=0x0102 ipoib=true index0=false mtu=0 rate=0 sl=0 members="+ufmHCAGUID(8)+":full"),
					resource.TestCheckResourceAttr("gpucluster_fabric.f", "ufm_partitions.tenant",
						"pkey=0x0101 ipoib=true index0=false mtu=4096 rate=200 sl=0 members="+ufmHCAGUID(0)+":full,"+ufmHCAGUID(1)+":limited"),
				),
			},
			{
				// A GUID removed behind Terraform's back: the refresh sees it, the plan puts it back.
				PreConfig: func() { u.RemoveGUID(0x0101, ufmHCAGUID(1)) },
				Config:    ufmFabricHCL(u, caFile, v1, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpucluster_fabric.f", plancheck.ResourceActionUpdate),
				}},
				Check: holds(want1),
			},
			{
				// A whole PKey removed behind Terraform's back, then made again.
				PreConfig: func() { u.RemovePKey(0x0102) },
				Config:    ufmFabricHCL(u, caFile, v1, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpucluster_fabric.f", plancheck.ResourceActionUpdate),
				}},
				Check: holds(want1),
			},
			{
				// Members change, storage is no longer declared: the fabric created it, so it goes.
				Config: ufmFabricHCL(u, caFile, v2, ""),
				Check:  holds(want2),
			},
			{
				// A half-failed apply: tenant is updated, then creating storage fails with a 500.
				PreConfig:   func() { u.FailNext(1, 500, "POST /resources/pkeys/add") },
				Config:      ufmFabricHCL(u, caFile, v1, ""),
				ExpectError: regexp.MustCompile(`(?s)Applying the partitions to UFM failed.*500`),
			},
			{
				// The state said what UFM held (tenant done, no storage): the plan shows only
				// storage, and the apply finishes the batch.
				PreConfig: func() {
					if err := ufmHolds(u, map[uint16][]string{0x7fff: nil, 0x0300: other, 0x0101: want1[0x0101]}); err != nil {
						t.Errorf("after the half-failed apply: %v", err)
					}
				},
				Config: ufmFabricHCL(u, caFile, v1, ""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gpucluster_fabric.f", plancheck.ResourceActionUpdate),
				}},
				Check: holds(want1),
			},
		},
	})
}

// TestAccFabricUFMSettings: the kind and the provider's settings disagree (refused at plan with
// the attribute at fault), and token authentication end to end.
func TestAccFabricUFMSettings(t *testing.T) {
	requireAcc(t)
	u := testrig.StartUFM(t, testrig.UFMOptions{})
	caFile := filepath.Join(t.TempDir(), "ufm-ca.pem")
	if err := os.WriteFile(caFile, []byte(u.CAPEM), 0o600); err != nil {
		t.Fatal(err)
	}
	var fabric func(partitions, sm string) string
	fabricOnly := func(sm string) string {
		return fabric(`{ t = { pkey = "0x0201", members = [{ hca = "gpu001/mlx5_0" }] } }`, sm)
	}
	fabric = func(partitions, sm string) string {
		return simFabricHCL() + fmt.Sprintf(`
resource "gpucluster_fabric" "f" {
  name           = "sim"
  switches       = local.switches
  nodes          = local.nodes
  hcas           = local.hcas
  cables         = local.cables
  partitions     = %s
  subnet_manager = %s
}
`, partitions, sm)
	}
	withToken := fmt.Sprintf(`
provider "gpucluster" {
  ufm = { url = %q, token = %q, ca_file = %q }
}
`, u.URL, u.Token, caFile)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		CheckDestroy: func(*terraform.State) error {
			return ufmHolds(u, map[uint16][]string{0x7fff: nil})
		},
		Steps: []resource.TestStep{
			{
				Config:      fabricOnly(`{ kind = "ufm" }`),
				ExpectError: regexp.MustCompile(`(?s)No UFM configured.*provider's ufm`),
			},
			{
				Config:      fabricOnly(`{ kind = "opensm" }`),
				ExpectError: regexp.MustCompile(`(?s)No subnet manager hosts.*kind = "ufm"`),
			},
			{
				Config:      fabricOnly(`{ kind = "sm" }`),
				ExpectError: regexp.MustCompile(`(?s)kind.*value must be one of`),
			},
			{
				// An SL without OpenSM's qos option: OpenSM would override it with 0, so its files
				// are not rendered (a warning), but UFM takes the SL through qos_conf.
				Config: withToken + fabric(`{ t = { pkey = "0x0201", sl = 1, members = [{ hca = "gpu001/mlx5_0" }] } }`, `{ kind = "ufm" }`),
				Check: resource.TestCheckResourceAttr("gpucluster_fabric.f", "ufm_partitions.t",
					"pkey=0x0201 ipoib=false index0=false mtu=0 rate=0 sl=1 members="+ufmHCAGUID(0)+":full"),
			},
			{
				Config: withToken + fabricOnly(`{ kind = "ufm" }`),
				Check: func(*terraform.State) error {
					for _, r := range u.Requests() {
						if strings.HasPrefix(r, "POST ") {
							return ufmHolds(u, map[uint16][]string{0x7fff: nil, 0x0201: {ufmHCAGUID(0) + ":full"}})
						}
					}
					return fmt.Errorf("no request reached UFM with the token")
				},
			},
		},
	})
}
