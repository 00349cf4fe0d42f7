// Command lightfloor writes the floor of the cable validation benchmark (firstlight.sh, see
// README.md there) as `ibnetdiscover` text: the 2,048-node fat tree of
// examples/clusters/large-fabric (-nodes, -tiers) as the generator cables it, in the text
// gpucluster_opensm_files.expected_topology holds (opensm.ExpectedTopology), under the floor's
// own names and GUIDs and with one swap (own.go), so that the validation matches the floor to the
// design by links and finds exactly one row.
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
	nodes := flag.Int("nodes", 2048, "node_count of the fat tree")
	tiers := flag.Int("tiers", 3, "tiers")
	flag.Parse()
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: *nodes, Tiers: *tiers}, cat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lightfloor:", err)
		os.Exit(1)
	}
	g, ps := fabric.Build(d.Spec(), cat)
	for _, p := range ps {
		fmt.Fprintln(os.Stderr, "lightfloor:", p)
	}
	if g == nil {
		os.Exit(1)
	}
	text, err := ownFloor(opensm.ExpectedTopology(g))
	if err != nil {
		fmt.Fprintln(os.Stderr, "lightfloor:", err)
		os.Exit(1)
	}
	fmt.Print(text)
}
