package testrig

import (
	"fmt"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// The fat tree the OpenSM and route-model tests share (internal/opensm, internal/analysis): one
// declaration, because internal/analysis/testdata/opensm-lfts.dump was recorded on its GUIDs.

// FatTreeSpec declares a 2-tier fat tree: `leaves` QM9700 leaves with `perLeaf` HCAs each (DGX
// H100 nodes of 8 HCAs), every leaf cabled 1:1 to `spines` spines with perLeaf/spines parallel
// links per spine. Switch GUIDs are 0x0002c90300001000+n; HCA port GUIDs are
// 0x0002c90300100001 + 0x10*h, so that ibsim's node GUID (port GUID - 1) never collides.
func FatTreeSpec(leaves, spines, perLeaf int) *fabric.Spec {
	s := &fabric.Spec{}
	sw := 0
	swGUID := func() string { sw++; return fmt.Sprintf("0x%016x", 0x0002c90300001000+sw) }
	for i := 1; i <= spines; i++ {
		s.Switches = append(s.Switches, fabric.Switch{Name: fmt.Sprintf("spine%02d", i), Model: "QM9700", GUID: swGUID()})
	}
	for i := 1; i <= leaves; i++ {
		s.Switches = append(s.Switches, fabric.Switch{Name: fmt.Sprintf("leaf%02d", i), Model: "QM9700", GUID: swGUID()})
	}
	hcas := leaves * perLeaf
	for n := 0; n < (hcas+7)/8; n++ {
		s.Nodes = append(s.Nodes, fabric.Node{Name: fmt.Sprintf("gpu%03d", n+1), Model: "DGX-H100"})
	}
	for h := 0; h < hcas; h++ {
		node, dev := fmt.Sprintf("gpu%03d", h/8+1), fmt.Sprintf("mlx5_%d", h%8)
		s.HCAs = append(s.HCAs, fabric.HCA{
			Name: fabric.HCAName(node, dev), Node: node, Device: dev, Rail: h % 8,
			PortGUID: fmt.Sprintf("0x%016x", 0x0002c90300100001+0x10*h),
		})
		s.Cables = append(s.Cables, fabric.Cable{
			A: fabric.End{Device: fabric.HCAName(node, dev), Port: 1},
			B: fabric.End{Device: fmt.Sprintf("leaf%02d", h/perLeaf+1), Port: h%perLeaf + 1},
		})
	}
	up := perLeaf / spines
	for l := 1; l <= leaves; l++ {
		for sp := 1; sp <= spines; sp++ {
			for k := 0; k < up; k++ {
				s.Cables = append(s.Cables, fabric.Cable{
					A: fabric.End{Device: fmt.Sprintf("leaf%02d", l), Port: perLeaf + (sp-1)*up + k + 1},
					B: fabric.End{Device: fmt.Sprintf("spine%02d", sp), Port: (l-1)*up + k + 1},
				})
			}
		}
	}
	return s
}

// BuildGraph builds s with the default catalog, failing the test on an error.
func BuildGraph(t testing.TB, s *fabric.Spec) *fabric.Graph {
	t.Helper()
	g, problems := fabric.Build(s, catalog.Default())
	if fabric.HasErrors(problems) {
		t.Fatalf("fabric.Build: %v", problems)
	}
	return g
}
