package topogen_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// A rail-optimized SuperPOD of two scalable units, as NVIDIA's DGX SuperPOD reference
// architecture (RA-11333-001) builds it: per SU one leaf per rail (8) with 32 nodes under it,
// each leaf's 32 uplinks spread over the spines. 16 leaves x 32 uplinks need 8 spines of 64
// ports; 64 nodes x 8 HCAs are 512 node links, and 512 leaf-spine links join them.
func ExampleGenerate() {
	d, err := topogen.Generate(topogen.Params{
		Kind:              topogen.KindRailOptimized,
		ScalableUnits:     2,
		ReservedNodeSlots: 0,
	}, catalog.Default())
	if err != nil {
		fmt.Println(err)
		return
	}
	roles := map[string]int{}
	for _, s := range d.SwitchList {
		roles[s.Role]++
	}
	fmt.Println("tiers:", d.Tiers)
	fmt.Println("leaves:", roles["leaf"], "spines:", roles["spine"])
	fmt.Println("nodes:", len(d.NodeList), "HCAs:", len(d.HCAList))
	fmt.Println("cables:", len(d.CableList))
	fmt.Println("first node cable:", d.CableKeys[0])
	// Output:
	// tiers: 2
	// leaves: 16 spines: 8
	// nodes: 64 HCAs: 512
	// cables: 1024
	// first node cable: gpu001/mlx5_0:1
}

// A size the switches cannot hold is refused on the argument at fault, with the nearest size
// that builds.
func ExampleGenerate_refused() {
	_, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 100000, Tiers: 2}, catalog.Default())
	fmt.Println(err)
	// Output:
	// node_count: 2 tiers of 64-port QM9700 at 32:32 hold 2048 endpoints (64 leaves, r*d); the plan needs 800000 (25000 leaves); nearest buildable: at most 256 nodes of 8 HCAs, or tiers = 3
}
