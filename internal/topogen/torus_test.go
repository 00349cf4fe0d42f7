package topogen

import (
	"fmt"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// TestTorusLayout: the layout the OpenSM rendering reads places every switch at the coordinates
// its name and its cables say: the switch at (x, y, z) is cabled from its + ports to the switch
// one step up each dimension, wrapping around. Other kinds have no layout.
func TestTorusLayout(t *testing.T) {
	d, err := Generate(Params{Kind: KindTorus3D, TorusDims: [3]int{4, 3, 2}, Nodes: 5}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	l := d.FabricSpec().Torus
	if l == nil || l.Dims != [3]int{4, 3, 2} || len(l.Switches) != 24 {
		t.Fatalf("layout %+v", l)
	}
	at := func(x, y, z int) string { return l.Switches[x%4+4*(y%3+3*(z%2))] }
	linked := map[[2]string]bool{}
	for _, c := range d.CableList {
		linked[[2]string{c.A.Device, c.B.Device}] = true
	}
	for z := 0; z < 2; z++ {
		for y := 0; y < 3; y++ {
			for x := 0; x < 4; x++ {
				s := at(x, y, z)
				if want := fmt.Sprintf("sw%d-%d-%d", x, y, z); s != want {
					t.Fatalf("switch at (%d,%d,%d) is %s, want %s", x, y, z, s, want)
				}
				for _, n := range []string{at(x+1, y, z), at(x, y+1, z), at(x, y, z+1)} {
					if !linked[[2]string{s, n}] {
						t.Errorf("%s has no cable to its + neighbour %s", s, n)
					}
				}
			}
		}
	}
	ft, err := Generate(Params{Kind: KindFatTree, Nodes: 4}, catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if ft.FabricSpec().Torus != nil {
		t.Fatal("a fat tree has no torus layout")
	}
}
