package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	tfjson "github.com/hashicorp/terraform-json"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
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
