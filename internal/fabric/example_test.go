package fabric_test

import (
	"fmt"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// A leaf and a spine, one node with two HCAs on the leaf, one uplink; a second cable on a leaf
// port that is already taken is reported on its own attribute and left out, and the roles come
// from the levels counted from the HCAs.
func ExampleBuild() {
	spec := &fabric.Spec{
		Racks:    []fabric.Rack{{Name: "r01", Row: 1, Position: 1}},
		Switches: []fabric.Switch{{Name: "leaf01", Model: "QM9700", Rack: "r01", PositionU: 40}, {Name: "spine01", Model: "QM9700", Rack: "r01", PositionU: 41}},
		Nodes:    []fabric.Node{{Name: "gpu001", Model: "DGX-H100", Rack: "r01", PositionU: 2}},
		HCAs: []fabric.HCA{
			{Name: "gpu001/mlx5_0", Node: "gpu001", Device: "mlx5_0", Rail: 0},
			{Name: "gpu001/mlx5_1", Node: "gpu001", Device: "mlx5_1", Rail: 1},
		},
		Cables: []fabric.Cable{
			{Ref: fabric.Ref{Key: "a"}, A: fabric.End{Device: "leaf01", Port: 1}, B: fabric.End{Device: "gpu001/mlx5_0", Port: 1}},
			{Ref: fabric.Ref{Key: "b"}, A: fabric.End{Device: "leaf01", Port: 1}, B: fabric.End{Device: "gpu001/mlx5_1", Port: 1}},
			{Ref: fabric.Ref{Key: "c"}, A: fabric.End{Device: "leaf01", Port: 33}, B: fabric.End{Device: "spine01", Port: 1}},
		},
	}
	g, problems := fabric.Build(spec, catalog.Default())
	for _, d := range g.Devices {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s level %d %s", d.Name, d.Level, d.Role))) // HCAs have no role
	}
	fmt.Println(len(g.Links), "links")
	for _, p := range problems {
		fmt.Printf("%s on %s: %s\n", p.Rule, p.Path, p.Message)
	}
	// Output:
	// leaf01 level 1 leaf
	// spine01 level 2 spine
	// gpu001/mlx5_0 level 0
	// gpu001/mlx5_1 level 0
	// 2 links
	// port-reuse on cables["b"].a.port: leaf01 port 1 is already used by cables["a"]; each port takes one cable
	// uncabled on fabric: 1 devices have no cable and take no part in the fabric: "gpu001/mlx5_1"
}

// Cable labels are written and read in one place: the resource's label, absent_cables and the
// BOM all spell a cable this way.
func ExampleParseCableLabel() {
	a, b, err := fabric.ParseCableLabel("leaf01:33<->gpu001/mlx5_0:1")
	fmt.Println(a.Device, a.Port, b.Device, b.Port, err)
	fmt.Println(fabric.CableLabel(a, b))
	_, _, err = fabric.ParseCableLabel("leaf01:33 - spine01:1")
	fmt.Println(err)
	// Output:
	// leaf01 33 gpu001/mlx5_0 1 <nil>
	// leaf01:33 <-> gpu001/mlx5_0:1
	// "leaf01:33 - spine01:1" is not a cable label: no "<->" between the ends
}
