package bmc_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bmc"
)

// What can be checked before any BMC is reached: an account name IPMI cannot carry (its user
// name field holds 16 bytes) is refused at plan while IPMI is a fallback, and BIOS values compare
// by meaning, as BMCs print them back.
func ExampleCheckUserName() {
	fmt.Println(bmc.CheckUserName("provisioning-automation", []string{"redfish", "ipmi"}) != "")
	fmt.Println(bmc.CheckUserName("provisioning-automation", []string{"redfish"}) == "")
	fmt.Println(bmc.SameBIOSValue("Enabled", "enabled"), bmc.SameBIOSValue("4", "4.0"), bmc.SameBIOSValue("4", "5"))
	// Output:
	// true
	// true
	// true true false
}
