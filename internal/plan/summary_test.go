package plan

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/policy"
)

// summaryWidth is the width Terraform wraps diagnostic text at without a terminal.
const summaryWidth = 76

// smallSpec is one leaf and one spine with nodes DGX H100 (8 HCAs each), every HCA port
// mirrored by a leaf uplink: built by hand, not by the generator.
func smallSpec(nodes int) *fabric.Spec {
	s := &fabric.Spec{Switches: []fabric.Switch{{Name: "leaf01", Model: "QM9700"}, {Name: "spine01", Model: "QM9700"}}}
	for n := 0; n < nodes; n++ {
		name := fmt.Sprintf("gpu%03d", n+1)
		s.Nodes = append(s.Nodes, fabric.Node{Name: name, Model: "DGX-H100"})
		for r := 0; r < 8; r++ {
			h := fabric.HCA{Name: fmt.Sprintf("%s/mlx5_%d", name, r), Node: name, Device: fmt.Sprintf("mlx5_%d", r), Rail: r}
			s.HCAs = append(s.HCAs, h)
			s.Cables = append(s.Cables, fabric.Cable{A: fabric.End{Device: h.Name, Port: 1}, B: fabric.End{Device: "leaf01", Port: 8*n + r + 1}},
				fabric.Cable{A: fabric.End{Device: "leaf01", Port: 33 + 8*n + r}, B: fabric.End{Device: "spine01", Port: 8*n + r + 1}})
		}
	}
	return s
}

func built(t *testing.T, cat *catalog.Catalog, s *fabric.Spec) *Fabric {
	t.Helper()
	f, ps := Build(cat, Inputs{Explicit: *s})
	if f == nil {
		t.Fatal(ps)
	}
	return f
}

func TestSummarize(t *testing.T) {
	cat := catalog.Default()
	f2, f3 := built(t, cat, smallSpec(2)), built(t, cat, smallSpec(3))
	next := &Outcome{Fabric: f3, BOM: Price(cat, f3), Violations: []policy.Violation{{Rule: "spine-headroom", Severity: policy.Warning, Message: "spine-headroom: low"}},
		OpenSM: &Rendered{Files: opensm.Files{opensm.FileCNGUIDs: "0x1\n0x2\n"}}}
	prior := &Prior{Graph: f2.Graph, BOM: Price(cat, f2), Files: opensm.Files{opensm.FileCNGUIDs: "0x1\n"},
		Digests: opensm.Digests(opensm.Files{opensm.FileCNGUIDs: "0x1\n"}), DigestsKnown: true}
	got := Summarize(prior, next)
	for _, want := range []string{
		"Devices: +1 node, +8 hca\n",
		"Links node-leaf: 8 added, 0 removed, 0 rewired\n  e.g. added gpu003/mlx5_0:1 - leaf01:17\n",
		"Links leaf-spine: 8 added, 0 removed, 0 rewired\n  e.g. added leaf01:49 - spine01:17\n",
		"Buy: +1 node DGXH-G640F+P2EDI36 (2 -> 3) unpriced\n",
		"Buy: +16 cable MFP7E10-N (32 -> 48) unpriced\n",
		"Order total (priced SKUs): USD 0.00; ",
		"OpenSM files: cn_guids.conf\n",
		"  +0x2\n",
		"Policy: pass, 1 warning",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n > 19 {
		t.Errorf("summary of one added node has %d lines:\n%s", n, got)
	}
	for _, l := range strings.Split(got, "\n") {
		if len(l) > summaryWidth {
			t.Errorf("line wider than %d (Terraform wraps it): %q", summaryWidth, l)
		}
	}
	create := Summarize(nil, &Outcome{Fabric: f2, BOM: Price(cat, f2)})
	if !strings.HasPrefix(create, "New fabric, totals:\nDevices: +2 node, +16 hca, +1 leaf, +1 spine\n") || strings.Contains(create, "e.g.") ||
		!strings.Contains(create, "Buy: 2 switch 920-9B210-00FN-0M0 USD 170,000.00\n") {
		t.Errorf("create summary:\n%s", create)
	}
	shrink := Summarize(&Prior{Graph: f3.Graph, BOM: Price(cat, f3)}, &Outcome{Fabric: f2, BOM: Price(cat, f2)})
	if !strings.Contains(shrink, "Free: -16 cable MFP7E10-N (48 -> 32) unpriced\n") ||
		!strings.Contains(shrink, "Devices: -1 node, -8 hca\n") || !strings.Contains(shrink, "  e.g. removed gpu003/mlx5_0:1 - leaf01:17\n") {
		t.Errorf("shrink summary:\n%s", shrink)
	}
	same := &Outcome{Fabric: f2, BOM: Price(cat, f2), OpenSM: &Rendered{Files: prior.Files}}
	if s := Summarize(&Prior{Graph: f2.Graph, BOM: Price(cat, f2), Files: prior.Files, Digests: prior.Digests, DigestsKnown: true}, same); s != "" {
		t.Errorf("an unchanged fabric has a summary:\n%s", s)
	}
}

// TestSummaryOpenSMDiff: a partitions change shows the lines it adds and removes, each file's
// diff is bounded with a count of what it leaves out, and a file edited on the host (its digest
// in state is not the one the prior inputs render) is said to be drift, not diffed against text
// the provider does not have.
func TestSummaryOpenSMDiff(t *testing.T) {
	cat := catalog.Default()
	f := built(t, cat, smallSpec(1))
	before := "Default=0x7fff, ipoib, defmember=full : ALL=full ;\n"
	after := before + "tenant-a=0x0002, ipoib, rate=7 : 0x0002c90300a10001=full ;\n"
	var long strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&long, "0x%016x\n", i)
	}
	prior := opensm.Files{opensm.FilePartitions: before, opensm.FileCNGUIDs: "", opensm.FileRootGUIDs: "0xaa\n"}
	next := opensm.Files{opensm.FilePartitions: after, opensm.FileCNGUIDs: long.String(), opensm.FileRootGUIDs: "0xbb\n"}
	digests := opensm.Digests(prior)
	digests[opensm.FileRootGUIDs] = opensm.DigestOf("0xcc\n") // edited on the host
	got := Summarize(&Prior{Graph: f.Graph, BOM: Price(cat, f), Files: prior, Digests: digests, DigestsKnown: true},
		&Outcome{Fabric: f, BOM: Price(cat, f), OpenSM: &Rendered{Files: next}})
	for _, want := range []string{
		"OpenSM files: partitions.conf, root_guids.conf, cn_guids.conf\n",
		"  --- partitions.conf (applied)\n  +++ partitions.conf (planned)\n",
		"  +tenant-a=0x0002, ipoib, rate=7 : 0x0002c90300a10001=full ;\n",
		"  root_guids.conf: changed on the host since the last apply",
		"more lines of this diff not shown",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	cn := got[strings.Index(got, "--- cn_guids.conf"):]
	if n := strings.Count(cn, "\n  +0x"); n != MaxDiffLines-3 {
		t.Errorf("cn_guids.conf diff shows %d added lines, want %d (the bound less its three header lines):\n%s", n, MaxDiffLines-3, cn)
	}
	if !strings.Contains(cn, fmt.Sprintf("... %d more lines", 100+3-MaxDiffLines)) {
		t.Errorf("the count of lines left out is wrong:\n%s", cn)
	}
}

func TestVerdict(t *testing.T) {
	if got := Verdict(nil, 0); got != "Policy: pass" {
		t.Errorf("Verdict(nil) = %q", got)
	}
	if got, want := Verdict(nil, 1), "Policy: not judged in full; 1 policy file could not be read, so its rules did not judge"; got != want {
		t.Errorf("Verdict(nil, 1) = %q, want %q", got, want)
	}
	vs := []policy.Violation{
		{Rule: "oversubscription", Severity: policy.Error}, {Rule: "oversubscription", Severity: policy.Error},
		{Rule: "bisection", Severity: policy.Error}, {Rule: "spine-headroom", Severity: policy.Warning},
		{Rule: "spine-headroom", Severity: policy.Error, Message: "spine-headroom (policy/fabric.hcl:1): Every spine needs 30% free ports."},
	}
	if got, want := Verdict(vs, 0), "Policy: FAIL, 4 violations (bisection, oversubscription, spine-headroom), 1 warning"; got != want {
		t.Errorf("Verdict = %q, want %q", got, want)
	}
	if got := USD(1360000); got != "USD 1,360,000.00" {
		t.Errorf("USD = %q", got)
	}
	if got := USD(-170000.5); got != "-USD 170,000.50" {
		t.Errorf("USD = %q", got)
	}
}

// TestPriorRebuild: the prior inputs' fabric is priced and rendered, unless it is next's, whose
// BOM (and files, under the same settings) it takes as they are.
func TestPriorRebuild(t *testing.T) {
	cat := catalog.Default()
	withGUIDs := func(s *fabric.Spec) *fabric.Spec {
		for i := range s.Switches {
			s.Switches[i].GUID = fmt.Sprintf("0x%016x", 0x100+i)
		}
		for i := range s.HCAs {
			s.HCAs[i].PortGUID = fmt.Sprintf("0x%016x", 0x200+i)
		}
		return s
	}
	f2, f3 := built(t, cat, withGUIDs(smallSpec(2))), built(t, cat, withGUIDs(smallSpec(3)))
	mark := opensm.Files{opensm.FileCNGUIDs: "next's\n"}
	next := &Outcome{Fabric: f3, OpenSM: &Rendered{Files: mark}} // BOM left empty: a reused one stays so

	var gone Prior
	gone.Rebuild(cat, nil, &OpenSMSettings{}, true, next)
	if gone.Graph != nil || gone.Files != nil || len(gone.BOM.Items) != 0 {
		t.Errorf("a prior that no longer builds: %+v", gone)
	}

	var same Prior
	same.Rebuild(cat, f3, &OpenSMSettings{}, true, next)
	if same.Graph != f3.Graph || len(same.BOM.Items) != 0 || same.Files[opensm.FileCNGUIDs] != "next's\n" {
		t.Errorf("an unchanged fabric is built again: BOM %d lines, files %v", len(same.BOM.Items), same.Files)
	}

	var settings Prior
	settings.Rebuild(cat, f3, &OpenSMSettings{}, false, next)
	if settings.Files == nil || settings.Files[opensm.FileCNGUIDs] == "next's\n" {
		t.Errorf("other settings reuse next's files: %v", settings.Files)
	}

	var other Prior
	other.Rebuild(cat, f2, nil, true, next)
	if other.Graph != f2.Graph || !reflect.DeepEqual(other.BOM, Price(cat, f2)) || other.Files != nil {
		t.Errorf("another fabric without settings: BOM %d lines, files %v", len(other.BOM.Items), other.Files)
	}
}
