package analysis_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucluster/terraform-provider-gpucluster/internal/opensm"
)

// The LFT dump reader, for the tests that hold the route model to what OpenSM 3.3.23 really
// installs on ibsim. Nothing else reads the dump, so it lives here rather than in opensm.

// FileLFTDump is the file OpenSM writes the unicast forwarding tables of every switch to, in
// dump_files_dir, when log_flags has OSM_LOG_ROUTING (0x40) set (osm_dump.c, dump_ucast_lfts).
const FileLFTDump = "opensm-lfts.dump"

// LFTs are the linear forwarding tables of a subnet, as OpenSM dumped them.
type LFTs struct {
	Switches []SwitchLFT
	// Targets names what each LID is: the port GUID and node the dump's comments give.
	Targets map[int]LFTTarget
}

// SwitchLFT is one switch's table: Ports[lid] is the output port, 0 for the switch itself.
// LIDs the switch has no route for are absent.
type SwitchLFT struct {
	GUID   opensm.GUID
	LID    int
	Desc   string
	MaxLID int
	Ports  map[int]int
}

// LFTTarget is what a LID belongs to.
type LFTTarget struct {
	Kind     string // "Switch", "Channel Adapter", "Router"
	PortGUID opensm.GUID
	Desc     string
}

// ParseLFTs parses opensm-lfts.dump:
//
//	Unicast lids [0-12] of switch Lid 3 guid 0x0002c90300001001 ('spine01'):
//	0x0001 017 # Channel Adapter portguid 0x0002c90300100001: 'gpu001 mlx5_0'
//	0x0003 000 # Switch portguid 0x0002c90300001001: 'spine01'
//	12 lids dumped
//
// A dump of several sweeps holds one block per switch per sweep; the last block of a switch
// wins, as it is the table OpenSM last set.
func ParseLFTs(text string) (*LFTs, error) {
	out := &LFTs{Targets: map[int]LFTTarget{}}
	index := map[opensm.GUID]int{}
	var cur *SwitchLFT
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		bad := func(why string) error { return fmt.Errorf("opensm-lfts.dump line %d: %s: %q", n+1, why, line) }
		switch {
		case strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "Unicast lids ["):
			sw, err := parseLFTHeader(line)
			if err != nil {
				return nil, bad(err.Error())
			}
			if i, seen := index[sw.GUID]; seen {
				out.Switches[i] = sw
				cur = &out.Switches[i]
			} else {
				index[sw.GUID] = len(out.Switches)
				out.Switches = append(out.Switches, sw)
				cur = &out.Switches[len(out.Switches)-1]
			}
		case strings.HasSuffix(line, " lids dumped"):
			cur = nil
		case strings.HasPrefix(line, "0x"):
			if cur == nil {
				return nil, bad("LFT entry outside a switch block")
			}
			f := strings.Fields(line)
			if len(f) < 2 {
				return nil, bad("want `0xLID PORT # ...`")
			}
			lid, err := strconv.ParseUint(f[0], 0, 16)
			if err != nil {
				return nil, bad("bad LID")
			}
			port, err := strconv.ParseUint(f[1], 10, 8)
			if err != nil {
				return nil, bad("bad port")
			}
			cur.Ports[int(lid)] = int(port)
			if i := strings.Index(line, "# "); i >= 0 {
				if tgt, ok := parseLFTTarget(line[i+2:]); ok {
					out.Targets[int(lid)] = tgt
				}
			}
		default:
			return nil, bad("unexpected line")
		}
	}
	return out, nil
}

// parseLFTHeader parses "Unicast lids [0-12] of switch Lid 3 guid 0x... ('desc'):".
func parseLFTHeader(line string) (SwitchLFT, error) {
	sw := SwitchLFT{Ports: map[int]int{}}
	rest := strings.TrimPrefix(line, "Unicast lids [")
	i := strings.Index(rest, "]")
	if i < 0 {
		return sw, fmt.Errorf("no LID range")
	}
	rng := strings.SplitN(rest[:i], "-", 2)
	if len(rng) != 2 {
		return sw, fmt.Errorf("bad LID range")
	}
	maxLID, err := strconv.Atoi(rng[1])
	if err != nil {
		return sw, fmt.Errorf("bad LID range")
	}
	sw.MaxLID = maxLID
	rest = rest[i+1:]
	var lid int
	var guid string
	if _, err := fmt.Sscanf(rest, " of switch Lid %d guid %s", &lid, &guid); err != nil {
		return sw, fmt.Errorf("want `of switch Lid N guid 0x...`")
	}
	v, err := opensm.ParseGUID(guid)
	if err != nil {
		return sw, err
	}
	sw.LID, sw.GUID = lid, v
	if a, b := strings.Index(rest, "('"), strings.LastIndex(rest, "')"); a >= 0 && b > a {
		sw.Desc = rest[a+2 : b]
	}
	return sw, nil
}

// parseLFTTarget parses "Channel Adapter portguid 0x...: 'gpu001 mlx5_0'".
func parseLFTTarget(s string) (LFTTarget, bool) {
	i := strings.Index(s, " portguid ")
	if i < 0 {
		return LFTTarget{}, false
	}
	t := LFTTarget{Kind: s[:i]}
	rest := s[i+len(" portguid "):]
	j := strings.Index(rest, ":")
	if j < 0 {
		return LFTTarget{}, false
	}
	v, err := opensm.ParseGUID(rest[:j])
	if err != nil {
		return LFTTarget{}, false
	}
	t.PortGUID = v
	d := strings.TrimSpace(rest[j+1:])
	t.Desc = strings.TrimSuffix(strings.TrimPrefix(d, "'"), "'")
	return t, true
}

// Switch returns the table of the switch with the given node GUID.
func (l *LFTs) Switch(guid opensm.GUID) (*SwitchLFT, bool) {
	for i := range l.Switches {
		if l.Switches[i].GUID == guid {
			return &l.Switches[i], true
		}
	}
	return nil, false
}

// LIDOf returns the LID whose target has the given port GUID.
func (l *LFTs) LIDOf(port opensm.GUID) (int, bool) {
	for lid, t := range l.Targets {
		if t.PortGUID == port {
			return lid, true
		}
	}
	return 0, false
}
