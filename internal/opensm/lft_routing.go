package opensm

import (
	"github.com/gpucluster/terraform-provider-gpucluster/internal/analysis"
	"github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"
)

// ModelRouting is what analysis needs to reproduce the routes OpenSM will compute from cfg on
// g: the engine list, every switch's node GUID (the declared one, or the stand-in that
// ExpectedTopology gives the simulator, since the engines order switches by GUID and a real
// fabric's undeclared GUIDs are unknown at plan time) and the roots of root_guid_file as device
// indexes, in file order. Roots that are no switch of g are left out.
func ModelRouting(g *fabric.Graph, cfg Config) analysis.Routing {
	nguid := nodeGUIDs(g)
	r := analysis.Routing{Engine: cfg.RoutingEngine, GUIDs: make([]uint64, len(g.Devices))}
	bySwitchGUID := map[GUID]int32{}
	for i := range g.Devices {
		if g.Devices[i].Kind == fabric.KindSwitch {
			r.GUIDs[i] = uint64(nguid[i])
			bySwitchGUID[nguid[i]] = int32(i)
		}
	}
	engines := cfg.engines()
	if hasEngine(engines, "ftree", "updn", "dnup") {
		for _, v := range cfg.Roots {
			if d, ok := bySwitchGUID[v]; ok {
				r.Roots = append(r.Roots, d)
			}
		}
	}
	return r
}
