package hca_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/hca"
)

// What `mlxconfig -d DEV -e query` prints, read: a parameter whose Next Boot value differs from
// its Current one waits for a reboot or a firmware reset; values compare by meaning, so "true",
// "1" and "True(1)" are one value of a boolean.
func ExampleParseQuery() {
	out := `
Device #1:
----------

Device type:        ConnectX7
Name:               MCX75310AAS-NEAT_Ax
Device:             /dev/mst/mt4129_pciconf0

Configurations:                              Default         Current         Next Boot
*        LINK_TYPE_P1                        ETH(2)          IB(1)           IB(1)
*        SRIOV_EN                            False(0)        False(0)        True(1)
         NUM_OF_VFS                          0               0               0
`
	cfg, err := hca.ParseQuery(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(cfg.DeviceType, cfg.Device, cfg.Columns)
	for _, name := range cfg.Order {
		p := cfg.Params[name]
		fmt.Printf("%s next %s, pending %v\n", name, p.Next.Raw, p.Pending())
	}
	v, _ := hca.Normalize("SRIOV_EN", "true")
	fmt.Println(v)
	// Output:
	// ConnectX7 /dev/mst/mt4129_pciconf0 [Default Current Next Boot]
	// LINK_TYPE_P1 next IB(1), pending false
	// SRIOV_EN next True(1), pending true
	// NUM_OF_VFS next 0, pending false
	// True(1)
}
