// Command floorgen writes the floor of a generated design as `ibnetdiscover` text: the design
// the provider's generator makes (internal/topogen) for -kind with -sus scalable units built of
// -planned (rail-optimized) or -nodes nodes in -tiers tiers (fat-tree), in the text
// gpucluster_opensm_files.expected_topology holds (opensm.ExpectedTopology), which ibsim loads as
// is and gpucluster_discovered_fabric reads. It feeds the floor benchmarks of scripts/bench (see
// README.md there): a floor as the generator would cable it, read, fitted and grown; with -own,
// the same floor as a site would name it, with one swap, for the cable validation (own.go).
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
	kind := flag.String("kind", topogen.KindRailOptimized, "the topology's kind")
	sus := flag.Int("sus", 64, "scalable units built (rail-optimized)")
	planned := flag.Int("planned", 0, "planned_scalable_units (rail-optimized; 0: -sus)")
	nodes := flag.Int("nodes", 0, "node_count (fat-tree)")
	tiers := flag.Int("tiers", 0, "tiers (0: the fewest that hold the design)")
	own := flag.Bool("own", false, "the floor's own names and GUIDs, and the first leaf's ports 1 and 2 swapped")
	flag.Parse()
	cat := catalog.Default()
	p := topogen.Params{Kind: *kind, Nodes: *nodes, Tiers: *tiers}
	if *kind == topogen.KindRailOptimized {
		p.ScalableUnits, p.PlannedScalableUnits = *sus, *planned
	}
	d, err := topogen.Generate(p, cat)
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
	text := opensm.ExpectedTopology(g)
	if *own {
		if text, err = ownFloor(text); err != nil {
			fmt.Fprintln(os.Stderr, "floorgen:", err)
			os.Exit(1)
		}
	}
	fmt.Print(text)
}
