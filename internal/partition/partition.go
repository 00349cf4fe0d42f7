package partition

import "github.com/gpucluster/terraform-provider-gpucluster/internal/fabric"

// Membership of a port in a partition, the fabric's words.
const (
	Full    = fabric.MembershipFull
	Limited = fabric.MembershipLimited
)

// Keywords are the port-list keywords OpenSM accepts in place of a port GUID
// (osm_prtn_config.c partition_add_port). Only the OpenSM target can apply them: UFM's PKey API
// takes GUIDs only (UFM REST API guide, "PKey GUIDs Rest API": guids is a list of hex strings).
var Keywords = []string{"ALL", "ALL_CAS", "ALL_SWITCHES", "ALL_ROUTERS", "SELF"}

// DefaultPKey is the default partition every subnet manager has: OpenSM's "Default", UFM's
// "management" (UFM REST API guide; NVIDIA ncx-infra-controller-core ufmclient test data). The
// provider never creates nor removes it through a target.
const DefaultPKey = 0x7fff

// MembershipBit is the high bit of a 16-bit P_Key, which says full membership in a port's P_Key
// table (IBTA vol. 1, 10.9.1). Partitions are declared with the 15-bit P_Key and a membership
// per member; the bit itself is never sent to a target.
const MembershipBit = 0x8000

// Member is a port of a partition: a port GUID, or one of Keywords.
type Member struct {
	GUID       GUID   // zero when Keyword is set
	Keyword    string // one of Keywords, or ""
	Membership string // Full or Limited
}

// Port is the member as partitions.conf names it: the keyword, or the GUID as 0x and 16 digits.
func (m Member) Port() string {
	if m.Keyword != "" {
		return m.Keyword
	}
	return m.GUID.String()
}

// Partition is one partition as the fabric declares it, whatever subnet manager applies it.
type Partition struct {
	Name  string
	PKey  uint16 // the 15-bit P_Key: 0x0001-0x7ffe (0x7fff is Default)
	IPoIB bool   // create the IPoIB broadcast group
	// Index0 stores the P_Key at index 0 of each member's P_Key table. Only the UFM target
	// applies it (UFM's index0); OpenSM's per-member indx0 flag is not managed by the provider.
	Index0 bool
	// MTU in bytes of the IPoIB broadcast group (256-4096); 0 leaves the subnet manager's
	// default (2048).
	MTU int
	// RateGbps of the IPoIB broadcast group; 0 leaves the subnet manager's default (10 Gb/s in
	// OpenSM). Members slower than this cannot join the group.
	RateGbps float64
	SL       int // service level 0-15; OpenSM ignores it unless qos is TRUE
	Members  []Member
	// MGroups are "mgid=..." lines read back from a partitions.conf, kept verbatim so a file the
	// provider did not write round-trips; the provider itself never writes any.
	MGroups []string
}

// IsKeyword reports whether s is one of Keywords, exactly.
func IsKeyword(s string) bool {
	for _, k := range Keywords {
		if k == s {
			return true
		}
	}
	return false
}
