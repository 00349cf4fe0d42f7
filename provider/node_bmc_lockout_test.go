package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
)

// TestAccNodeBMCLockout (issue 22, item 3) on the Redfish rig: a bmc_users entry that would
// demote the provider's own login (here the provider's bmc = { username }) is refused at plan on
// its role; when the login was demoted anyway (an earlier provider, someone at the BMC), the
// apply that the BMC refuses says the role is too low and how to restore it; when the login was
// disabled, the refresh that the BMC refuses says the account changed since it last worked and
// how to recover. Restored out of band, the next plan works again.
func TestAccNodeBMCLockout(t *testing.T) {
	requireAcc(t)
	rig := testrig.StartRedfish(t, testrig.RedfishOptions{})
	words := func(s string) *regexp.Regexp {
		return regexp.MustCompile(regexp.MustCompile(` +`).ReplaceAllString(regexp.QuoteMeta(s), `[\s│]+`))
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviders,
		Steps: []resource.TestStep{
			{
				Config:      rfNode(rig, `  bmc_users = [{ name = `+hclString(rig.Username)+`, role = "ReadOnly", password = "N3w-Passw0rd" }]`),
				PlanOnly:    true,
				ExpectError: words(`bmc_users[0].role: "` + rig.Username + `" is the account the provider logs in with to this BMC, and role "ReadOnly" would lock the provider out`),
			},
			{
				Config:      rfNode(rig, `  bmc_users = [{ name = `+hclString(rig.Username)+`, role = "None", password = "N3w-Passw0rd" }]`),
				PlanOnly:    true,
				ExpectError: words(`role "None" (no access: the account disabled) would lock the provider out`),
			},
			{Config: rfNode(rig, `  power_state = "on"`)},
			{
				PreConfig:   func() { rig.SetAccountOutOfBand(rig.Username, "ReadOnly", true) },
				Config:      rfNode(rig, `  power_state = "off"`),
				ExpectError: words(`The BMC accepted the provider's login "` + rig.Username + `" but refused the operation: the account's role is too low for it`),
			},
			{
				PreConfig:   func() { rig.SetAccountOutOfBand(rig.Username, "Administrator", false) },
				Config:      rfNode(rig, `  power_state = "off"`),
				ExpectError: words(`The BMC refused the provider's login "` + rig.Username + `", which it accepted before`),
			},
			{
				PreConfig: func() { rig.SetAccountOutOfBand(rig.Username, "Administrator", true) },
				Config:    rfNode(rig, `  power_state = "off"`),
				Check:     rigCheck(func() error { return nil }),
			},
		},
	})
	if rig.PowerState() != "Off" {
		t.Errorf("power %s after the login was restored and the apply ran", rig.PowerState())
	}
}
