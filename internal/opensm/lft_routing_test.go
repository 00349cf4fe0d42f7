package opensm

import (
	"fmt"
	"strings"
	"testing"
)

// TestModelRoutingRefusesUnmodelledSettings: settings that change OpenSM's routes make the
// model say so instead of reporting the default routes.
func TestModelRoutingRefusesUnmodelledSettings(t *testing.T) {
	g := buildGraph(t, fatTreeSpec(4, 2, 4))
	cfg, err := FromGraph(g, GraphOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ModelRouting(g, cfg, false)
	if err != nil || len(r.Engines) != 1 || r.Engines[0] != "ftree" || len(r.Roots) != 2 {
		t.Fatalf("ModelRouting = %+v, %v", r, err)
	}
	top, _ := ModelRouting(g, cfg, true)
	if fmt.Sprint(top.Roots) != fmt.Sprint(r.Roots) {
		t.Errorf("top-tier roots %v differ from FromGraph's %v", top.Roots, r.Roots)
	}
	cfg.Options = map[string]string{"port_shifting": "TRUE", "log_flags": "0x43"}
	if _, err := ModelRouting(g, cfg, false); err == nil || !strings.Contains(err.Error(), "port_shifting") {
		t.Errorf("port_shifting: %v", err)
	}
	cfg.Options, cfg.LMC = nil, 1
	if _, err := ModelRouting(g, cfg, false); err == nil || !strings.Contains(err.Error(), "lmc 1") {
		t.Errorf("lmc 1: %v", err)
	}
}
