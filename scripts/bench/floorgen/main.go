// Command floorgen writes the floor of a rail-optimized design as `ibnetdiscover` text: the
// design the provider's generator makes (internal/topogen) for -sus scalable units built of
// -planned, in the text gpucluster_opensm_files.expected_topology holds (opensm.ExpectedTopology),
// which ibsim loads as is and gpucluster_discovered_fabric reads. It feeds the floor benchmarks of
// scripts/bench (see README.md there): a floor as the generator would cable it, read, fitted and
// grown.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

func main() {
	sus := flag.Int("sus", 64, "scalable units built")
	planned := flag.Int("planned", 0, "planned_scalable_units (0: -sus)")
	flag.Parse()
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: "rail-optimized", ScalableUnits: *sus, PlannedScalableUnits: *planned}, cat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floorgen:", err)
		os.Exit(1)
	}
	g, ps := fabric.Build(d.Spec(), cat)
	for _, p := range ps {
		fmt.Fprintln(os.Stderr, "floorgen:", p)
	}
	if g == nil {
		os.Exit(1)
	}
	fmt.Print(opensm.ExpectedTopology(g))
}
