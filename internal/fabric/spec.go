package fabric

// Spec is the declared fabric: what the user wrote, before any checking. Field names follow the
// Terraform attributes of the matching gpucluster_* resources.
type Spec struct {
	Racks      []Rack
	Switches   []Switch
	Nodes      []Node
	HCAs       []HCA
	Cables     []Cable
	Partitions []Partition
}

// Rack is a rack in a row of the hall. Row and Position place it on a grid that gives cable
// lengths.
type Rack struct {
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
	Name        string
	Model       string
	Rack        string
	PositionU   int
	ComputeHCAs int
}

// HCA is a host channel adapter of a node. Name defaults to "<node>/<device>".
type HCA struct {
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
	A, B    End
	Kind    string
	LengthM float64
}

// Partition is an InfiniBand partition.
type Partition struct {
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
	Membership string // "full" or "limited"
}

// HCAName is the default name of an HCA: "<node>/<device>".
func HCAName(node, device string) string { return node + "/" + device }
