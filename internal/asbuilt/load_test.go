package asbuilt

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/inputfile"
)

// sparseFile makes a file of size bytes that costs no disk.
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "big")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A topology file or node name map over its cap is refused before it is read, with an error
// about that input that names the file, its size and the cap.
func TestLoadRefusesFilesOverTheirCaps(t *testing.T) {
	h := issueFloor()
	net, nnm := writeFile(t, h.net()), writeFile(t, h.nodeNameMap())
	bigTopo, bigMap := sparseFile(t, 100<<20), sparseFile(t, 20<<20)
	for _, tc := range []struct {
		name, topo, nnm string
		input           Input
		want            string
	}{
		{"topology", bigTopo, nnm, InputTopology, `"` + bigTopo + `" is 100 MiB, more than 64 MiB, the most the provider reads`},
		{"node name map", net, bigMap, InputNodeNameMap, `"` + bigMap + `" is 20 MiB, more than 16 MiB, the most the provider reads`},
	} {
		l, err := LoadFile(tc.topo, tc.nnm, ReadOptions{Simulated: true})
		var le *LoadError
		var tl *inputfile.TooLargeError
		if l == nil || !errors.As(err, &le) || le.Input != tc.input || !errors.As(err, &tl) {
			t.Errorf("%s: %v; want a LoadError about input %d holding a TooLargeError", tc.name, err, tc.input)
		} else if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %q; want it to say %q", tc.name, err, tc.want)
		}
	}
}

// LoadFile reads what LoadText reads from the same text, and both read what Read does; lines
// that cannot be parsed are in Unparsed, and a node name map that cannot be read is an error
// about it, with Unparsed kept for the caller.
func TestLoadReadsTheFloor(t *testing.T) {
	h := issueFloor()
	net, nnm := h.net(), writeFile(t, h.nodeNameMap())
	want := readFloor(t, h, true)
	fromFile, err := LoadFile(writeFile(t, net), nnm, ReadOptions{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	fromText, err := LoadText(net, nnm, ReadOptions{Simulated: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []*Loaded{fromFile, fromText} {
		if l.Text != net || l.Unparsed != nil || len(l.Discovered.Nodes) == 0 || !reflect.DeepEqual(l.Floor, want) {
			t.Errorf("Loaded: text %d bytes, unparsed %v, %d nodes; floor equal to Read's: %v",
				len(l.Text), l.Unparsed, len(l.Discovered.Nodes), reflect.DeepEqual(l.Floor, want))
		}
	}

	l, err := LoadText(net+"this is not ibnetdiscover\n", writeFile(t, "zz \"x\"\n"), ReadOptions{Simulated: true})
	var le *LoadError
	if !errors.As(err, &le) || le.Input != InputNodeNameMap || l.Unparsed == nil || l.Floor != nil {
		t.Errorf("bad node name map after a bad line: %v, unparsed %v", err, l.Unparsed)
	}
}

// A node's devices are the floor's when there are as many as its compute HCAs, else the
// driver's defaults; a node without a count takes the floor's, then its catalog model's.
func TestNodeHCADevices(t *testing.T) {
	spec := &fabric.Spec{HCAs: []fabric.HCA{{Node: "a", Device: "mlx5_4"}, {Node: "a", Device: "mlx5_5"}, {Node: "b", Device: "mlx5_0"}}}
	for _, tc := range []struct {
		nd    fabric.Node
		model string
		want  []string
	}{
		{fabric.Node{Name: "a"}, "", []string{"mlx5_4", "mlx5_5"}},
		{fabric.Node{Name: "a", ComputeHCAs: 2}, "", []string{"mlx5_4", "mlx5_5"}},
		{fabric.Node{Name: "a", ComputeHCAs: 3}, "", []string{"mlx5_0", "mlx5_1", "mlx5_2"}},
		{fabric.Node{Name: "c"}, "DGX-H100", fabric.DefaultHCADevices(8)},
		{fabric.Node{Name: "c"}, "no such model", nil},
	} {
		if got := NodeHCADevices(spec, &tc.nd, nil, tc.model); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v (%s): %q, want %q", tc.nd, tc.model, got, tc.want)
		}
	}
}

// Summary is the floor counted for people, with thousands separators.
func TestSummary(t *testing.T) {
	s := &fabric.Spec{Switches: make([]fabric.Switch, 96), Nodes: make([]fabric.Node, 256), HCAs: make([]fabric.HCA, 2048), Cables: make([]fabric.Cable, 4096)}
	if got, want := Summary(s), "96 switches, 256 nodes, 2,048 HCAs, 4,096 cables"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}
