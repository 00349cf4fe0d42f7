package fabric

import (
	"strconv"
	"strings"
)

// Spec is the declared fabric: what the user wrote, before any checking. Field names follow the
// Terraform attributes of the matching gpucluster_* resources.
type Spec struct {
	Racks      []Rack
	Switches   []Switch
	Nodes      []Node
	HCAs       []HCA
	Cables     []Cable
	Partitions []Partition
	// Plan is set on a fabric generated from a design: the size its upper tiers were built
	// for (topogen). nil for a declared fabric.
	Plan *Plan
	// Torus is set on a torus generated from a design (topogen): its sides and which switch
	// sits at each coordinate, what torus-2QoS needs for its torus description. nil otherwise:
	// a declared fabric gives no coordinates.
	Torus *TorusLayout
	// Groups names the generator's group (su01, pod01, group01, ...) of each switch and node
	// of a generated fabric, by name: what the scheduler's blocks and the diagram fold by. nil
	// for a declared fabric.
	Groups map[string]string

	// dropped are the GUIDs of generated switches and HCAs that Merge replaced by explicit
	// items without one (Build reports them).
	dropped []droppedGUID
}

// droppedGUID is the GUID of a generated item that an explicit item of its name replaced
// without a GUID of its own.
type droppedGUID struct {
	m, name, guid string
}

// TorusLayout places the switches of a generated 3D torus: Dims are the sides along x, y and z,
// and Switches[x + Dims[0]*(y + Dims[1]*z)] names the switch at (x, y, z). The generator cables
// each switch to its +1 neighbour along every dimension, wrapping around.
type TorusLayout struct {
	Dims     [3]int
	Switches []string
}

// Plan is a generated fabric's size now and the size its spines and cores were built for, in
// nodes. Advice, when the design's top tier keeps less than DefaultSpineHeadroom of its ports
// free, is the generator's argument setting that would keep it ("planned_nodes = 257 keeps 30%
// of the top tier free at this size"), so the policy's spine-headroom advice and the design's
// note say the same thing.
type Plan struct {
	Nodes        int
	PlannedNodes int
	Advice       string
}

// DefaultSpineHeadroom is the share of ports every top-tier switch keeps free for growth: the
// origin document's rule, "add 30% more spine capacity than your bandwidth calculation says".
// The policy's default (policy.DefaultSpineHeadroom) and the generator's note both read it here.
const DefaultSpineHeadroom = 0.30

// Ref says where an element of the Spec came from, for the Path of its problems: Key is its key
// in the fabric's inventory map ("" when it has none: then its name, or a cable's label, stands
// in), Origin the design attribute that generated it ("" for an element the user declared).
type Ref struct {
	Key    string
	Origin string
}

// Rack is a rack in a row of the hall. Row and Position place it on a grid that gives cable
// lengths.
type Rack struct {
	Ref
	Name     string
	Row      int
	Position int
	Units    int     // 0: DefaultRackUnits
	PowerKW  float64 // 0: no power budget to check
}

// Switch roles.
const (
	RoleLeaf  = "leaf"
	RoleSpine = "spine"
	RoleCore  = "core"
)

// Switch is a switch. Role is empty when the user leaves it to inference.
type Switch struct {
	Ref
	Name      string
	Model     string
	Rack      string
	PositionU int
	Role      string
	GUID      string
	Group     string
}

// Node is a GPU server. ComputeHCAs is 0 when the model's default applies.
type Node struct {
	Ref
	Name        string
	Model       string
	Rack        string
	PositionU   int
	ComputeHCAs int
}

// HCA is a host channel adapter of a node. Name defaults to "<node>/<device>".
type HCA struct {
	Ref
	Name     string
	Node     string
	Device   string
	Model    string // "": the node model's HCA
	PortGUID string
	Rail     int // -1: unset
}

// End is one end of a cable: a device (switch name or HCA name) and a 1-based port.
type End struct {
	Device string
	Port   int
}

// Cable is one logical link. Kind and LengthM are empty/zero when left to the planner.
type Cable struct {
	Ref
	A, B    End
	Kind    string
	LengthM float64
}

// Partition is an InfiniBand partition.
type Partition struct {
	Ref
	Name     string
	PKey     string
	Members  []Member
	IPoIB    bool
	MTU      int // bytes; 0 = OpenSM default
	RateGbps int // 0 = OpenSM default
	SL       int
}

// Member is a partition member: an HCA of the fabric by name, or a port GUID or one of OpenSM's
// keywords (ALL, ALL_CAS, ALL_SWITCHES, SELF) by GUID.
type Member struct {
	HCA        string
	GUID       string
	Membership string // MembershipFull or MembershipLimited
}

// HCAName is the default name of an HCA: "<node>/<device>".
func HCAName(node, device string) string { return node + "/" + device }

// IsHCAName reports whether a device name is an HCA's: only HCA names carry the '/' (CheckName
// refuses it in every other name), so a cable end or partition member needs no lookup to tell.
func IsHCAName(name string) bool { return strings.Contains(name, "/") }

// DefaultHCADevice is the device of a node's i-th compute HCA (0-based), "mlx5_<i>": the mlx5
// driver numbers a node's HCAs in PCI order, and the compute HCAs come first unless other ports
// (storage, in-band management) sit before them on the bus.
func DefaultHCADevice(i int) string { return "mlx5_" + strconv.Itoa(i) }

// DefaultHCADevices is the devices of a node's n compute HCAs, DefaultHCADevice(0) ... (n-1).
func DefaultHCADevices(n int) []string {
	devs := make([]string, n)
	for i := range devs {
		devs[i] = DefaultHCADevice(i)
	}
	return devs
}

// Label is the cable's label, "<a.device>:<a.port> <-> <b.device>:<b.port>" (CableLabel), as
// gpucluster_cable computes it.
func (c *Cable) Label() string { return CableLabel(c.A, c.B) }

// String is the cable end label "<device>:<port>".
func (e End) String() string { return e.Device + ":" + strconv.Itoa(e.Port) }

// Inventory map names, as the fabric's attributes.
const (
	MapRacks      = "racks"
	MapSwitches   = "switches"
	MapNodes      = "nodes"
	MapHCAs       = "hcas"
	MapCables     = "cables"
	MapPartitions = "partitions"
)

// PathOf returns the path of the attributes attrs of element i of the inventory map m (one of the
// Map* names): its key (or name, or a cable's label, where it has no key) and, for a generated
// element, the design attribute that produced it.
func (s *Spec) PathOf(m string, i int, attrs ...string) Path {
	var ref Ref
	name := ""
	switch m {
	case MapRacks:
		ref, name = s.Racks[i].Ref, s.Racks[i].Name
	case MapSwitches:
		ref, name = s.Switches[i].Ref, s.Switches[i].Name
	case MapNodes:
		ref, name = s.Nodes[i].Ref, s.Nodes[i].Name
	case MapHCAs:
		ref, name = s.HCAs[i].Ref, s.HCAs[i].Name
	case MapCables:
		ref, name = s.Cables[i].Ref, s.Cables[i].Label()
	case MapPartitions:
		ref, name = s.Partitions[i].Ref, s.Partitions[i].Name
	}
	key := ref.Key
	if key == "" {
		key = name
	}
	p := At(m, key, attrs...)
	p.Design = ref.Origin
	return p
}
