package fabric

// DeviceKind tells switches from HCAs.
type DeviceKind uint8

const (
	KindSwitch DeviceKind = iota
	KindHCA
)

// Device is a switch or an HCA in the graph.
type Device struct {
	Name      string
	Kind      DeviceKind
	Model     string
	Ports     int
	RateGbps  float64 // per port, one direction
	Role      string  // declared role; for switches without one, the inferred role
	Declared  bool    // Role was declared by the user
	Rack      string
	PositionU int
	GUID      string // switch node GUID or HCA port GUID, as declared ("" if not)
	Group     string
	Node      string // HCAs: the node's name
	Rail      int    // HCAs: rail, -1 if unset
	Level     int    // links from the nearest HCA; -1 unreachable
	Spec      int    // index into Spec.Switches or Spec.HCAs
}

// Link is a cable that passed the structural checks.
type Link struct {
	A, B         int32 // device indexes
	PortA, PortB int
	RateGbps     float64 // one direction: the lower of the two ports' rates
	Cable        int     // index into Spec.Cables
	LengthM      float64 // declared or estimated; 0 when unknown (no rack placement)
	Estimated    bool    // LengthM comes from rack positions, not from the cable
}

// Other returns the device at the far end of the link from d.
func (l *Link) Other(d int32) int32 {
	if l.A == d {
		return l.B
	}
	return l.A
}

// Graph is the assembled fabric.
type Graph struct {
	Spec    *Spec
	Devices []Device
	Links   []Link
	// Adjacency in compressed rows: the links of device d are AdjLinks[AdjStart[d]:AdjStart[d+1]].
	AdjStart []int32
	AdjLinks []int32

	index       map[string]int32
	numSwitches int
}

// Lookup returns the index of the named device.
func (g *Graph) Lookup(name string) (int32, bool) {
	i, ok := g.index[name]
	return i, ok
}

// LinksOf returns the link indexes of device d.
func (g *Graph) LinksOf(d int32) []int32 {
	return g.AdjLinks[g.AdjStart[d]:g.AdjStart[d+1]]
}

// NumSwitches returns how many devices are switches (they come first).
func (g *Graph) NumSwitches() int {
	return g.numSwitches
}

// Endpoints returns the HCA devices that have at least one link, in device order.
func (g *Graph) Endpoints() []int32 {
	var out []int32
	for i := range g.Devices {
		if g.Devices[i].Kind == KindHCA && g.AdjStart[i+1] > g.AdjStart[i] {
			out = append(out, int32(i))
		}
	}
	return out
}
