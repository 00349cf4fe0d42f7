package fabric

import (
	"fmt"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// FuzzBuild wires a small pool of devices at random, ports and names included, and checks that
// Build never panics and that what it returns keeps the package invariants.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{1, 1, 1, 1, 200, 200, 64, 65, 0, 0, 3, 3})
	cat := catalog.Default()
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &Spec{
			Racks:    []Rack{{Name: "r1", Units: 4, PowerKW: 5}, {Name: "r2", Row: 1}},
			Switches: []Switch{{Name: "s1", Model: "QM9700", Rack: "r1", PositionU: 1}, {Name: "s2", Model: "QM9790"}, {Name: "s3", Model: "bad"}},
			Nodes:    []Node{{Name: "n1", Model: "DGX-H100", Rack: "r2", PositionU: 1}, {Name: "n2", Model: "HGX-H100", ComputeHCAs: 1}},
		}
		names := []string{"s1", "s2", "s3", "n1/mlx5_0", "n1/mlx5_1", "n2/mlx5_0", "n2/mlx5_1", "", "zz"}
		for i := 0; i < 4; i++ {
			node := []string{"n1", "n2", "n3"}[i%3]
			s.HCAs = append(s.HCAs, HCA{Name: fmt.Sprintf("%s/mlx5_%d", node, i/3), Node: node, Rail: -1})
		}
		kinds := []string{"", "dac", "fiber-mm", "nope"}
		for i := 0; i+3 < len(data); i += 4 {
			s.Cables = append(s.Cables, Cable{
				A:       End{names[int(data[i])%len(names)], int(data[i+1]) - 2},
				B:       End{names[int(data[i+2])%len(names)], int(data[i+3]) % 70},
				Kind:    kinds[int(data[i+3])%len(kinds)],
				LengthM: float64(data[i+1] % 7),
			})
		}
		g, _ := Build(s, cat)
		used := map[[2]int]bool{}
		for _, l := range g.Links {
			for _, e := range [][2]int{{int(l.A), l.PortA}, {int(l.B), l.PortB}} {
				if used[e] {
					t.Fatalf("port %v carries two links", e)
				}
				used[e] = true
				if e[1] < 1 || e[1] > g.Devices[e[0]].Ports {
					t.Fatalf("port %v beyond the radix of %s", e, g.Devices[e[0]].Name)
				}
			}
		}
		if int(g.AdjStart[len(g.Devices)]) != 2*len(g.Links) {
			t.Fatal("adjacency does not hold every link twice")
		}
	})
}
