package asbuilt

import (
	"fmt"
	"strings"
)

// handFloor writes, as an ibsim net file, a rail-optimized fabric cabled by hand, the way the
// issue's floor is and not the way the generator would: sus scalable units of 32 DGX H100
// (hgx-a001.., hgx-b001.., one letter per SU) whose compute HCAs carry the DGX's own device
// names (mlx5_0, 3, 4, 5, 6, 9, 10, 11), one leaf per rail per SU (ib-leaf-01.., described as a
// managed QM9700 does: "MF0;ib-leaf-07:MQM9700/U1"), and 32*sus/8 spines described with
// placeholder host names (MF0;sw-tmp-NN) that the node name map names ib-spine-NN.
//
// Port conventions (none the generator's): a leaf's uplinks are ports 1-32, blocked by spine
// (spine s takes leaf ports 8/... see below), and node slot j (1-based) is on port 32+j; a spine
// takes leaf l's links on a block of ports too. With S spines each leaf has m = 32/S links to
// each: leaf port (s-1)*m+k goes to spine s, port (l-1)*m+k (k = 1..m).
//
// Faults: swap names nodes whose first two rails are swapped (mlx5_0 on the rail-1 leaf and
// mlx5_3 on the rail-0 leaf); dead lists uplinks that are down ("ib-leaf-12:6", by the leaf
// end), which ibnetdiscover cannot see, so the net file leaves them out.
type handFloor struct {
	sus  int
	swap map[string]bool
	dead map[string]bool
}

var dgxDevices = []string{"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"}

func (h handFloor) spines() int { return 4 * h.sus }
func (h handFloor) m() int      { return 32 / h.spines() }

func (h handFloor) host(su, j int) string { return fmt.Sprintf("hgx-%c%03d", 'a'+su, j) }
func (h handFloor) leaf(su, rail int) string {
	return fmt.Sprintf("ib-leaf-%02d", su*8+rail+1)
}
func (h handFloor) leafID(su, rail int) string {
	return fmt.Sprintf("MF0;%s:MQM9700/U1", h.leaf(su, rail))
}
func (h handFloor) spineID(s int) string   { return fmt.Sprintf("MF0;sw-tmp-%02d:MQM9700/U1", s) }
func (h handFloor) spineName(s int) string { return fmt.Sprintf("ib-spine-%02d", s) }

// GUIDs: NVIDIA OUIs, numbered by hand (leaves b8:3f:d2:03:00:4a:..., spines ...:4b:...,
// HCAs a0:88:c2:03:00:..; ibsim gives a CA's port p the GUID node+p).
func (h handFloor) leafGUID(l int) uint64  { return 0xb83fd203004a0000 + uint64(l)*0x100 }
func (h handFloor) spineGUID(s int) uint64 { return 0xb83fd203004b0000 + uint64(s)*0x100 }
func (h handFloor) hcaGUID(su, j, r int) uint64 {
	return 0xa088c20300000000 + uint64(su)<<20 + uint64(j)<<8 + uint64(r)<<4
}

// rail of device index r on node (su, j): its own, or swapped with the next for a swap.
func (h handFloor) railOf(su, j, r int) int {
	if h.swap[h.host(su, j)] && r < 2 {
		return 1 - r
	}
	return r
}

func (h handFloor) net() string {
	var b strings.Builder
	b.WriteString("# A hand-built rail-optimized fabric: see handFloor in internal/asbuilt.\n")
	m := h.m()
	up := func(su, rail, s, k int) bool { // is the uplink alive?
		return !h.dead[fmt.Sprintf("%s:%d", h.leaf(su, rail), (s-1)*m+k)]
	}
	for su := 0; su < h.sus; su++ {
		for rail := 0; rail < 8; rail++ {
			l := su*8 + rail + 1
			fmt.Fprintf(&b, "\nswitchguid=0x%016x\nSwitch\t64 \"%s\"\n", h.leafGUID(l), h.leafID(su, rail))
			for s := 1; s <= h.spines(); s++ {
				for k := 1; k <= m; k++ {
					if up(su, rail, s, k) {
						fmt.Fprintf(&b, "[%d]\t\"%s\"[%d]\t\t# lid 0 4xHDR\n", (s-1)*m+k, h.spineID(s), (l-1)*m+k)
					}
				}
			}
			for j := 1; j <= 32; j++ {
				for r := 0; r < 8; r++ {
					if h.railOf(su, j, r) == rail {
						fmt.Fprintf(&b, "[%d]\t\"%s %s\"[1]\t\t# lid 0 4xHDR\n", 32+j, h.host(su, j), dgxDevices[r])
					}
				}
			}
		}
	}
	for s := 1; s <= h.spines(); s++ {
		fmt.Fprintf(&b, "\nswitchguid=0x%016x\nSwitch\t64 \"%s\"\n", h.spineGUID(s), h.spineID(s))
		for su := 0; su < h.sus; su++ {
			for rail := 0; rail < 8; rail++ {
				l := su*8 + rail + 1
				for k := 1; k <= m; k++ {
					if up(su, rail, s, k) {
						fmt.Fprintf(&b, "[%d]\t\"%s\"[%d]\t\t# lid 0 4xHDR\n", (l-1)*m+k, h.leafID(su, rail), (s-1)*m+k)
					}
				}
			}
		}
	}
	for su := 0; su < h.sus; su++ {
		for j := 1; j <= 32; j++ {
			for r := 0; r < 8; r++ {
				rail := h.railOf(su, j, r)
				fmt.Fprintf(&b, "\ncaguid=0x%016x\nCa\t1 \"%s %s\"\n[1]\t\"%s\"[%d]\t\t# lid 0 4xHDR\n",
					h.hcaGUID(su, j, r), h.host(su, j), dgxDevices[r], h.leafID(su, rail), 32+j)
			}
		}
	}
	return b.String()
}

// nodeNameMap names the spines, whose descriptions carry placeholder host names.
func (h handFloor) nodeNameMap() string {
	var b strings.Builder
	b.WriteString("# OpenSM node name map of the hand-built floor: the spines' switch OS host names were\n")
	b.WriteString("# never set, so the map names them.\n")
	for s := 1; s <= h.spines(); s++ {
		fmt.Fprintf(&b, "0x%016x \"%s\"\n", h.spineGUID(s), h.spineName(s))
	}
	return b.String()
}

// issueFloor is the issue's floor: 2 SU, a rail swap on hgx-b017, one dead uplink.
func issueFloor() handFloor {
	return handFloor{sus: 2, swap: map[string]bool{"hgx-b017": true}, dead: map[string]bool{"ib-leaf-12:6": true}}
}
