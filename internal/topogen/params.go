package topogen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// Topology kinds of this package, as the `kind` argument of gpucluster_topology spells them
// (KindNames lists the table, which may hold more).
const (
	KindFatTree       = "fat-tree"
	KindRailOptimized = "rail-optimized"
	KindDragonflyPlus = "dragonfly-plus"
	KindTorus3D       = "torus-3d"
)

// Defaults. Each is documented where it is applied (Params).
const (
	DefaultNodeModel   = "DGX-H100"
	DefaultSwitchModel = "QM9700"

	// DefaultRackPowerKW holds four DGX H100 at their 10.2 kW maximum (40.8 kW). Four per rack
	// is what RA-11333-001 implies (D): Table 7 lists 38 racks for 127 DGX H100 in 4 SU, which
	// does not fit at three per rack (43 compute racks) but does at four (32 compute racks plus
	// six network and management racks). A 40 kW budget would hold only three.
	DefaultRackPowerKW = 42.0
	// DefaultSwitchesPerRack caps switches per network rack: 16 QM9700 bring 1,024 NDR links into
	// one rack, about what overhead trays and patch panels of one rack handle. A layout choice,
	// not a sourced figure; set Params.SwitchesPerRack to change it.
	DefaultSwitchesPerRack = 16
	// DefaultApplianceLinksPerSlot: RA-11333-001 Table 4 counts compute+UFM links to the leaves
	// as GPUs + 4 at every size, i.e. the reserved slot carries 4 UFM links (Table 8: 4 UFM
	// transceivers).
	DefaultApplianceLinksPerSlot = 4
	// DefaultLeavesPerPod groups the leaves of a 1- or 2-tier fat tree into pods of 8 for the
	// rack layout and the grouped views: 8 leaves of 32 down ports hold 32 DGX H100, the size
	// of a SuperPOD scalable unit (RA-11333-001).
	DefaultLeavesPerPod = 8

	// DefaultSwitchGUIDBase and DefaultHCAGUIDBase carry the Mellanox OUI 00:02:c9 in the top
	// 24 bits, as ibsim's sample topologies do. They are for designs made before the hardware
	// arrives and for the simulator; real HCAs have burned-in GUIDs (Params.HCAGUIDs).
	DefaultSwitchGUIDBase uint64 = 0x0002c90000000000
	DefaultHCAGUIDBase    uint64 = 0x0002c90100000000
)

// Params are the arguments of gpucluster_topology (the argument table, args.go, maps each to its
// field). Zero values mean "the default" throughout.
type Params struct {
	Kind string

	// Nodes is the number of GPU nodes to build now. For rail-optimized it may be left 0 and
	// ScalableUnits given instead; for torus-3d and dragonfly-plus 0 fills the topology.
	Nodes int
	// PlannedNodes (fat-tree) is the size the spine and core layers are built for. Nodes may
	// grow up to it by adding leaves and cables only; growing past it moves leaf uplinks, so
	// Generate refuses and asks for a larger plan. 0: Nodes.
	PlannedNodes int
	// ScalableUnits (rail-optimized): SUs to build now; each SU has one leaf per rail and as
	// many node slots as a leaf has down ports (32 on a QM9700 at 1:1, RA-11333-001).
	ScalableUnits int
	// PlannedScalableUnits (rail-optimized) plays the role of PlannedNodes. 0: ScalableUnits.
	PlannedScalableUnits int

	NodeModel   string // default DGX-H100
	SwitchModel string // default QM9700
	// Oversubscription is down:up at the leaf as one number (1 = 1:1, 3 = 3:1). The switch
	// radix must split into whole down and up port counts: up = radix / (ratio + 1).
	Oversubscription float64
	// Tiers of switches for trees (fat-tree 1-3, rail-optimized 2-3). 0: the fewest that hold
	// the planned size.
	Tiers int
	// Spines forces the spine count of a 2-tier tree (e.g. to match a fabric already built).
	// It must divide the leaf's up ports so every leaf reaches every spine equally. 0: the
	// fewest that hold the planned leaves.
	Spines int

	// ReservedNodeSlots (rail-optimized): node slots of SU 1, counted from the last, given to
	// fabric-manager (UFM) appliances instead of nodes, as RA-11333-001 does (SU 1 has 31
	// nodes). Each reserved slot carries ApplianceLinksPerSlot links to the leaves.
	ReservedNodeSlots     int
	ApplianceLinksPerSlot int // default 4 (RA-11333-001 Table 4)

	TorusDims          [3]int // torus-3d: switches along x, y and z; each at least 2
	EndpointsPerSwitch int    // torus-3d: HCA ports per switch; default one node's HCAs

	// Groups (dragonfly-plus) to build now; PlannedGroups sizes the global links so that
	// adding groups up to it only adds (default Groups).
	Groups         int
	PlannedGroups  int
	LeavesPerGroup int // default: sized for the nodes of a group; radix/2 (Shpiner et al. 2017) without node_count
	SpinesPerGroup int // default: the fewest that carry the leaves' uplinks and the group's global links
	// GroupOversubscription (dragonfly-plus) is a group's endpoint bandwidth over its global
	// bandwidth, the seed's "2:1 at the group level" (default 1).
	GroupOversubscription float64

	// Digits of the number in generated names (name_digits): numbers are zero-padded to it
	// and grow past it without renaming (LeafDigits 2: leaf01..leaf99, leaf100). 0: the digits
	// of the planned count (at least 2; nodes at least 3), which a plan past a power of ten
	// widens, renaming every device of that kind.
	NodeDigits, LeafDigits, SpineDigits, CoreDigits, RackDigits int

	// Naming prefixes; numbers are zero-padded to the planned count (gpu001, leaf01).
	NodePrefix      string // "gpu"
	LeafPrefix      string // "leaf"
	SpinePrefix     string // "spine"
	CorePrefix      string // "core"
	RackPrefix      string // "rack"
	AppliancePrefix string // "ufm"
	GroupPrefix     string // "group" (dragonfly-plus switch groups)
	TorusPrefix     string // "sw" (torus-3d switches, named by coordinates: sw0-1-2)

	// GUIDs: switch n of a tier gets SwitchGUIDBase + tier<<20 + n (leaf tier 1, spine 2, core
	// 3; torus switches tier 1); HCA k (1-based, node-major) gets HCAGUIDBase + k. HCAGUIDs
	// overrides single HCAs by name ("gpu001/mlx5_0") with the burned-in port GUID.
	SwitchGUIDBase uint64
	HCAGUIDBase    uint64
	HCAGUIDs       map[string]string

	RackPowerKW     float64 // default DefaultRackPowerKW
	RackUnits       int     // default 42 (fabric.DefaultRackUnits)
	SwitchesPerRack int     // default DefaultSwitchesPerRack
	// CableKind, when set, is written on every generated cable (RA-11333-001: "All networking
	// components are multi-mode fiber" — set fiber-mm to reproduce it). Empty leaves the kind to
	// the BOM planner, which picks the cheapest kind that reaches.
	CableKind string

	// Extra holds the arguments of kinds registered outside this package (RegisterKind), by
	// name: they have no field here.
	Extra map[string]float64
}

// Error is a refusal: what cannot be built, why, and the nearest input that can. Attribute names
// the gpucluster_topology argument at fault, so the provider can attach the diagnostic to it.
type Error struct {
	Attribute string
	Reason    string
	Nearest   string // the nearest buildable input; "" when there is none to suggest
}

func (e *Error) Error() string {
	s := e.Attribute + ": " + e.Reason
	if e.Nearest != "" {
		s += "; nearest buildable: " + e.Nearest
	}
	return s
}

func refuse(attr, nearest, format string, args ...any) *Error {
	return &Error{Attribute: attr, Reason: fmt.Sprintf(format, args...), Nearest: nearest}
}

func orInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// withDefaults fills every zero field that has a default, of the arguments kind k reads: the
// string arguments (models, prefixes) from the argument table, the rest here.
func (p Params) withDefaults(k *Kind) Params {
	for _, a := range commonArgs {
		if a.Type == ArgString && a.defString != "" && a.String(&p) == "" {
			a.SetString(&p, a.defString)
		}
	}
	if p.Oversubscription == 0 && k.reads(arg("oversubscription")) {
		p.Oversubscription = 1
	}
	if k.Defaults != nil {
		k.Defaults(&p)
	}
	if p.SwitchGUIDBase == 0 {
		p.SwitchGUIDBase = DefaultSwitchGUIDBase
	}
	if p.HCAGUIDBase == 0 {
		p.HCAGUIDBase = DefaultHCAGUIDBase
	}
	if p.RackPowerKW == 0 {
		p.RackPowerKW = DefaultRackPowerKW
	}
	p.RackUnits = orInt(p.RackUnits, 42)
	p.SwitchesPerRack = orInt(p.SwitchesPerRack, DefaultSwitchesPerRack)
	return p
}

// FormatGUID renders a GUID the way the generator and OpenSM files write it: "0x%016x".
func FormatGUID(g uint64) string { return fmt.Sprintf("0x%016x", g) }

// ParseGUID reads a 64-bit GUID written as hex, with or without "0x", and with or without the
// colons of ibstat's "0002:c903:00ab:cdef" form.
func ParseGUID(s string) (uint64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	t = strings.TrimPrefix(t, "0x")
	t = strings.ReplaceAll(t, ":", "")
	if t == "" || len(t) > 16 {
		return 0, fmt.Errorf("GUID %q: want up to 16 hex digits, e.g. \"0x0002c90300abcdef\"", s)
	}
	v, err := strconv.ParseUint(t, 16, 64)
	if err != nil {
		return 0, fmt.Errorf("GUID %q: want up to 16 hex digits, e.g. \"0x0002c90300abcdef\"", s)
	}
	if v == 0 {
		return 0, fmt.Errorf("GUID %q: zero is not a valid GUID", s)
	}
	return v, nil
}

// ibstatToHex writes ibstat's colon form ("0002:c903:00ab:cdef") as 0x and hex digits, the form
// fabric.CheckGUID reads; other forms are returned as they are.
func ibstatToHex(s string) string {
	t := strings.TrimSpace(s)
	if strings.Contains(t, ":") && !strings.HasPrefix(strings.ToLower(t), "0x") {
		return "0x" + strings.ReplaceAll(t, ":", "")
	}
	return t
}

func validCableKind(k string) bool {
	if k == "" {
		return true
	}
	for _, v := range catalog.CableKinds {
		if v == k {
			return true
		}
	}
	return false
}
