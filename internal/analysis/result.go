package analysis

// Result is the analysis of one fabric graph. Its fields map one to one onto the `analysis`
// attribute of gpucluster_fabric (fixed by the design guide, docs/guides/design.md); the witnesses feed the policy's diagnostics.
type Result struct {
	Endpoints          int     // HCA ports with a link
	Switches           int     // switches with at least one link
	Links              int     // links in the graph
	Tiers              int     // switch levels: 1 (single switch, torus), 2 (leaf-spine), 3 ...
	PortRateGbps       float64 // endpoint port rate (the most common one when mixed)
	FullBisectionGbps  float64 // floor(N/2) x port rate: the floor(N/2) smallest endpoint rates (FullBisection), one direction
	BisectionLowerGbps float64 // proved: no balanced cut of the endpoints is smaller
	BisectionUpperGbps float64 // capacity of Cut, a balanced cut that exists
	BisectionRatio     float64 // BisectionLowerGbps / FullBisectionGbps, rounded down (exact.go)
	// BisectionLowerMethod says which proof gave BisectionLowerGbps: "valiant" (the routing of
	// lower.go), "exact enumeration" (lower_enum.go; then it is the bisection itself),
	// "enumeration" (the same, relaxed: a bound) or "degradation" (lower_degrade.go).
	BisectionLowerMethod string
	// BottleneckLink names the two ends of the most loaded link under the routing of lower.go,
	// the link that limits that proof below the full bisection; empty when the routing proves the
	// full bisection or nothing (a fabric in pieces).
	BottleneckLink [2]string

	// Oversubscription per tier, keyed by tier name ("leaf", "spine", ..., and "group" when the
	// switches declare dragonfly groups): the worst down:up capacity ratio of a switch of that
	// tier. Only tiers whose switches have links up are present.
	Oversubscription    map[string]float64
	MaxOversubscription float64
	// Worst holds, per tier name, the switch with the worst ratio (the witness).
	Worst map[string]SwitchLoad
	// PerSwitch holds every switch's ports and ratio, in graph order, for policy rules; switches
	// without a cable are included (all ports free, Level -1).
	PerSwitch []SwitchLoad

	MaxSwitchHops int       // switch-to-switch links on the worst shortest endpoint-to-endpoint path
	HopsWitness   [2]string // two endpoints that need MaxSwitchHops

	Cut Cut // the witness of BisectionUpperGbps

	AllReduce *AllReduce // nil without a workload

	// Effective is the effective bisection under the subnet manager's routes (effective.go);
	// Analyze leaves it nil, the caller that knows the routing configuration fills it.
	// EffectiveWhyNot says why it is nil; EffectivePending that the routing configuration is
	// not known yet (a plan with unknown values), so a rule on it waits for apply.
	Effective        *Effective
	EffectiveWhyNot  string
	EffectivePending bool
}

// WorstOversubscription is MaxOversubscription where it means something: ok is false when no
// tier has uplinks (a torus, a single switch), where a 0 would read as better than non-blocking
// (docs/guides/design.md), so outputs show no value there.
func (r *Result) WorstOversubscription() (ratio float64, ok bool) {
	return r.MaxOversubscription, len(r.Oversubscription) > 0
}

// SwitchLoad is the capacity picture of one switch.
type SwitchLoad struct {
	Name             string
	Role             string
	Tier             string // tier name used in Oversubscription
	Group            string
	Level            int
	Ports            int // radix
	UsedPorts        int
	FreePorts        int
	DownGbps         float64 // towards the endpoints (lower level)
	UpGbps           float64 // away from them (higher level)
	LateralGbps      float64 // same level (torus, dragonfly global links)
	Oversubscription float64 // DownGbps / UpGbps; 0 when the switch has no link up
}

// Cut is a balanced cut of the endpoints: SideA holds half of them (rounded down).
type Cut struct {
	CapacityGbps  float64  // one direction, A to B
	SwitchesA     []string // switches on side A
	SwitchesB     []string
	EndpointsA    int
	EndpointsB    int
	CrossingLinks int
	Method        string // how it was found, e.g. "pod split", "access links", "refined"
	// MovedEndpoints are the endpoints placed on the other side from their switch (each such
	// endpoint's access link crosses the cut); every other endpoint is on its switch's side.
	MovedEndpoints []string
	// MovedToA counts the MovedEndpoints whose switch is on side B (placed on side A); the rest
	// are side A's, placed on side B. So side A holds EndpointsA - MovedToA endpoints behind its
	// own switches, which is what a person counts on those switches.
	MovedToA int
}

// Workload describes a data-parallel training job for the all-reduce estimate.
type Workload struct {
	Parameters            float64 // model parameters
	GradientBytesPerParam float64 // 2 for BF16, 1 for FP8
	GPUs                  int     // 0: every GPU of the nodes cabled to the fabric
	GPUsPerNode           int     // 0: 8 (DGX H100); for nodes NodeGPUs does not name
	// NodeGPUs holds the GPUs of each node by name, from its catalog model (NodeGPUs in
	// allreduce.go); with the node's cabled HCA ports it gives how many GPUs share an HCA.
	NodeGPUs   map[string]int
	NVLinkGBps float64 // per GPU per direction, GB/s; 0: 450 (NVLink4)
}

// AllReduce is the estimated time of one gradient all-reduce.
type AllReduce struct {
	RingSeconds         float64
	HierarchicalSeconds float64
	BottleneckGbps      float64 // per GPU network bandwidth used by the estimate
}
