package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/bom"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// expectBOMOrder checks that the plan's diff of a fabric's `bom.items` (keyed by SKU) is exactly
// the purchase order want: SKU -> quantity after minus before, SKUs whose quantity does not change
// left out.
type expectBOMOrder struct {
	addr string
	want map[string]int
}

func (e expectBOMOrder) CheckPlan(_ context.Context, req plancheck.CheckPlanRequest, resp *plancheck.CheckPlanResponse) {
	rc := findChange(req.Plan, e.addr)
	if rc == nil {
		resp.Error = fmt.Errorf("%s is not in the plan", e.addr)
		return
	}
	got := map[string]int{}
	for sku, q := range bomQuantities(rc.Change.After) {
		got[sku] += q
	}
	for sku, q := range bomQuantities(rc.Change.Before) {
		got[sku] -= q
	}
	for sku, q := range got {
		if q == 0 {
			delete(got, sku)
		}
	}
	if fmt.Sprint(sortedMap(got)) != fmt.Sprint(sortedMap(e.want)) {
		resp.Error = fmt.Errorf("bom order of %s = %v, want %v (before %d SKUs, after %d)", e.addr, sortedMap(got), sortedMap(e.want),
			len(bomQuantities(rc.Change.Before)), len(bomQuantities(rc.Change.After)))
	}
}

func findChange(p *tfjson.Plan, addr string) *tfjson.ResourceChange {
	for _, rc := range p.ResourceChanges {
		if rc.Address == addr {
			return rc
		}
	}
	return nil
}

// bomQuantities reads bom.items of a resource value in plan JSON: SKU -> quantity.
func bomQuantities(v any) map[string]int {
	out := map[string]int{}
	obj, _ := v.(map[string]any)
	b, _ := obj["bom"].(map[string]any)
	items, _ := b["items"].(map[string]any)
	for sku, it := range items {
		m, _ := it.(map[string]any)
		switch q := m["quantity"].(type) {
		case float64:
			out[sku] = int(q)
		case json.Number:
			n, _ := q.Int64()
			out[sku] = int(n)
		}
	}
	return out
}

func sortedMap(m map[string]int) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s:%+d", k, v))
	}
	sort.Strings(out)
	return out
}

func TestFormatSummary(t *testing.T) {
	cat := catalog.Default()
	spec := func(nodes int) *fabric.Spec {
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
	build := func(s *fabric.Spec) (*fabric.Graph, bom.BOM) {
		g, ps := fabric.Build(s, cat)
		if fabric.HasErrors(ps) {
			t.Fatal(ps)
		}
		return g, bom.FromGraph(g, cat)
	}
	g2, b2 := build(spec(2))
	g3, b3 := build(spec(3))
	lines, total := bom.Order(b2, b3)
	got := formatSummary(false, fabric.Compare(g2, g3), lines, total, []string{"cn_guids.conf"}, []string{"warning: spine-headroom: low"})
	for _, want := range []string{
		"Devices: +1 node, +8 hca\n",
		"Links node-leaf: 8 added, 0 removed, 0 rewired\n  e.g. added gpu003/mlx5_0:1 - leaf01:17\n",
		"Links leaf-spine: 8 added, 0 removed, 0 rewired\n  e.g. added leaf01:49 - spine01:17\n",
		"Buy: +1 node DGXH-G640F+P2EDI36 (2 -> 3) unpriced\n",
		"Buy: +16 cable MFP7E10-N (32 -> 48) unpriced\n",
		"Order total (priced SKUs): USD 0.00; ",
		"OpenSM files: cn_guids.conf\n",
		"Policy: pass, 1 warning",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "\n"); n > 14 {
		t.Errorf("summary of one added node has %d lines:\n%s", n, got)
	}
	for _, l := range strings.Split(got, "\n") {
		if len(l) > summaryWidth {
			t.Errorf("line wider than %d (Terraform wraps it): %q", summaryWidth, l)
		}
	}
	lines, total = bom.Order(bom.BOM{}, b2)
	create := formatSummary(true, fabric.Compare(nil, g2), lines, total, nil, nil)
	if !strings.HasPrefix(create, "New fabric, totals:\nDevices: +2 node, +16 hca, +1 leaf, +1 spine\n") || strings.Contains(create, "e.g.") ||
		!strings.Contains(create, "Buy: 2 switch 920-9B210-00FN-0M0 USD 170,000.00\n") {
		t.Errorf("create summary:\n%s", create)
	}
	back, backTotal := bom.Order(b3, b2)
	if shrink := formatSummary(false, fabric.Compare(g3, g2), back, backTotal, nil, nil); !strings.Contains(shrink, "Free: -16 cable MFP7E10-N (48 -> 32) unpriced\n") ||
		!strings.Contains(shrink, "Devices: -1 node, -8 hca\n") || !strings.Contains(shrink, "  e.g. removed gpu003/mlx5_0:1 - leaf01:17\n") {
		t.Errorf("shrink summary:\n%s", shrink)
	}
}

func TestVerdict(t *testing.T) {
	if got := verdict(nil); got != "Policy: pass" {
		t.Errorf("verdict(nil) = %q", got)
	}
	vs := []string{
		"error: oversubscription: tier leaf is 1.33:1", "error: oversubscription: tier spine is 2:1",
		"error: bisection: 0.75 of full", "warning: spine-headroom: 10% free",
		"error: spine-headroom (policy/fabric.hcl:1): Every spine needs 30% free ports.",
	}
	if got, want := verdict(vs), "Policy: FAIL, 4 violations (bisection, oversubscription, spine-headroom), 1 warning"; got != want {
		t.Errorf("verdict = %q, want %q", got, want)
	}
	if got := usd(1360000); got != "USD 1,360,000.00" {
		t.Errorf("usd = %q", got)
	}
	if got := usd(-170000.5); got != "-USD 170,000.50" {
		t.Errorf("usd = %q", got)
	}
	if got := count(-16384); got != "-16,384" {
		t.Errorf("count = %q", got)
	}
}
