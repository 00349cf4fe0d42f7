package opensm_test

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// The OpenSM files of a generated two-tier fat tree of 16 DGX H100 with one partition: the
// engine is chosen from the topology (ftree, with the spines as roots and every cabled HCA port
// a compute node), and partitions.conf carries the partition's MTU and rate as OpenSM's IBTA
// codes (4096 bytes is mtu=5, 400 Gb/s is rate=21).
func ExampleFromGraph() {
	cat := catalog.Default()
	d, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 16}, cat)
	if err != nil {
		fmt.Println(err)
		return
	}
	spec := d.FabricSpec()
	spec.Partitions = []fabric.Partition{{Name: "compute", PKey: "0x0001", IPoIB: true, MTU: 4096, RateGbps: 400,
		Members: []fabric.Member{{GUID: "ALL_CAS", Membership: "full"}}}}
	g, _ := fabric.Build(spec, cat)
	cfg, err := opensm.FromGraph(g, opensm.GraphOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	files, err := opensm.Render(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Println(cfg.RoutingEngine, names)
	fmt.Println(strings.Count(files[opensm.FileRootGUIDs], "0x"), "roots,", strings.Count(files[opensm.FileCNGUIDs], "0x"), "compute nodes")
	for _, line := range strings.Split(files[opensm.FilePartitions], "\n") {
		if line != "" && !strings.HasPrefix(line, "#") {
			fmt.Println(line)
		}
	}
	// Output:
	// ftree [cn_guids.conf node-name-map opensm.conf partitions.conf root_guids.conf torus-2QoS.conf]
	// 2 roots, 128 compute nodes
	// Default=0x7fff,ipoib : ALL=full ;
	// compute=0x0001,ipoib,mtu=5,rate=21 : ALL_CAS=full ;
}
