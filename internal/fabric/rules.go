package fabric

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/catalog"
)

// The attribute rules: one function per rule, each the single source of what a value of that
// attribute may be. The resources' validators (provider/validators.go) and Build (on plain objects
// and on generated items alike, see attrs.go) call the same functions, so a value is refused the
// same way, with the same words, wherever it comes from. Each returns "" for a right value and
// otherwise one sentence that says what is wrong and what would be right; the attribute path is
// the caller's to add.

// Bounds of the numeric attributes, as the resources document them.
const (
	MaxRowPosition = 999  // racks: row and position are 0-999
	MaxRackUnits   = 60   // racks: units 1-60 (the tallest racks sold are 58U)
	MinPowerKW     = 0.1  // racks: power_kw, when set, 0.1-1000 kW
	MaxPowerKW     = 1000 //
	MaxPositionU   = 60   // switches, nodes: position_u 1-60 (the rack's own units bound it further)
	MinLengthM     = 0.1  // cables: length_m, when set, at least 0.1 m (the shortest DAC is 0.5 m)
	MaxRail        = 63   // HCAs: rail 0-63
	MaxComputeHCAs = 64   // nodes: compute_hcas 1-64
	MaxSL          = 15   // partitions: sl 0-15 (4-bit SL of the IBTA LRH)
	MaxNameLen     = 63   // device, rack and node names
	MaxPartNameLen = 31   // partition names (see CheckPartitionName)
)

// Roles is every switch role a switch may declare.
var Roles = []string{RoleLeaf, RoleSpine, RoleCore}

// Memberships are the partition memberships: full members talk to every member, limited ones
// to full members only (IBTA vol. 1, 10.9.1; opensm(8), PARTITION CONFIGURATION).
var Memberships = []string{MembershipFull, MembershipLimited}

// MTUs are the InfiniBand MTUs in bytes, the five sizes the IBTA MTU encoding has (IBTA vol. 1,
// 7.7.2 and the PortInfo NeighborMTU enum: 1 = 256 ... 5 = 4096). OpenSM's partitions.conf
// takes the code (mtu=1 ... mtu=5) and the provider writes it from the size.
var MTUs = []int{256, 512, 1024, 2048, 4096}

// MTUCode returns the IBTA MTU code of a size in bytes (256 -> 1, 4096 -> 5).
func MTUCode(bytes int) (int, bool) {
	for i, m := range MTUs {
		if m == bytes {
			return i + 1, true
		}
	}
	return 0, false
}

// CheckName checks a rack, switch, node or RDMA device name: 1-63 letters, digits, '.', '_' or
// '-', starting with a letter or digit, so that OpenSM's node-name-map, cable labels
// ("leaf01:33") and HCA names ("gpu001/mlx5_0") carry it unquoted and parse back.
func CheckName(s string) string {
	const right = "use 1-63 letters, digits, '.', '_' or '-', starting with a letter or digit, e.g. \"leaf01\""
	if s == "" {
		return "the name is empty; " + right
	}
	if len(s) > MaxNameLen {
		return fmt.Sprintf("%q is %d characters long; %s", s, len(s), right)
	}
	for i, c := range s {
		switch {
		case isAlnum(c):
		case i == 0:
			return fmt.Sprintf("%q starts with %s; %s", s, charName(c), right)
		case c == '.' || c == '_' || c == '-':
		default:
			return fmt.Sprintf("%q holds %s at position %d%s; %s", s, charName(c), i+1, why(c), right)
		}
	}
	return ""
}

// CheckHCAName checks an HCA name: "<node>/<device>", two names joined by one '/' (the '/' is
// how a cable end tells an HCA from a switch).
func CheckHCAName(s string) string {
	node, dev, ok := strings.Cut(s, "/")
	if !ok {
		return fmt.Sprintf("%q has no '/': an HCA is named \"<node>/<device>\", e.g. \"gpu001/mlx5_0\"", s)
	}
	if msg := CheckName(node); msg != "" {
		return "node part: " + msg
	}
	if msg := CheckName(dev); msg != "" {
		return "device part: " + msg
	}
	return ""
}

// CheckPartitionName checks a partition name against OpenSM's partitions.conf parser
// (osm_prtn_config.c): the header "name=pkey,flags : members ;" is split on ',', '=', ':' and
// ';', '#' starts a comment, blanks are trimmed, a name that starts with a digit is read as a
// P_Key, and the name is copied into a fixed-size field; "Default" is the default partition.
func CheckPartitionName(s string) string {
	const right = "use up to 31 letters, digits, '_', '.' or '-', starting with a letter or '_', e.g. \"storage\""
	switch {
	case s == "":
		return "the partition name is empty; " + right
	case strings.EqualFold(s, "Default"):
		return "\"Default\" is OpenSM's default partition (P_Key 0x7fff), which the provider always writes; choose another name"
	}
	for i, c := range s {
		switch {
		case isAlnum(c) && (i > 0 || !isDigit(c)) || c == '_':
		case isDigit(c):
			return fmt.Sprintf("%q starts with a digit, which OpenSM reads as a P_Key, not a name; %s", s, right)
		case i > 0 && (c == '.' || c == '-'):
		case strings.ContainsRune(",=:;#", c):
			return fmt.Sprintf("%q holds %s at position %d%s; %s", s, charName(c), i+1, why(c), right)
		default:
			return fmt.Sprintf("%q holds %s at position %d, which partitions.conf does not carry; %s", s, charName(c), i+1, right)
		}
	}
	if len(s) > MaxPartNameLen {
		return fmt.Sprintf("%q is %d characters long; OpenSM keeps partition names in a short fixed-size field: %s", s, len(s), right)
	}
	return ""
}

// why says what a separator character means to the parsers that read names back.
func why(c rune) string {
	switch c {
	case ':':
		return ", which separates a cable end's device from its port and, in partitions.conf, a partition's header from its members"
	case ',':
		return ", which separates flags and members in partitions.conf"
	case '=':
		return ", which separates a partition's name from its P_Key in partitions.conf"
	case ';':
		return ", which ends a partition definition in partitions.conf"
	case '#':
		return ", which starts a comment in OpenSM's files"
	case '/':
		return ", which separates node and device in an HCA name (\"gpu001/mlx5_0\")"
	case ' ', '\t':
		return ", which splits words in OpenSM's files and cable labels"
	}
	return ""
}

func charName(c rune) string {
	switch c {
	case ' ':
		return "a space"
	case '\t':
		return "a tab"
	}
	if c < 0x20 || c == 0x7f {
		return fmt.Sprintf("the control character %U", c)
	}
	return fmt.Sprintf("'%c'", c)
}

func isDigit(c rune) bool { return c >= '0' && c <= '9' }
func isAlnum(c rune) bool { return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// ParseGUID reads a GUID as the fabric's attributes take it: "0x" and exactly 16 hex digits, the
// form OpenSM's files and ibstat's "Port GUID" print (0x0002c90300a1b2c3). Fewer digits are
// refused rather than zero-padded: a GUID copied with digits missing is a different device's.
// Zero is refused too: OpenSM treats a zero GUID as no GUID.
func ParseGUID(s string) (uint64, string) {
	const right = "write 0x and 16 hex digits, e.g. \"0x0002c90300a1b2c3\""
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return 0, fmt.Sprintf("GUID %q does not start with 0x; %s", s, right)
	}
	hex := s[2:]
	for i := 0; i < len(hex); i++ {
		if !isHex(hex[i]) {
			return 0, fmt.Sprintf("GUID %q holds %q, which is not a hex digit; %s", s, hex[i:i+1], right)
		}
	}
	if len(hex) != 16 {
		return 0, fmt.Sprintf("GUID %q has %d hex digits, not 16; %s", s, len(hex), right)
	}
	v, _ := strconv.ParseUint(hex, 16, 64) // 16 hex digits always fit
	if v == 0 {
		return 0, fmt.Sprintf("GUID %q is zero, which OpenSM reads as no GUID; give the device's own GUID (ibstat prints it)", s)
	}
	return v, ""
}

// CheckGUID checks a switch node GUID or an HCA port GUID (see ParseGUID).
func CheckGUID(s string) string { _, msg := ParseGUID(s); return msg }

// IsPartitionKeyword tells whether s is one of PartitionKeywords, OpenSM's port-list keywords
// (osm_prtn_config.c partition_add_port).
func IsPartitionKeyword(s string) bool {
	for _, k := range PartitionKeywords {
		if s == k {
			return true
		}
	}
	return false
}

// CheckMemberGUID checks a partition member's guid: a port GUID or one of OpenSM's keywords.
func CheckMemberGUID(s string) string {
	if IsPartitionKeyword(s) {
		return ""
	}
	if msg := CheckGUID(s); msg != "" {
		return msg + ", or one of OpenSM's keywords " + strings.Join(PartitionKeywords, ", ")
	}
	return ""
}

// ParsePKey reads a partition key: "0x" and 4 hex digits from 0x0001 to 0x7ffe. 0x0000 is the
// invalid P_Key and 0x7fff the default partition (IBTA vol. 1, 10.9.1.2); the top bit 0x8000 is
// the membership bit, which each member's membership sets, not the key.
func ParsePKey(s string) (uint16, string) {
	const right = "use 0x and 4 hex digits from \"0x0001\" to \"0x7ffe\", e.g. \"0x0001\""
	hex, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return 0, fmt.Sprintf("pkey %q does not start with 0x; %s", s, right)
	}
	for i := 0; i < len(hex); i++ {
		if !isHex(hex[i]) {
			return 0, fmt.Sprintf("pkey %q holds %q, which is not a hex digit; %s", s, hex[i:i+1], right)
		}
	}
	if len(hex) != 4 {
		return 0, fmt.Sprintf("pkey %q has %d hex digits, not 4; %s", s, len(hex), right)
	}
	v, _ := strconv.ParseUint(hex, 16, 16)
	switch {
	case v == 0:
		return 0, fmt.Sprintf("pkey %s is the invalid P_Key, which no port may hold; %s", s, right)
	case v == 0x7fff:
		return 0, fmt.Sprintf("pkey %s is OpenSM's default partition, which always exists and is not declared; %s", s, right)
	case v&0x8000 != 0:
		low := v & 0x7fff
		if low == 0 || low == 0x7fff {
			return 0, fmt.Sprintf("pkey %s has the membership bit (0x8000) set, and without it is 0x%04x, which is reserved; %s, and set each member's membership instead", s, low, right)
		}
		return 0, fmt.Sprintf("pkey %s has the membership bit (0x8000) set; write the 15-bit key \"0x%04x\" and set each member's membership instead", s, low)
	}
	return uint16(v), ""
}

// CheckPKey checks a partition key (see ParsePKey).
func CheckPKey(s string) string { _, msg := ParsePKey(s); return msg }

// CheckMembership checks a partition member's membership.
func CheckMembership(s string) string {
	for _, m := range Memberships {
		if s == m {
			return ""
		}
	}
	return fmt.Sprintf("membership %q must be \"full\" (talks to every member) or \"limited\" (talks to full members only)", s)
}

// CheckMTU checks a partition's IPoIB broadcast-group MTU in bytes (see MTUs).
func CheckMTU(bytes int) string {
	if _, ok := MTUCode(bytes); ok {
		return ""
	}
	return fmt.Sprintf("MTU %d is not an InfiniBand MTU: use 256, 512, 1024, 2048 or 4096 bytes (4096 on a GPU fabric)", bytes)
}

// CheckSL checks a service level.
func CheckSL(sl int) string {
	if sl >= 0 && sl <= MaxSL {
		return ""
	}
	return fmt.Sprintf("SL %d is out of range: a service level is 0-15", sl)
}

// CheckRole checks a declared switch role ("" leaves it to inference).
func CheckRole(role string) string {
	for _, r := range Roles {
		if role == r {
			return ""
		}
	}
	return fmt.Sprintf("role %q is not a switch role: use \"leaf\", \"spine\" or \"core\", or leave it unset to have the fabric infer it", role)
}

// CheckRowPosition checks a rack's row or position ("row" or "position").
func CheckRowPosition(attr string, v int) string {
	if v >= 0 && v <= MaxRowPosition {
		return ""
	}
	return fmt.Sprintf("%s %d is out of range: use 0-%d (count from 0 or 1 as you like; only differences give cable lengths)", attr, v, MaxRowPosition)
}

// CheckUnits checks a rack's usable units.
func CheckUnits(u int) string {
	if u >= 1 && u <= MaxRackUnits {
		return ""
	}
	return fmt.Sprintf("units %d is out of range: a rack has 1-%d usable units (%d is the common size)", u, MaxRackUnits, DefaultRackUnits)
}

// CheckPowerKW checks a rack's power budget in kW.
func CheckPowerKW(kw float64) string {
	if kw >= MinPowerKW && kw <= MaxPowerKW {
		return ""
	}
	return fmt.Sprintf("power_kw %g is out of range: a rack's power budget is %g-%g kW, or leave it unset for no power check", kw, float64(MinPowerKW), float64(MaxPowerKW))
}

// CheckPositionU checks the lowest rack unit a switch or node occupies.
func CheckPositionU(u int) string {
	if u >= 1 && u <= MaxPositionU {
		return ""
	}
	return fmt.Sprintf("position_u %d is out of range: rack units count from 1 (the bottom) to at most %d", u, MaxPositionU)
}

// CheckLengthM checks a declared cable length in metres.
func CheckLengthM(m float64) string {
	if m >= MinLengthM {
		return ""
	}
	return fmt.Sprintf("length_m %g is not a cable length: give the run in metres, at least 0.1 (the shortest DAC is 0.5 m), or leave it unset to have the fabric estimate it from the racks", m)
}

// CheckPort checks a cable end's port against the radix of its device (radix 0: not known here).
func CheckPort(port, radix int, model string) string {
	switch {
	case port < 1:
		return fmt.Sprintf("port %d does not exist: ports count from 1", port)
	case radix > 0 && port > radix:
		return fmt.Sprintf("port %d does not exist: a %s has ports 1-%d", port, model, radix)
	}
	return ""
}

// CheckCatalogPort checks a cable end's port for a cable that does not know its devices' models:
// a port that no switch model of the catalog has cannot exist (CheckPort is the exact check,
// once the device is known).
func CheckCatalogPort(cat *catalog.Catalog, port int) string {
	if w, ok := cat.WidestSwitch(); ok && port > w.Ports {
		return fmt.Sprintf("port %d exists on no switch model in the catalog: the largest, %s, has ports 1-%d; "+
			"the fabric checks each end against its device's exact model", port, w.Name, w.Ports)
	}
	return ""
}

// CheckRail checks an HCA's rail.
func CheckRail(r int) string {
	if r >= 0 && r <= MaxRail {
		return ""
	}
	return fmt.Sprintf("rail %d is out of range: rails are 0-%d (a DGX H100 has rails 0-7)", r, MaxRail)
}

// CheckComputeHCAs checks a node's number of compute HCAs.
func CheckComputeHCAs(n int) string {
	if n >= 1 && n <= MaxComputeHCAs {
		return ""
	}
	return fmt.Sprintf("compute_hcas %d is out of range: a node has 1-%d compute HCAs (a DGX H100 has 8), or leave it unset for the model's", n, MaxComputeHCAs)
}

// CheckCableEnds checks that a cable joins two different devices. A cable from one port of a
// switch to another port of the same switch is a loopback: it carries no traffic between
// devices, OpenSM's discovery sees the switch as its own neighbour, and it takes two ports from
// the fabric. An HCA cabled to itself is no link at all.
func CheckCableEnds(a, b End) string {
	if a.Device != b.Device || a.Device == "" {
		return ""
	}
	if a.Port == b.Port {
		return fmt.Sprintf("both ends are %s port %d; a cable joins two different ports of two different devices", a.Device, a.Port)
	}
	return fmt.Sprintf("both ends are on %s (ports %d and %d): a cable from a device back to itself is a loopback that joins nothing; cable b to another switch or to an HCA", a.Device, a.Port, b.Port)
}

// CheckCableKind checks a declared cable kind against the kinds a cable may name.
func CheckCableKind(kind string) string {
	for _, k := range catalog.CableKinds {
		if k == kind {
			return ""
		}
	}
	return fmt.Sprintf("no cable of kind %q: use one of %s, or leave kind unset to let the planner choose", kind, strings.Join(catalog.CableKinds, ", "))
}
