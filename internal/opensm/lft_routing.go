package opensm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// routeOptions are the opensm.conf options that change the unicast routes of ftree, updn or
// minhop away from the defaults the model reproduces (opensm(8), osm_subnet.c opt_tbl).
var routeOptions = map[string]bool{
	"port_shifting": true, "scatter_ports": true, "guid_routing_order_file": true,
	"hop_weights_file": true, "port_search_ordering_file": true, "connect_roots": true,
	"quasi_ftree_indexing": true, "ids_guid_file": true, "io_guid_file": true,
	"root_guid_file": true, "cn_guid_file": true, "lmc": true, "port_prof_ignore_file": true,
	"port_profile_switch_nodes": true, "guid_routing_order_no_scatter": true,
}

// ModelRouting is what analysis needs to reproduce the routes OpenSM will compute from cfg on
// g: the engine list, every switch's node GUID (the declared one, or the stand-in that
// ExpectedTopology gives the simulator: the engines order switches by GUID, and a real fabric's
// undeclared GUIDs are unknown at plan time) and the roots of root_guid_file as device indexes,
// in file order. topTierRoots says the roots were not chosen by the user: then they are the top
// tier, as FromGraph writes them once every switch has its GUID. An error says which setting
// makes the routes differ from what the model reproduces.
func ModelRouting(g *fabric.Graph, cfg Config, topTierRoots bool) (analysis.Routing, error) {
	if cfg.LMC > 0 {
		return analysis.Routing{}, fmt.Errorf("lmc %d (several LIDs per port) is not modelled", cfg.LMC)
	}
	var set []string
	for k, v := range cfg.Options {
		if routeOptions[k] && strings.TrimSpace(v) != "" {
			set = append(set, k)
		}
	}
	if len(set) > 0 {
		sort.Strings(set)
		return analysis.Routing{}, fmt.Errorf("options %s change the routes and are not modelled", strings.Join(set, ", "))
	}
	nguid := nodeGUIDs(g)
	r := analysis.Routing{GUIDs: make([]uint64, len(g.Devices))}
	if cfg.RoutingEngine != "" {
		engines, noFallback, err := ParseEnginesFor(cfg.Flavor, cfg.RoutingEngine)
		if err != nil {
			return analysis.Routing{}, err
		}
		r.Engines, r.NoFallback = engines, noFallback
	}
	bySwitchGUID := map[GUID]int32{}
	for i := range g.Devices {
		if g.Devices[i].Kind == fabric.KindSwitch {
			r.GUIDs[i] = uint64(nguid[i])
			bySwitchGUID[nguid[i]] = int32(i)
		}
	}
	if !hasEngine(r.Engines, "ftree", "updn", "dnup") {
		return r, nil
	}
	if topTierRoots {
		r.Roots = TopTier(g)
		return r, nil
	}
	for _, v := range cfg.Roots {
		if d, ok := bySwitchGUID[v]; ok {
			r.Roots = append(r.Roots, d)
		}
	}
	return r, nil
}
