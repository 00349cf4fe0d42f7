package asbuilt_test

import (
	"fmt"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/asbuilt"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

// Read names devices by their descriptions, or by the node name map where it has their GUID,
// and says once what it could not know.
func ExampleRead() {
	text := `
vendid=0x2c9
devid=0xd2f2
switchguid=0xb83fd20300a1b2c3(b83fd20300a1b2c3)
Switch	64 "S-b83fd20300a1b2c3"		# "MF0;ib-leaf-07:MQM9700/U1" enhanced port 0 lid 12 lmc 0
[33]	"H-a088c20300112233"[1](a088c20300112233) 		# "hgx-a001 mlx5_0" lid 40 4xNDR
[1]	"S-b83fd20300a1b2c4"[5]		# "MF0;switch-a1b2c4:MQM9700/U1" lid 13 4xNDR

vendid=0x2c9
devid=0xd2f2
switchguid=0xb83fd20300a1b2c4(b83fd20300a1b2c4)
Switch	64 "S-b83fd20300a1b2c4"		# "MF0;switch-a1b2c4:MQM9700/U1" enhanced port 0 lid 13 lmc 0
[5]	"S-b83fd20300a1b2c3"[1]		# "MF0;ib-leaf-07:MQM9700/U1" lid 12 4xNDR

vendid=0x2c9
devid=0x1021
caguid=0xa088c20300112233
Ca	1 "H-a088c20300112233"		# "hgx-a001 mlx5_0"
[1](a088c20300112233) 	"S-b83fd20300a1b2c3"[33]		# lid 40 lmc 0 "MF0;ib-leaf-07:MQM9700/U1" lid 12 4xNDR
`
	d, err := opensm.ParseTopology(text)
	if err != nil {
		panic(err)
	}
	nameMap, err := opensm.ParseNodeNameMap(`0xb83fd20300a1b2c4 "ib-spine-01"` + "\n")
	if err != nil {
		panic(err)
	}
	floor, err := asbuilt.Read(d, asbuilt.ReadOptions{NodeNameMap: nameMap})
	if err != nil {
		panic(err)
	}
	for _, s := range floor.Spec.Switches {
		fmt.Println("switch", s.Name, s.Model, s.GUID)
	}
	for _, h := range floor.Spec.HCAs {
		fmt.Println("hca", h.Name, "on node", h.Node, h.PortGUID)
	}
	for i, c := range floor.Spec.Cables {
		fmt.Println("cable", c.Key, "=", c.Label(), floor.Links[i].Width+floor.Links[i].Speed)
	}
	fmt.Println(floor.Notes[0])
	// Output:
	// switch ib-leaf-07 QM9700 0xb83fd20300a1b2c3
	// switch ib-spine-01 QM9700 0xb83fd20300a1b2c4
	// hca hgx-a001/mlx5_0 on node hgx-a001 0xa088c20300112233
	// cable hgx-a001/mlx5_0:1 = hgx-a001/mlx5_0:1 <-> ib-leaf-07:33 4xNDR
	// cable ib-leaf-07:1 = ib-leaf-07:1 <-> ib-spine-01:5 4xNDR
	// location unknown for 2 switches and 1 nodes: cable reach and rack power are not checked (give them rack and position_u to check)
}

// smallFloor is four DGX H100 on one switch, cabled by hand: host names of their own, the
// nodes' HCAs on the switch's ports from the top down, and one cable missing (h4's last HCA).
func smallFloor() *fabric.Spec {
	s := &fabric.Spec{Switches: []fabric.Switch{{Name: "edge", Model: "QM9700", GUID: "0xb83fd20300000001"}}}
	port := 64
	for n := 1; n <= 4; n++ {
		node := fmt.Sprintf("h%d", n)
		s.Nodes = append(s.Nodes, fabric.Node{Name: node, Model: "DGX-H100"})
		for i := 0; i < 8; i++ {
			hca := fabric.HCA{Name: fmt.Sprintf("%s/mlx5_%d", node, i), Node: node, Device: fmt.Sprintf("mlx5_%d", i), Rail: -1,
				PortGUID: fmt.Sprintf("0xa088c203000000%d%d", n, i)}
			s.HCAs = append(s.HCAs, hca)
			if n == 4 && i == 7 {
				continue
			}
			s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: hca.Name, Port: 1}, B: fabric.End{Device: "edge", Port: port}})
			port--
		}
	}
	return s
}

// Fit lays a generated design over the floor by the links devices have: the design's one
// switch and four nodes take the floor's names and GUIDs (the slots in the order of the floor's
// names), every floor cable stays on its ports (the floor numbers them down from 64, not the
// generator's way, and that is no deviation), and the missing cable is added on the port the
// floor's own numbering gives it, next to its node's other cables.
func ExampleFit() {
	cat := catalog.Default()
	design, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 4}, cat)
	if err != nil {
		panic(err)
	}
	fit, err := asbuilt.Fit(design, smallFloor(), cat)
	if err != nil {
		panic(err)
	}
	r := fit.Report
	fmt.Printf("matched %d, unmatched %d; kept %d of at most %d, moved %d, added %d, removed %d\n",
		r.DevicesMatched, len(r.DevicesUnmatched), r.LinksKept, r.LinksKeptMax, r.LinksMoved, r.LinksAdded, r.LinksRemoved)
	fmt.Println(r.Deviations)
	fmt.Println(fit.Spec.Switches[0].Name, fit.Spec.Switches[0].GUID)
	for i, n := range fit.Spec.Nodes {
		fmt.Printf("%s takes %s's place\n", n.Name, design.NodeList[i].Name)
	}
	// Output:
	// matched 37, unmatched 0; kept 31 of at most 31, moved 0, added 1, removed 0
	// [add h4/mlx5_7:1 <-> edge:33]
	// edge 0xb83fd20300000001
	// h1 takes gpu001's place
	// h2 takes gpu002's place
	// h3 takes gpu003's place
	// h4 takes gpu004's place
}

// WorkOrder turns the fit into the technicians' rows (gpucluster_bom's cabling_changes_csv):
// here the one cable to add, with the link that shares its cages (the node's twin-port cage of
// mlx5_6 and mlx5_7, the switch's cage 17 of ports 33 and 34), named at each.
func ExampleFitted_WorkOrder() {
	cat := catalog.Default()
	design, err := topogen.Generate(topogen.Params{Kind: topogen.KindFatTree, Nodes: 4}, cat)
	if err != nil {
		panic(err)
	}
	fit, err := asbuilt.Fit(design, smallFloor(), cat)
	if err != nil {
		panic(err)
	}
	changes, err := fit.WorkOrder(cat)
	if err != nil {
		panic(err)
	}
	for _, c := range changes {
		fmt.Println(c.Action, c.Row.A.Endpoint(), "->", c.Row.B.Endpoint(), "port", c.Row.B.PortName(), "also takes down", c.Also)
	}
	// Output:
	// add h4/mlx5_7:1 -> edge:33 port 17/1 also takes down [h4/mlx5_6:1 edge:34]
}
