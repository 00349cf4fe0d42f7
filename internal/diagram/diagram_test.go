package diagram

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/testrig"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/topogen"
)

var fabrics = []struct {
	name string
	p    topogen.Params
}{
	{"fat-tree-2tier", topogen.Params{Kind: topogen.KindFatTree, Nodes: 16}},
	{"fat-tree-3tier-3to1", topogen.Params{Kind: topogen.KindFatTree, Nodes: 300, Oversubscription: 3, Tiers: 3}},
	{"superpod-4su", topogen.Params{Kind: topogen.KindRailOptimized, ScalableUnits: 4, ReservedNodeSlots: 1, CableKind: catalog.KindFiberMM}},
}

func generate(t testing.TB, p topogen.Params) (*topogen.Design, *fabric.Graph) {
	t.Helper()
	return testrig.Generate(t, p)
}

func diagramOf(t testing.TB, name string, g *fabric.Graph) *Diagram {
	t.Helper()
	r := analysis.Analyze(g, nil)
	dg, err := Build(g, Options{Title: name, NodeGroups: g.Spec.Groups, Highlights: FromAnalysis(r, 1)})
	if err != nil {
		t.Fatal(err)
	}
	return dg
}

func TestSuperPODBundlesAndFolding(t *testing.T) {
	_, g := generate(t, fabrics[2].p)
	dg := diagramOf(t, "pod", g)
	if len(dg.Rows[0]) != 4 || dg.Folded != "per scalable unit or group" {
		t.Fatalf("node row %d boxes folded %q; want the 4 SUs", len(dg.Rows[0]), dg.Folded)
	}
	if len(dg.Rows[1]) != 32 || len(dg.Rows[2]) != 16 {
		t.Errorf("rows: %d leaves, %d spines; want 32 and 16", len(dg.Rows[1]), len(dg.Rows[2]))
	}
	leafSpine, links := 0, 0
	for _, b := range dg.Bundles {
		a, z := dg.Boxes[b.A], dg.Boxes[b.B]
		links += b.Links
		switch {
		case a.Tier == 2 && z.Tier == 1:
			leafSpine++
			// 32 uplinks per leaf over 16 spines: 2 per pair (RA-11333-001), drawn once.
			if b.Links != 2 || b.Gbps != 800 {
				t.Errorf("%s–%s: %d links %g Gb/s, want 2 and 800", a.Label, z.Label, b.Links, b.Gbps)
			}
		case a.Label == "leaf01" && z.Label == "su01":
			if b.Links != 31 || dg.BundleLabel(b) != "31 × 400G = 12400 Gb/s" {
				t.Errorf("su01–leaf01: %q, want 31 links (SU 1 has 31 nodes)", dg.BundleLabel(b))
			}
		}
	}
	if leafSpine != 512 || links != len(g.Links) {
		t.Errorf("%d leaf-spine bundles carrying %d links in all; want 512 and the graph's %d", leafSpine, links, len(g.Links))
	}
	if !strings.Contains(dg.Boxes[dg.Rows[0][0]].Detail, "gpu[001-031]: 31 × DGX-H100") {
		t.Errorf("su01 box detail %q", dg.Boxes[dg.Rows[0][0]].Detail)
	}
}

func TestSmallFabricOneBoxPerNode(t *testing.T) {
	_, g := generate(t, fabrics[0].p)
	dg := diagramOf(t, "small", g)
	if dg.Folded != "" || len(dg.Rows[0]) != 16 {
		t.Errorf("16 nodes: folded %q, %d node boxes; want one box per node", dg.Folded, len(dg.Rows[0]))
	}
}

// An oversubscribed 3:1 tree: every leaf is highlighted, and the witness cut's bundles are red.
func TestHighlights(t *testing.T) {
	_, g := generate(t, fabrics[1].p)
	dg := diagramOf(t, "3:1", g)
	over, cut := 0, 0
	for _, b := range dg.Boxes {
		if b.Over > 0 {
			over++
			if b.Tier != 1 || !strings.Contains(b.Detail, "3:1 oversubscribed") {
				t.Errorf("%s (tier %d) highlighted: %s", b.Label, b.Tier, b.Detail)
			}
		}
	}
	for _, b := range dg.Bundles {
		if b.Cut {
			cut++
		}
	}
	if over != 50 || cut == 0 {
		t.Errorf("%d oversubscribed boxes (want the 50 leaves), %d cut bundles (want some)", over, cut)
	}
	dot := dg.DOT()
	if !strings.Contains(dot, `fillcolor="`+colOver+`"`) || !strings.Contains(dot, `color="`+colCut+`"`) {
		t.Error("DOT lacks the highlight colours")
	}
}

// The DOT, rendered by the real Graphviz: it parses, every switch is a node, the tiers are ranks
// (one y per tier, the higher tier above), and each bundle is one edge.
func TestDOTWithGraphviz(t *testing.T) {
	testrig.RequirePeers(t)
	bin := testrig.Need(t, "dot", "graphviz")
	for _, f := range fabrics {
		t.Run(f.name, func(t *testing.T) {
			_, g := generate(t, f.p)
			dg := diagramOf(t, f.name, g)
			cmd := exec.Command(bin, "-Tplain")
			cmd.Stdin = strings.NewReader(dg.DOT())
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("dot: %v\n%s", err, stderr.String())
			}
			ys := map[string]float64{}
			edges := 0
			for _, line := range strings.Split(string(out), "\n") {
				fs := strings.Fields(line)
				if len(fs) > 4 && fs[0] == "node" {
					y, _ := strconv.ParseFloat(fs[3], 64)
					ys[strings.Trim(fs[1], `"`)] = y
				}
				if len(fs) > 0 && fs[0] == "edge" {
					edges++
				}
			}
			tierY := map[int]float64{}
			for _, b := range dg.Boxes {
				y, ok := ys[b.ID]
				if !ok {
					t.Errorf("dot has no node %s", b.ID)
					continue
				}
				if ty, seen := tierY[b.Tier]; seen && ty != y {
					t.Errorf("%s at y %g, its tier %d at %g: not one rank", b.ID, y, b.Tier, ty)
				}
				tierY[b.Tier] = y
			}
			for tier := 1; tier < len(dg.Rows); tier++ {
				if tierY[tier] <= tierY[tier-1] {
					t.Errorf("tier %d (y %g) not above tier %d (y %g)", tier, tierY[tier], tier-1, tierY[tier-1])
				}
			}
			if edges != len(dg.Bundles) {
				t.Errorf("dot drew %d edges for %d bundles", edges, len(dg.Bundles))
			}
			for i := 0; i < g.NumSwitches(); i++ {
				if _, ok := ys[g.Devices[i].Name]; !ok {
					t.Errorf("switch %s missing from dot's layout", g.Devices[i].Name)
				}
			}
		})
	}
}

func TestSVGDeterministicAndWellFormed(t *testing.T) {
	_, g := generate(t, fabrics[2].p)
	a, b := diagramOf(t, "pod", g).SVG(), diagramOf(t, "pod", g).SVG()
	if a != b {
		t.Fatal("two renderings of the same fabric differ")
	}
	dec := xml.NewDecoder(strings.NewReader(a))
	for {
		if _, err := dec.Token(); err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("SVG is not well-formed XML: %v", err)
			}
			break
		}
	}
}

// The provider's own SVG in a real headless Chromium: every switch name is in the rendered DOM
// text, and the screenshot is not blank.
func TestSVGInChromium(t *testing.T) {
	testrig.RequirePeers(t)
	for _, f := range []int{0, 2} {
		f := fabrics[f]
		t.Run(f.name, func(t *testing.T) {
			_, g := generate(t, f.p)
			svg := diagramOf(t, f.name, g).SVG()
			file := filepath.Join(t.TempDir(), "fabric.svg")
			if err := os.WriteFile(file, []byte(svg), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := testrig.ChromiumDumpDOM(t, file)
			for i := 0; i < g.NumSwitches(); i++ {
				name := g.Devices[i].Name
				if !strings.Contains(dom, ">"+name+"</text>") {
					t.Errorf("switch %s is not in the rendered DOM text", name)
				}
			}
			shot := testrig.ChromiumScreenshot(t, file, 1600, 1000)
			img, err := png.Decode(bytes.NewReader(shot))
			if err != nil {
				t.Fatalf("screenshot is no PNG: %v", err)
			}
			bnd := img.Bounds()
			ink := 0
			for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
				for x := bnd.Min.X; x < bnd.Max.X; x++ {
					r, g, b, _ := img.At(x, y).RGBA()
					if r < 0xf000 || g < 0xf000 || b < 0xf000 {
						ink++
					}
				}
			}
			total := bnd.Dx() * bnd.Dy()
			if bnd.Dx() != 1600 || ink*100 < total {
				t.Errorf("screenshot %dx%d has %d non-white pixels of %d; want at least 1%%", bnd.Dx(), bnd.Dy(), ink, total)
			}
			t.Logf("%s: %d of %d pixels inked", f.name, ink, total)
		})
	}
}

// An access-link witness (every switch on one side, some HCAs moved across, as the analysis
// returns for the SuperPOD) marks exactly the node-leaf bundles that carry a moved HCA's link.
func TestAccessLinkCutHighlighted(t *testing.T) {
	_, g := generate(t, fabrics[2].p)
	moved := []string{"gpu001/mlx5_0", "gpu001/mlx5_1", "gpu040/mlx5_7"} // rails 0 and 1 of SU 1, rail 7 of SU 2
	dg, err := Build(g, Options{NodeGroups: g.Spec.Groups, Highlights: &Highlights{CutEndpoints: moved, CutLabel: "witness cut: test"}})
	if err != nil {
		t.Fatal(err)
	}
	var cut []string
	for _, b := range dg.Bundles {
		if b.Cut {
			cut = append(cut, dg.Boxes[b.A].Label+"-"+dg.Boxes[b.B].Label)
		}
	}
	if strings.Join(cut, " ") != "leaf01-su01 leaf02-su01 leaf16-su02" {
		t.Errorf("cut bundles %v, want leaf01-su01 leaf02-su01 leaf16-su02", cut)
	}
	if !strings.Contains(strings.Join(dg.Legend, "\n"), "witness cut: test (red)") {
		t.Errorf("legend %v", dg.Legend)
	}
}
